"""Train the offline reasoner's clause selector (which clauses are worth a fact).

Reads ``data/fact_clauses.jsonl`` and ``data/fact_clauses_more.jsonl`` (clauses written and
labelled for this project: ``text``,
``label`` 1 = worth a fact, 0 = chatter, reaction, caption, vague), turns every item into its
clauses with the same parse the reasoner uses (:mod:`agent_memory.reasoners.extractive.parse`),
computes the same features (:func:`...select.features`: local embedding + parse features), and
fits a logistic regression (scikit-learn, ``class_weight="balanced"``). It reports accuracy,
precision and recall on held-out folds (5-fold, split by item, so the clauses of one item never
sit on both sides), then fits on everything and writes ``clause_selector.npz`` beside the
module (numpy arrays ``coef``, ``intercept``; numpy alone reads them at run time).

    PYTHONPATH=src python bench/train_clause_selector.py [--c 1.0] [--dry-run] [--data FILE ...]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

from agent_memory.reasoners.extractive.parse import clauses, parse
from agent_memory.reasoners.extractive.select import WEIGHTS, features

DATA = tuple(Path(__file__).resolve().parents[1] / "data" / name
             for name in ("fact_clauses.jsonl", "fact_clauses_more.jsonl"))


def load(paths: Sequence[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Feature rows, labels and item index of every clause of every item of ``paths``."""
    items = [json.loads(line) for path in paths
             for line in path.read_text().splitlines() if line.strip()]
    parsed = clauses(parse([item["text"] for item in items]))
    rows, labels, owners = [], [], []
    for index, (item, found) in enumerate(zip(items, parsed, strict=True)):
        for clause in found:
            rows.append(clause)
            labels.append(int(item["label"]))
            owners.append(index)
    return features(rows), np.array(labels), np.array(owners)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="+", default=list(DATA))
    parser.add_argument("--c", type=float, default=1.0, help="inverse regularisation strength")
    parser.add_argument("--dry-run", action="store_true", help="report, do not write weights")
    args = parser.parse_args()
    x, y, owners = load(args.data)
    items = np.unique(owners)
    item_labels = np.array([y[owners == i][0] for i in items])
    predicted = np.zeros_like(y)
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(items, item_labels):
        train_rows, test_rows = np.isin(owners, items[train]), np.isin(owners, items[test])
        model = LogisticRegression(C=args.c, class_weight="balanced", max_iter=2000)
        model.fit(x[train_rows], y[train_rows])
        predicted[test_rows] = model.predict(x[test_rows])
    tp = int(((predicted == 1) & (y == 1)).sum())
    print(f"{len(items)} items, {len(y)} clauses ({int(y.sum())} worth a fact); held-out folds: "
          f"accuracy {float((predicted == y).mean()):.3f}, precision "
          f"{tp / max(1, int(predicted.sum())):.3f}, recall {tp / max(1, int(y.sum())):.3f}")
    model = LogisticRegression(C=args.c, class_weight="balanced", max_iter=2000).fit(x, y)
    if not args.dry_run:
        np.savez(WEIGHTS, coef=model.coef_[0].astype(np.float32),
                 intercept=model.intercept_.astype(np.float32))
        print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
