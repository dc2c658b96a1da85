"""Memory keeper benchmark: context compression on LoCoMo, add_turn latency, pruning cost.

Each LoCoMo dev conversation is replayed through the keeper on a fresh SQLite store with the
local embedder and the extractive reasoner: one keeper session per LoCoMo session (its turns
with their speakers and dates), ended with session reflection, followed by long-term
reflection (so later sessions start with a profile and the recent session summaries).

Figures:

- compression per conversation = tokens of the whole history (every turn as ``speaker: text``)
  / tokens of the context just before the last session ends (init block + cumulative summary
  + active turns), both by :func:`agent_memory.tokens.count_tokens`. Target >= 5 (seed 001).
- ``add_turn`` latency p50 / p95 for calls that do not prune (target p50 <= 5 ms: the turn is
  written full-text indexed, without its vector) and, separately, for the calls that prune
  (interaction metadata, summary update, and one embedding batch: the k pending turns plus
  the interaction's two texts and the session summary), and ``end_session`` (flush of the
  partial interaction with its pending turns, session reflection).

Usage::

    python bench/keeper.py [--locomo PATH] [--limit N] [--k 10] [--n 5]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import DEFAULT_LOCOMO, percentiles_ms, print_machine

from agent_memory import AsyncMemory, Settings
from agent_memory.datasets.locomo import load_locomo
from agent_memory.embedders.local import LocalEmbedder
from agent_memory.tokens import count_tokens


async def replay(sample, embedder, k: int, n: int, plain: list[float], pruning: list[float],
                 ending: list[float]):
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load(store=str(Path(tmp) / "bench.db"), k_turn_buffer=k,
                                 n_active_turns=n)
        async with AsyncMemory.open(settings, embedder=embedder) as memory:
            user = sample.user_id
            history: list[str] = []
            context_tokens = 0
            for index, session in enumerate(sample.sessions):
                sid = await memory.start_session(user, session.thread_id)
                keeper = await memory.session_keeper(user, sid)
                folded = -1
                for turn in session.turns:
                    history.append(f"{turn.author}: {turn.content}")
                    start = time.perf_counter()
                    await keeper.add_turn(turn.role, turn.content, speaker=turn.speaker,
                                          created_at=turn.created_at)
                    elapsed = time.perf_counter() - start
                    # (outside the timing) did this call prune?
                    now = (await keeper.record()).folded_seq
                    (pruning if now != folded else plain).append(elapsed)
                    folded = now
                if index == len(sample.sessions) - 1:
                    context_tokens = count_tokens(await keeper.get_current_context())
                start = time.perf_counter()
                await memory.end_session(user, sid)
                ending.append(time.perf_counter() - start)
                await memory.run_longterm_reflection(user)
            history_tokens = count_tokens("\n".join(history))
            turns = len(history)
    return turns, history_tokens, context_tokens


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--limit", type=int, default=None, help="Conversations to replay.")
    parser.add_argument("--k", type=int, default=10, help="K_TURN_BUFFER.")
    parser.add_argument("--n", type=int, default=5, help="N_ACTIVE_TURNS.")
    args = parser.parse_args()
    if not args.locomo.exists():
        sys.exit(f"LoCoMo dev set not found at {args.locomo}")
    print_machine()
    samples = load_locomo(args.locomo)[: args.limit]
    embedder = LocalEmbedder()
    await embedder.embed(["warm up the model"])
    sample_texts = [f"{t.author}: {t.content}" for t in samples[0].turns()][:200]
    embed_times = []
    for text in sample_texts:  # what add_turn cost when it embedded each turn on the spot
        start = time.perf_counter()
        await embedder.embed_one(text)
        embed_times.append(time.perf_counter() - start)
    plain: list[float] = []
    pruning: list[float] = []
    ending: list[float] = []
    print(f"\nk={args.k} N={args.n}; extractive reasoner, local embedder, fresh SQLite per "
          "conversation\n")
    print(f"{'conversation':<14}{'sessions':>9}{'turns':>7}{'history tok':>13}"
          f"{'context tok':>13}{'ratio':>8}")
    ratios = []
    for sample in samples:
        turns, history, context = await replay(sample, embedder, args.k, args.n, plain,
                                               pruning, ending)
        ratio = history / context if context else float("inf")
        ratios.append(ratio)
        print(f"{sample.sample_id:<14}{len(sample.sessions):>9}{turns:>7}{history:>13}"
              f"{context:>13}{ratio:>8.1f}")
    print(f"\ncompression: min {min(ratios):.1f}, all >= 5: {all(r >= 5 for r in ratios)}")
    p = percentiles_ms(embed_times)
    print(f"embed_one alone (one turn): n={len(embed_times)} p50 {p['p50']:.2f} ms  "
          f"p95 {p['p95']:.2f} ms")
    for label, timings in (("add_turn without pruning", plain),
                           ("add_turn that prunes    ", pruning),
                           ("end_session             ", ending)):
        p = percentiles_ms(timings)
        print(f"{label}: n={len(timings)} p50 {p['p50']:.2f} ms  "
              f"p95 {p['p95']:.2f} ms  max {p['max']:.2f} ms")


if __name__ == "__main__":
    asyncio.run(main())
