"""The demo with a scripted small model making the mistakes a real 1.5B model made on it: no
fact for the first session, the advisor's suggestions written as the client's facts,
"yesterday" and "next month" left relative, a fact citing the turn next to the right one.
The memory keeps none of the mistakes (ScriptedChatModel as the openai SDK's transport: real
requests and responses, no network)."""

from __future__ import annotations

import re

from agent_memory import AsyncMemory
from agent_memory.cli.demo import USER, run_demo
from agent_memory.config import Settings
from agent_memory.reasoners import ScriptedChatModel
from agent_memory.reasoners.openai import OpenAIReasoner

_LINE = re.compile(r"^\[([^\]]+)\] \S+ \(\w+\) (\w+) \((\w+)\): (.*)$", re.MULTILINE)
RELATIVE = re.compile(r"\b(?:yesterday|last week|next month|this week)\b", re.IGNORECASE)


def _fact(text: str, evidence: str) -> dict:
    return {"text": text, "subject": "Priya", "category": "finance", "confidence": 0.9,
            "importance": 6, "evidence": [evidence], "occurred_at": None}


def small_model(request: dict):
    system = request["messages"][0]["content"]
    prompt = [m["content"] for m in request["messages"] if m["role"] == "user"][-1]
    lines = _LINE.findall(prompt)
    ids = [tid for tid, *_ in lines]

    def cite(word: str, role: str = "user") -> str:
        return next(tid for tid, _, r, text in lines if word in text and r == role)

    if "about its speaker" in system:  # the narrower request for the missed disclosures
        if "nurse" not in prompt:
            return {"facts": []}  # a turn whose number a fact dropped: still nothing
        return {"facts": [_fact("Priya is 34 and works as a nurse at St. Mary's hospital.",
                                cite("nurse"))]}
    if "extract facts" in system:
        if "nurse" in prompt:
            return {"facts": []}  # session 1: nothing at all
        if "pension" in prompt:
            return {"facts": [
                _fact("Priya looked at her pension statement last week.", cite("pension")),
                # cites the advisor's question; Priya's answer is the next turn
                _fact("Priya wants to raise her pension contribution to 6% next month.",
                      cite("contributing", "assistant")),
                _fact("Priya could use a 529 plan for her daughter's education costs.",
                      cite("529", "assistant")),
            ]}
        return {"facts": [
            _fact("Priya paid off $5,000 of the student loan yesterday.", cite("paid off")),
            _fact("Priya needs roughly four more years of saving to reach the new deposit "
                  "target.", cite("four more years", "assistant")),
        ]}
    if "into the fields of" in system:  # the profile: every fact under finances
        count = len(re.findall(r"^\d+\. ", prompt, re.MULTILINE))
        return {"fields": [{"field": "finances", "facts": list(range(1, count + 1))}]}
    if "long-term memory consistent" in system:  # reconciliation: it finds nothing
        return {"duplicates": [], "contradictions": []}
    if "profile of one user" in system:
        return {"text": "Priya is a nurse saving for a home.", "key_topics": ["home"],
                "evidence": []}
    return {"text": "Priya talked with her advisor about her finances.",
            "key_topics": ["finances"], "evidence": ids[:1]}


async def test_a_small_models_mistakes_do_not_become_memory(tmp_path, local_embedder, capsys,
                                                            caplog):
    caplog.set_level("INFO", logger="agent_memory.pipeline.facts")
    chat = ScriptedChatModel([small_model] * 100)
    reasoner = OpenAIReasoner("qwen15", client=chat.async_client(),
                              response_format="json_object")
    store = tmp_path / "demo.db"
    await run_demo(store, Settings.load(store=str(store)), reasoner=reasoner,
                   embedder=local_embedder)
    out = " ".join(capsys.readouterr().out.split())
    async with AsyncMemory.open(Settings.load(store=str(store)),
                                embedder=local_embedder) as memory:
        facts = {r.content: r.evidence for r in await memory.get_memories(USER, kinds=["fact"])}
    assert facts == {
        # session 1: asked again, narrower, after the empty answer; one claim per fact
        "Priya is 34.": ["2025-03-04-intro:0"],
        "Priya works as a nurse at St. Mary's hospital.": ["2025-03-04-intro:0"],
        "Priya looked at her pension statement the week before 15 April 2025.":
            ["2025-04-15-retirement:0"],
        # the citation moved from the advisor's question to Priya's answer
        "Priya wants to raise her pension contribution to 6% in May 2025.":
            ["2025-04-15-retirement:2"],
        "Priya paid off $5,000 of the student loan on 1 June 2025.": ["2025-06-02-review:6"],
    }, out
    assert not any(RELATIVE.search(text) for text in facts)
    assert "refused by the grounding check" in out
    refused = [r.getMessage() for r in caplog.records if "grounding check" in r.getMessage()]
    # the refused drafts are logged with their text, e.g. the 529 plan the advisor suggested
    assert any("529 plan" in message for message in refused), refused
