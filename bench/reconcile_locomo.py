"""How often offline reconciliation loses a true fact on real conversations, against a reader.

Each LoCoMo dev conversation is ingested with the whole pipeline (its facts as the offline
reasoner writes them, session by session), then reconciled once over all its facts
(``reconcile_memories(user, n=1000)``), as a user's memory is reconciled when many sessions
have passed. Every fact retired is one decision: merged into a duplicate, or retired by a
later fact that contradicts it. ``data/reconcile_locomo_labels.jsonl`` holds a reader's
relation for such pairs, given from the two facts and their dates without seeing the
decision: ``contradiction`` (one means the other no longer holds), ``duplicate`` (keeping one
loses nothing) or ``unrelated`` (both hold). A label names its pair by the sample and, for
each fact, the ``dia_id`` of its first evidence turn and 16 hex digits of the SHA-256 of its
text: no LoCoMo text is stored.

Per split (``tune``: conv-26 and conv-30; ``dev``: conv-41/42/43, read while the claim reader
was mended), the script prints the decisions, how many the reader labelled, and how many lose
a true fact: a retirement or a merge of two facts that both hold (``unrelated``), or a merge
of two that disagree (``contradiction``). A retirement of a duplicate loses nothing.

    PYTHONPATH=src python bench/reconcile_locomo.py [--locomo PATH] [--store DB] [--list]

``--store DB`` starts from a store that already holds the conversations (e.g. from
``agent-memory eval locomo-memory --store DB``), copied first; ``--list`` prints every
decision with its label (LoCoMo text on the screen, never in a file).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from _common import DEFAULT_LOCOMO, fingerprint

from agent_memory import AsyncMemory
from agent_memory.datasets.locomo import dia_id_of, load_locomo
from agent_memory.eval.memory import ingest_samples
from agent_memory.models import Fact, RecordKind
from agent_memory.stores.base import RecordQuery

LABELS = Path(__file__).resolve().parents[1] / "data" / "reconcile_locomo_labels.jsonl"
SPLITS = {"conv-26": "tune", "conv-30": "tune", "conv-41": "dev", "conv-42": "dev",
          "conv-43": "dev"}



def side(fact: Fact, sample_id: str) -> tuple[str, str]:
    """``(dia_id, fingerprint)`` of one fact."""
    return dia_id_of(fact.evidence[0], sample_id), fingerprint(fact.content)


def load_labels(path: Path = LABELS) -> dict[tuple, str]:
    """Unordered pair key ``(sample, frozenset of two sides)`` -> the reader's relation."""
    labels = {}
    for line in path.read_text().splitlines():
        if line.strip():
            item = json.loads(line)
            pair = frozenset((tuple(item["a"]), tuple(item["b"])))
            labels[(item["sample_id"], pair)] = item["relation"]
    return labels


async def decisions(memory: AsyncMemory, sample_id: str) -> list[tuple[str, Fact, Fact]]:
    """Reconcile one conversation over all its facts; ``(reason, retired, kept)`` per fact
    retired."""
    await memory.reconcile_memories(sample_id, n=1000)
    facts = {f.id: f for f in await memory.store.list(sample_id, RecordQuery(
        kinds=frozenset({RecordKind.FACT}), include_superseded=True, limit=10_000))
        if isinstance(f, Fact)}
    return [(f.supersede_reason or "", f, facts[f.superseded_by])
            for f in facts.values() if f.superseded_by and f.superseded_by in facts]


async def run(args: argparse.Namespace) -> None:
    """Ingest (or copy) the conversations, reconcile each once, print the figures per split.

    Raises:
        InvalidInputError: a fact cites a turn that is no turn of its sample. Store and
            embedder errors propagate.
    """
    samples = load_locomo(args.locomo)
    labels = load_labels()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "locomo.db"
        if args.store:
            shutil.copy(args.store, path)
        async with AsyncMemory.open(store=str(path)) as memory:
            await ingest_samples(memory, samples)
            counts: dict[str, Counter] = {s: Counter() for s in ("tune", "dev")}
            for sample in samples:
                split = SPLITS.get(sample.sample_id)
                if split is None:
                    continue
                for reason, retired, kept in await decisions(memory, sample.sample_id):
                    pair = frozenset((side(retired, sample.sample_id),
                                      side(kept, sample.sample_id)))
                    relation = labels.get((sample.sample_id, pair))
                    c = counts[split]
                    c[reason] += 1
                    c["labelled"] += relation is not None
                    c["lost"] += relation == "unrelated" or (
                        reason == "duplicate" and relation == "contradiction")
                    c["right"] += relation == ("duplicate" if reason == "duplicate"
                                               else "contradiction")
                    if args.list:
                        print(f"  {sample.sample_id} {reason:<10} reader: {relation or '-':<13}"
                              f" {retired.content}  ->  {kept.content}")
    for split, c in counts.items():
        total = c["duplicate"] + c["contradict"]
        print(f"  {split:<5} decisions {total:3}  (merged {c['duplicate']}, retired by a "
              f"contradiction {c['contradict']})  labelled {c['labelled']}  lose a true fact "
              f"{c['lost']}  as the reader decided {c['right']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--store", type=Path, default=None,
                        help="a store already holding the conversations (copied first)")
    parser.add_argument("--list", action="store_true", help="print every decision")
    args = parser.parse_args()
    if not args.locomo.exists():
        raise SystemExit(f"LoCoMo dev set not found: {args.locomo}")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
