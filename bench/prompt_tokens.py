"""The longest prompts the LLM reasoner sends, on the LoCoMo dev set, with and without a
context window to fit.

For every conversation of the dev set, the reasoner runs the pipeline's calls against a
scripted endpoint (no network) that records each request and answers with a valid object:

- ``summarize_thread``: each session, folded into the running summary of the conversation's
  previous sessions (summary budget ``summary_max_tokens`` = 200);
- ``extract_facts``: each session as one batch, each session again with the 8 turns before
  it as context (the pipeline's :data:`~agent_memory.pipeline.facts.CONTEXT_TURNS`, shown as
  earlier talk), and the whole conversation in batches of 200 turns (the pipeline's batch
  when a thread is processed at once);
- ``summarize_user``: every session summary and every fact of the conversation as the
  profile's new material (budget 400).

It prints, per call and per window (``--window`` values; ``none`` = a window larger than any
prompt), the number of requests and the longest prompt in estimated tokens
(:func:`agent_memory.tokens.count_tokens` over the message texts, plus 4 per message), and
that prompt plus the answer reserve the reasoner keeps. The session-reflection and
reconciliation prompts are not chunked; their longest prompts are printed too.

Usage::

    python bench/prompt_tokens.py [PATH_TO_locomo_dev.json] [--window 4096 --window none]
"""

from __future__ import annotations

import argparse
import asyncio
import re
from collections import defaultdict
from datetime import UTC, datetime

from _common import DEFAULT_LOCOMO

from agent_memory.config import FINANCIAL_ADVISOR_CATEGORIES
from agent_memory.datasets.locomo import load_locomo
from agent_memory.models import Fact, content_hash
from agent_memory.reasoners.chunking import (
    FACT_ANSWER_SHARE,
    SUMMARY_ANSWER_OVERHEAD,
    message_tokens,
)
from agent_memory.reasoners.openai import OpenAIReasoner
from agent_memory.reasoners.openai_reconcile import reconcile_messages
from agent_memory.reasoners.scripted import ScriptedChatModel
from agent_memory.reasoners.sessions_models import SessionReflection
from agent_memory.reasoners.sessions_prompts import reflection_messages
from agent_memory.reasoners.structured import schema_text

_ID = re.compile(r"^\[([^\]]+)\] ", re.MULTILINE)
UNLIMITED = 10**9


def _answer(body: dict) -> dict:
    """A valid answer to any of the three calls, citing the request's first turns (not the
    earlier turns a fact request shows before the conversation)."""
    fmt = body.get("response_format", {}).get("json_schema", {}).get("name", "")
    ids = _ID.findall(body["messages"][-1]["content"].split("</earlier>")[-1])
    if fmt == "FactExtraction":
        return {"facts": [{"text": f"Fact {i}.", "subject": "Someone", "category": "event",
                           "confidence": 0.9, "importance": 5, "evidence": [i],
                           "occurred_at": None} for i in ids[:3]]}
    # a summary as long as the budget allows: the next request carries it
    words = 150 if "maintain the running summary" in body["messages"][0]["content"] else 300
    return {"text": " ".join(["word"] * words), "key_topics": ["a", "b"], "evidence": ids[:2]}


async def measure(path, window: int) -> dict[str, tuple[int, int, int]]:
    """Per call: (requests, longest prompt, longest prompt + answer reserve)."""
    stats: dict[str, list[int]] = defaultdict(list)
    reserves = {"summarize_thread": 200 + SUMMARY_ANSWER_OVERHEAD,
                "summarize_user": 400 + SUMMARY_ANSWER_OVERHEAD,
                "extract_facts (session)": min(window, 4096) // FACT_ANSWER_SHARE,
                "extract_facts (session, 8 turns before)": min(window, 4096) // FACT_ANSWER_SHARE,
                "extract_facts (200 turns)": min(window, 4096) // FACT_ANSWER_SHARE}
    for sample in load_locomo(path):
        sessions: dict[str, list] = defaultdict(list)
        for turn in sample.turns():
            sessions[turn.thread_id].append(turn)
        turns = [t for s in sessions.values() for t in s]
        items: list[str] = []

        async def run(call: str, coro_factory) -> object:
            chat = ScriptedChatModel([_answer] * 1000)
            reasoner = OpenAIReasoner("m", base_url="http://h/v1", http_client=chat.http_client(),
                                      max_retries=0, context_tokens=window)
            result = await coro_factory(reasoner)
            stats[call] += [message_tokens(b["messages"]) for b in chat.requests]
            return result

        previous = None
        before: list = []
        for session in sessions.values():
            draft = await run("summarize_thread",
                              lambda r, s=session, p=previous: r.summarize_thread(p, s, 200))
            previous = draft.text
            items.append(draft.text)
            facts = await run("extract_facts (session)", lambda r, s=session: r.extract_facts(s))
            items += [f.text for f in facts.facts]
            if before:
                await run("extract_facts (session, 8 turns before)",
                          lambda r, s=session, b=before[-8:]: r.extract_facts(s, context=b))
            before = session
        for start in range(0, len(turns), 200):
            await run("extract_facts (200 turns)",
                      lambda r, b=turns[start:start + 200]: r.extract_facts(b))
        items += [t.content for t in turns[:: max(1, len(turns) // 80)]]  # facts-sized lines
        await run("summarize_user", lambda r, i=items: r.summarize_user(None, i, 400))
        longest = max(sessions.values(), key=len)
        stats["reflect_on_session (longest session, not chunked)"].append(message_tokens(
            reflection_messages(longest, FINANCIAL_ADVISOR_CATEGORIES,
                                schema_text(SessionReflection))))
        now = datetime(2024, 1, 1, tzinfo=UTC)
        pool = [Fact(id=f"f{i}", user_id="u", thread_id="t", content=t.content[:200],
                     content_hash=content_hash(t.content), evidence=[t.id], created_at=now,
                     updated_at=now) for i, t in enumerate(turns[:50])]
        stats["reconcile (50 facts, not chunked)"].append(message_tokens(reconcile_messages(pool)))
    return {call: (len(v), max(v), max(v) + reserves.get(call, 0)) for call, v in stats.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default=str(DEFAULT_LOCOMO))
    parser.add_argument("--window", action="append", default=None,
                        help="context window in tokens, or 'none' (repeatable)")
    args = parser.parse_args()
    for raw in args.window or ["none", "4096"]:
        window = UNLIMITED if raw == "none" else int(raw)
        print(f"window {raw}:")
        print(f"  {'call':52} {'requests':>8} {'longest':>8} {'+answer':>8}")
        for call, (n, longest, total) in asyncio.run(measure(args.path, window)).items():
            print(f"  {call:52} {n:8} {longest:8} {total:8}")


if __name__ == "__main__":
    main()
