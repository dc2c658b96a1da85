"""Speed of the offline extractive reasoner on the LoCoMo dev set.

Prints:
- extract_facts throughput in turns/s (each session passed as one batch, as the pipeline does),
  and how many facts came out;
- summarize_thread time per session in ms (p50 / p95 / max), each session folded into the
  running summary of the previous sessions of its conversation (the incremental case);
- summarize_user time per call in ms, folding each session summary into the profile.

Usage::

    python bench/reasoner_speed.py [PATH_TO_locomo_dev.json] [--repeat N] [--budget TOKENS]

The default path is ``../shared/datasets/locomo/locomo_dev.json`` relative to the repo root.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from agent_memory.models import Turn
from agent_memory.profile_schema import schema_fields
from agent_memory.reasoners.extractive.facts import extract_facts
from agent_memory.reasoners.extractive.profile import FieldIndex, summarize_items
from agent_memory.reasoners.extractive.select import shared_embedder
from agent_memory.reasoners.extractive.summarize import summarize_turns

DEFAULT_PATH = Path(__file__).resolve().parents[1] / "../shared/datasets/locomo/locomo_dev.json"


def load_sessions(path: Path) -> list[list[list[Turn]]]:
    """Conversations -> sessions -> turns, timestamped with the session date (UTC)."""
    conversations = []
    for sample in json.loads(path.read_text()):
        conversation = sample["conversation"]
        sessions = []
        index = 1
        while f"session_{index}" in conversation:
            stamp = datetime.strptime(
                conversation[f"session_{index}_date_time"], "%I:%M %p on %d %B, %Y"
            ).replace(tzinfo=UTC)
            turns = []
            for seq, raw in enumerate(conversation[f"session_{index}"]):
                text = raw["text"]
                if raw.get("blip_caption"):
                    text = f"{text} [image: {raw['blip_caption']}]"
                turns.append(Turn(
                    id=f"{sample['sample_id']}:{raw['dia_id']}", user_id=sample["sample_id"],
                    thread_id=f"session_{index}", role="user", speaker=raw["speaker"],
                    content=text, created_at=stamp, seq=seq,
                ))
            sessions.append(turns)
            index += 1
        conversations.append(sessions)
    return conversations


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--repeat", type=int, default=3, help="passes over the data (best kept)")
    parser.add_argument("--budget", type=int, default=300, help="summary budget in tokens")
    args = parser.parse_args()
    if not args.path.exists():
        print(f"dataset not found: {args.path}", file=sys.stderr)
        return 1
    conversations = load_sessions(args.path)
    sessions = [s for conv in conversations for s in conv]
    n_turns = sum(len(s) for s in sessions)
    print(f"LoCoMo dev: {len(conversations)} conversations, {len(sessions)} sessions, "
          f"{n_turns} turns")

    best = float("inf")
    n_facts = 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        n_facts = sum(len(extract_facts(s).facts) for s in sessions)
        best = min(best, time.perf_counter() - start)
    print(f"extract_facts: {n_turns / best:,.0f} turns/s ({best * 1000:.0f} ms for all), "
          f"{n_facts} facts")

    embed = shared_embedder().embed_sync  # the field index the extractive reasoner builds
    index = FieldIndex(embed, schema_fields(), learned=embed)
    thread_ms: list[float] = []
    user_ms: list[float] = []
    for _ in range(args.repeat):
        for conv in conversations:
            summary: str | None = None
            profile: str | None = None
            for turns in conv:
                start = time.perf_counter()
                summary = summarize_turns(summary, turns, args.budget).text
                thread_ms.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                profile = summarize_items(profile, [summary], args.budget, index).text
                user_ms.append((time.perf_counter() - start) * 1000)
    for label, values in (("summarize_thread", thread_ms), ("summarize_user", user_ms)):
        print(f"{label} (budget {args.budget} tokens): p50 {statistics.median(values):.2f} ms, "
              f"p95 {percentile(values, 0.95):.2f} ms, max {max(values):.2f} ms "
              f"per call ({len(values)} calls)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
