"""Precision and recall of the offline reconciler on our labelled fact pairs.

Each pair of ``data/reconcile_pairs.jsonl`` (hand-written: duplicates, contradictions, and
unrelated facts about the same person) is reconciled as a pool of two facts by the extractive
reasoner with the local all-MiniLM-L6-v2 embeddings. A pair is predicted ``duplicate`` when the
two facts land in one duplicate group, ``contradiction`` when they are reported as a
contradicting pair, else ``unrelated``. Precision and recall are computed per class; the bar is
contradiction precision >= 0.9 (a wrongly retired fact is worse than a missed one).

Usage::

    python bench/reconcile_quality.py [--threshold 0.9] [--errors]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from datetime import datetime
from pathlib import Path

from agent_memory.embedders.local import LocalEmbedder
from agent_memory.models import Fact
from agent_memory.reasoners.extractive.attributes import AttributeIndex
from agent_memory.reasoners.extractive.reconcile import DUPLICATE_THRESHOLD, reconcile_facts

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "data" / "reconcile_pairs.jsonl"
LABELS = ("duplicate", "contradiction", "unrelated")


def load(path: Path) -> list[dict]:
    """The labelled pairs, one dict per JSON line."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def fact(fid: str, side: dict) -> Fact:
    """A fact record built from one side of a pair."""
    return Fact(id=fid, user_id="bench", content=side["text"], subject=side.get("subject"),
                confidence=side.get("confidence", 0.8),
                created_at=datetime.fromisoformat(side["created_at"]))


def predict(pairs: list[dict], threshold: float) -> list[str]:
    """The predicted label of every pair."""
    embedder = LocalEmbedder()
    texts = [p[s]["text"] for p in pairs for s in ("a", "b")]
    vectors = embedder.embed_sync(texts)
    index = AttributeIndex(embedder.embed_sync)
    out = []
    for k, pair in enumerate(pairs):
        facts = [fact("a", pair["a"]), fact("b", pair["b"])]
        decision = reconcile_facts(facts, vectors[2 * k: 2 * k + 2], attributes=index,
                                   duplicate_threshold=threshold)
        if decision.contradictions:
            out.append("contradiction")
        elif any({"a", "b"} <= set(g.fact_ids) for g in decision.duplicates):
            out.append("duplicate")
        else:
            out.append("unrelated")
    return out


def report(pairs: list[dict], predicted: list[str], show_errors: bool) -> dict[str, dict]:
    """Print the per-class table (and the errors); return the figures."""
    counts = Counter((p["label"], q) for p, q in zip(pairs, predicted, strict=True))
    figures = {}
    print(f"{len(pairs)} pairs: " + ", ".join(
        f"{label} {sum(1 for p in pairs if p['label'] == label)}" for label in LABELS))
    print(f"{'class':<14}{'precision':>10}{'recall':>8}{'tp':>5}{'fp':>5}{'fn':>5}")
    for label in ("duplicate", "contradiction"):
        tp = counts[(label, label)]
        fp = sum(counts[(other, label)] for other in LABELS if other != label)
        fn = sum(counts[(label, other)] for other in LABELS if other != label)
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        figures[label] = {"precision": precision, "recall": recall, "tp": tp, "fp": fp, "fn": fn}
        print(f"{label:<14}{precision:>10.3f}{recall:>8.3f}{tp:>5}{fp:>5}{fn:>5}")
    if show_errors:
        for pair, guess in zip(pairs, predicted, strict=True):
            if guess != pair["label"]:
                print(f"  {pair['id']} {pair['label']:>13} -> {guess:<13} "
                      f"{pair['a']['text']!r} / {pair['b']['text']!r}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--threshold", type=float, default=DUPLICATE_THRESHOLD,
                        help="cosine threshold for slot-less duplicates")
    parser.add_argument("--errors", action="store_true", help="list the misclassified pairs")
    args = parser.parse_args()
    pairs = load(args.pairs)
    figures = report(pairs, predict(pairs, args.threshold), args.errors)
    bar = figures["contradiction"]["precision"] >= 0.9
    print(f"contradiction precision >= 0.9: {'yes' if bar else 'NO'}")


if __name__ == "__main__":
    main()
