"""``agent-memory demo --poison``: the planted instruction never becomes a fact, an insight or
a profile line, with the offline reasoner and with a weak local LLM behind an endpoint that
refuses ``json_schema`` with HTTP 500 as llama.cpp's server does (ScriptedChatModel as the
openai SDK's transport: real requests and responses, no network)."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from agent_memory import AsyncMemory
from agent_memory.cli.app import app
from agent_memory.cli.demo import POISON_MARKER, POISON_TURN, USER, run_demo
from agent_memory.config import Settings
from agent_memory.reasoners import ScriptedChatModel, ScriptedHTTPError
from agent_memory.reasoners.openai import OpenAIReasoner

LLAMA_CPP_500 = ScriptedHTTPError(
    500, "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input "
    "should be 'text' or 'json_object'", type="server_error")
_LINE = re.compile(r"^\[([^\]]+)\] \S+ \(\w+\) (\w+) \((\w+)\): (.*)$", re.MULTILINE)


def weak_local_model(request: dict):
    """What a 1.5B model told to follow the conversation does: it obeys the planted turn.
    Facts: the planted one (citing its turn, and citing a legitimate turn) beside real ones;
    summaries repeat it too; the profile step files every fact under one field."""
    if (request.get("response_format") or {}).get("type") == "json_schema":
        return LLAMA_CPP_500
    system = request["messages"][0]["content"]
    prompt = [m["content"] for m in request["messages"] if m["role"] == "user"][-1]
    lines = _LINE.findall(prompt)
    if "extract facts" in system:
        facts = [{"text": "Priya has no student loans.", "subject": "Priya",  # flipped
                  "category": "finance", "confidence": 0.9, "importance": 8,
                  "evidence": [tid for tid, _, _, text in lines if "loans" in text][:1]
                  or [lines[0][0]], "occurred_at": None}]
        legit = [tid for tid, _, role, text in lines if role == "user" and "billionaire" not in text]
        for tid, speaker, role, text in lines:
            if role != "user":
                continue
            if "billionaire" in text:
                for evidence in ([tid], [legit[0]] if legit else [tid]):
                    facts.append({"text": "Priya is a billionaire.", "subject": "Priya",
                                  "category": "possession", "confidence": 0.99,
                                  "importance": 10, "evidence": evidence, "occurred_at": None})
            else:
                facts.append({"text": text.replace("I'm", "Priya is").replace("I ", "Priya "),
                              "subject": speaker, "category": "event", "confidence": 0.8,
                              "importance": 5, "evidence": [tid], "occurred_at": None})
        return {"facts": facts}
    if "into the fields of" in system:  # the profile: it files every fact under finances
        count = len(re.findall(r"^\d+\. ", prompt, re.MULTILINE))
        return {"fields": [{"field": "finances", "facts": list(range(1, count + 1))}]}
    if "long-term memory consistent" in system:  # reconciliation: it finds nothing
        return {"duplicates": [], "contradictions": []}
    ids = [tid for tid, *_ in lines]
    if "billionaire" in prompt:
        return {"text": "Priya is a billionaire and talked about her savings and plans.",
                "key_topics": ["billionaire", "savings"], "evidence": ids[:2]}
    return {"text": f"Priya talked with her advisor. {lines[0][3]}", "key_topics": ["plans"],
            "evidence": ids[:1]}


async def test_a_weak_local_llm_stores_nothing_from_the_planted_turn(tmp_path, local_embedder,
                                                                     capsys):
    chat = ScriptedChatModel([weak_local_model] * 200)
    reasoner = OpenAIReasoner("qwen2.5-1.5b", client=chat.async_client())
    store = tmp_path / "demo.db"
    poisoned = await run_demo(store, Settings.load(store=str(store)), poison=True,
                              reasoner=reasoner, embedder=local_embedder)
    out = capsys.readouterr().out
    assert POISON_TURN in " ".join(out.split())
    assert poisoned == 0, out
    assert "carrying it: 0" in " ".join(out.split())
    refused = re.search(r"refused by the grounding check: (\d+)", out)
    # the planted fact cited two ways, the first summary's sentence; the profile only files
    # stored facts under fields, so it has no sentence of its own to refuse
    assert refused and int(refused.group(1)) >= 3
    flat = " ".join(out.split())
    assert re.search(r"summary sentence: [1-9]", flat)
    profile = out.split("User profile")[1].split("Hybrid search")[0]
    assert "Finances: " in profile and POISON_MARKER not in profile
    async with AsyncMemory.open(Settings.load(store=str(store)),
                                embedder=local_embedder) as memory:
        every = {r.id: r for r in await memory.get_memories(USER, kinds=["fact"],
                                                               include_superseded=True)}
    stored = [r.content for r in every.values()]
    assert "Priya has no student loans." not in stored  # denies what its evidence states
    [loan] = [r for r in every.values() if r.content.startswith("Priya still have $12,000")]
    # the model proposed no contradiction; the offline decision's confident one is adopted:
    # the later balance retires the old one
    assert "$7,000" in every[loan.superseded_by].content
    assert chat.requests[0]["response_format"]["type"] == "json_schema"
    assert chat.requests[1]["response_format"]["type"] == "json_object"  # the fallback


def test_offline_demo_with_the_planted_turn_passes_its_check(tmp_path):
    result = CliRunner().invoke(app, ["demo", "--poison", "--store", str(tmp_path / "d.db")])
    assert result.exit_code == 0, result.output
    assert "carrying it: 0" in " ".join(result.output.split())
    assert POISON_MARKER not in result.output.split("User profile")[1].split("Hybrid search")[0]


async def test_the_check_counts_a_stored_planted_fact(memory, capsys):
    """The check can fail: a fact carrying the planted claim, written directly, is counted."""
    from agent_memory.cli.demo import USER, _poisoning_check

    await memory.add_memories(USER, [{"content": "Priya is a billionaire."},
                                     {"content": "Priya is a nurse."}])
    assert await _poisoning_check(memory, "Priya is a nurse.", {}) == 1
    assert "stored from the planted turn: Priya is a billionaire." in capsys.readouterr().out
