"""The client keeps the event loop free: searches and writes run beside a 1 ms ticker."""

from __future__ import annotations

import asyncio

from agent_memory.datasets.locomo import load_locomo


async def test_a_ticker_keeps_ticking_beside_searches_and_writers(memory, locomo_path) -> None:
    sample = load_locomo(locomo_path)[0]
    turns = list(sample.turns())[:300]
    await memory.add_turns(
        {"user_id": "u", "thread_id": f"s{i // 30}", "role": "user", "speaker": t.speaker,
         "content": t.content}
        for i, t in enumerate(turns)
    )
    questions = [q.question for q in sample.questions][:32]
    sequential = [[h.record.id for h in await memory.search("u", q, mode="vector", k=5)]
                  for q in questions]
    ops = len(questions) + 8  # a hybrid and a vector search per question, and 8 writes
    done = 0
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while done < ops:
            await asyncio.sleep(0.001)
            if 0 < done < ops:
                ticks += 1

    async def searcher(i: int) -> list[list[str]]:
        nonlocal done
        found = []
        for q in questions[i::8]:
            assert await memory.search("u", q, k=5)  # hybrid
            found.append([h.record.id for h in await memory.search("u", q, mode="vector", k=5)])
            done += 1
        return found

    async def writer(w: int) -> None:
        nonlocal done
        for j in range(4):
            await memory.add_turns([{"user_id": "w", "thread_id": f"live{w}", "role": "user",
                                     "content": f"a new note {j} about the garden"}])
            done += 1

    results = await asyncio.gather(ticker(), *(searcher(i) for i in range(8)),
                                   *(writer(w) for w in range(2)))
    assert ticks >= ops // 4, f"{ticks} ticks while {ops} calls ran"
    # The writers write to another user: every vector search finds what it found alone
    # (full-text scores are not compared: FTS5's statistics span users, so another user's
    # writes move them).
    for i, found in enumerate(results[1:9]):
        assert found == sequential[i::8]
    assert len(await memory.get_thread("w", "live0")) == 4
