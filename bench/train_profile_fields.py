"""Train the offline reasoner's profile-field model (which field a fact belongs in, or none).

Reads ``data/profile_statements.jsonl``, ``data/profile_statements_more.jsonl``,
``data/profile_statements_third.jsonl`` and ``data/profile_statements_changes.jsonl``
(statements written and labelled for this project:
``text``, ``subject``, ``field`` = a field of the default profile schema or ``none``) and the
default schema's own prototype statements, embeds each with its subject written as "The
person" (:func:`agent_memory.reasoners.extractive.field_model.as_generic`, the local
all-MiniLM-L6-v2), and fits a multinomial logistic regression (scikit-learn,
``class_weight="balanced"``). It reports, on held-out folds (5-fold, stratified), the recall
of each class and the filing the reasoner does (the most probable field when the probability
of some field, 1 - P(none), reaches ``MIN_PROBABILITY``), then fits on everything and writes
``profile_fields.npz`` beside the module (numpy arrays ``classes``, ``coef``, ``intercept``;
numpy alone reads them at run time).

    PYTHONPATH=src python bench/train_profile_fields.py [--c 16.0] [--dry-run]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

from agent_memory.profile_schema import PERSON, schema_fields
from agent_memory.reasoners.extractive.field_model import (
    MIN_PROBABILITY,
    NONE,
    WEIGHTS,
    as_generic,
)
from agent_memory.reasoners.extractive.select import shared_embedder

DATA = tuple(Path(__file__).resolve().parents[1] / "data" / name for name in (
    "profile_statements.jsonl", "profile_statements_more.jsonl",
    "profile_statements_third.jsonl", "profile_statements_changes.jsonl"))


def load(paths: Sequence[Path]) -> tuple[list[str], list[str]]:
    """Generic texts and labels of the statements in ``paths`` and of the default schema's
    prototypes."""
    fields = schema_fields()
    names = {f.name for f in fields} | {NONE}
    texts, labels = [], []
    for path in paths:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            item = json.loads(line)
            if item["field"] not in names:
                raise SystemExit(f"{path}:{number}: unknown field {item['field']!r}")
            texts.append(as_generic(item["text"], item.get("subject")))
            labels.append(item["field"])
    for f in fields:
        texts += [p for p in f.prototypes if p.startswith(PERSON)]
        labels += [f.name] * sum(p.startswith(PERSON) for p in f.prototypes)
    return texts, labels


def report(y: np.ndarray, proba: np.ndarray, classes: list[str]) -> None:
    """Per-class recall of the most probable class on the held-out folds, then the filing the
    reasoner does (:func:`~agent_memory.reasoners.extractive.field_model.assign`): the most
    probable field when 1 - P(none) reaches ``MIN_PROBABILITY``."""
    none = classes.index(NONE)
    predicted = proba.argmax(axis=1)
    print(f"held-out folds: accuracy {float((predicted == y).mean()):.3f} (most probable class)")
    for k, name in enumerate(classes):
        rows = y == k
        hits = int((predicted[rows] == k).sum())
        print(f"  {name:12} {int(rows.sum()):4}  recall {hits / max(1, int(rows.sum())):.2f}")
    fields = np.where(np.arange(len(classes)) == none, -1.0, 0.0) + proba  # none never wins
    best = fields.argmax(axis=1)
    filed = 1.0 - proba[:, none] >= MIN_PROBABILITY
    right = filed & (best == y)
    print(f"filed (1 - P(none) >= {MIN_PROBABILITY}): {int(filed.sum())}; in the labelled field "
          f"{int(right.sum()) / max(1, int(filed.sum())):.3f} of them; of the statements "
          f"labelled with a field, {int(right.sum()) / max(1, int((y != none).sum())):.3f} "
          f"filed there; of those labelled none, "
          f"{int((filed & (y == none)).sum()) / max(1, int((y == none).sum())):.3f} filed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="+", default=list(DATA))
    parser.add_argument("--c", type=float, default=16.0, help="inverse regularisation strength")
    parser.add_argument("--dry-run", action="store_true", help="report, do not write weights")
    args = parser.parse_args()
    texts, labels = load(args.data)
    classes = sorted(set(labels))
    y = np.array([classes.index(label) for label in labels])
    x = shared_embedder().embed_sync(texts)
    proba = np.zeros((len(y), len(classes)))
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(x, y):
        model = LogisticRegression(C=args.c, class_weight="balanced", max_iter=5000)
        model.fit(x[train], y[train])
        proba[np.ix_(test, model.classes_)] = model.predict_proba(x[test])
    print(f"{len(y)} statements, {len(classes)} classes")
    report(y, proba, classes)
    model = LogisticRegression(C=args.c, class_weight="balanced", max_iter=5000).fit(x, y)
    if not args.dry_run:
        np.savez(WEIGHTS, classes=np.array([classes[k] for k in model.classes_]),
                 coef=model.coef_.astype(np.float32),
                 intercept=model.intercept_.astype(np.float32))
        print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
