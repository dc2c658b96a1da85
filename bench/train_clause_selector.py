"""Train the offline reasoner's clause selector (which clauses are worth a fact).

Two kinds of labelled data, all written for this project (``data/README.md``):

- ``data/fact_clauses.jsonl`` and ``data/fact_clauses_more.jsonl``: single clauses, each
  ``text`` with ``label`` 1 = worth a fact, 0 = chatter, reaction, caption, vague; every item
  is turned into its clauses with the same parse the reasoner uses
  (:mod:`agent_memory.reasoners.extractive.parse`);
- ``data/fact_chats.jsonl`` with ``data/fact_chat_labels.jsonl`` (read by
  :mod:`agent_memory.eval.fact_chats`): 64 chats between two friends, read by the reasoner
  itself (:func:`...facts.candidate_clauses`, the clauses it weighs, as it reads them: dates
  resolved, "it" resolved when clear), each clause labelled by turn id and text; a clause
  the reader now gives that has no label (the parse changed since the labelling) is left out
  and counted.

It computes the reasoner's features (:func:`...select.features`: local embedding + parse
features) and fits a logistic regression (scikit-learn, ``class_weight="balanced"``) on both.
It reports accuracy, precision, recall and ROC AUC on held-out folds (5 folds split by item
and by chat, so the clauses of one item or one chat never sit on both sides), overall and on
the chats' clauses alone, and the same for a fit on the single clauses only, scored on every
chat (what the selector was before the chats); then fits on everything and writes
``clause_selector.npz`` beside the module (numpy arrays ``coef``, ``intercept``; numpy alone
reads them at run time).

    PYTHONPATH=src python bench/train_clause_selector.py [--c 1.0] [--dry-run]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold

from agent_memory.eval import fact_chats
from agent_memory.reasoners.extractive.parse import clauses, parse
from agent_memory.reasoners.extractive.select import WEIGHTS, features

ROOT = Path(__file__).resolve().parents[1] / "data"
DATA = tuple(ROOT / name for name in ("fact_clauses.jsonl", "fact_clauses_more.jsonl"))


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load(paths: Sequence[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Feature rows, labels and item index of every clause of every item of ``paths``."""
    items = [item for path in paths for item in _lines(path)]
    parsed = clauses(parse([item["text"] for item in items]))
    rows, labels, owners = [], [], []
    for index, (item, found) in enumerate(zip(items, parsed, strict=True)):
        for clause in found:
            rows.append(clause)
            labels.append(int(item["label"]))
            owners.append(index)
    return features(rows), np.array(labels), np.array(owners)


def load_chats() -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Feature rows, labels and chat index of every labelled clause of the chats
    (:mod:`agent_memory.eval.fact_chats`), and the number of clauses the reader gives that
    have no label."""
    rows, found, owners, missing = [], [], [], 0
    chats = fact_chats.load_chats()
    chat_index = {chat.id: n for n, chat in enumerate(chats)}
    for turn_id, clause, label in fact_chats.labelled_clauses(chats):
        if label is None:
            missing += 1
            continue
        rows.append(clause)
        found.append(label)
        owners.append(chat_index[turn_id.rsplit(":", 1)[0]])
    return features(rows), np.array(found), np.array(owners), missing


def _report(name: str, y: np.ndarray, score: np.ndarray) -> None:
    predicted = (score >= 0.5).astype(int)
    tp = int(((predicted == 1) & (y == 1)).sum())
    print(f"{name}: accuracy {float((predicted == y).mean()):.3f}, precision "
          f"{tp / max(1, int(predicted.sum())):.3f}, recall {tp / max(1, int(y.sum())):.3f}, "
          f"ROC AUC {roc_auc_score(y, score):.3f}")


def _folds(x: np.ndarray, y: np.ndarray, groups: np.ndarray, c: float) -> np.ndarray:
    score = np.zeros(len(y))
    for train, test in GroupKFold(5).split(x, y, groups):
        model = LogisticRegression(C=c, class_weight="balanced", max_iter=3000)
        score[test] = model.fit(x[train], y[train]).predict_proba(x[test])[:, 1]
    return score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c", type=float, default=1.0, help="inverse regularisation strength")
    parser.add_argument("--dry-run", action="store_true", help="report, do not write weights")
    args = parser.parse_args()
    x_items, y_items, items = load(DATA)
    x_chats, y_chats, chats, missing = load_chats()
    print(f"{len(np.unique(items))} items ({len(y_items)} clauses, {int(y_items.sum())} worth "
          f"a fact); {len(np.unique(chats))} chats ({len(y_chats)} labelled clauses, "
          f"{int(y_chats.sum())} worth a fact, {missing} unlabelled left out)")
    alone = LogisticRegression(C=args.c, class_weight="balanced", max_iter=3000)
    alone.fit(x_items, y_items)
    _report("single clauses only, held-out folds", y_items,
            _folds(x_items, y_items, items, args.c))
    _report("single clauses only, on the chats", y_chats, alone.predict_proba(x_chats)[:, 1])
    x, y = np.vstack([x_items, x_chats]), np.concatenate([y_items, y_chats])
    groups = np.concatenate([items, chats + items.max() + 1])
    score = _folds(x, y, groups, args.c)
    _report("both, held-out folds", y, score)
    _report("both, held-out folds, the chats' clauses", y_chats, score[len(y_items):])
    model = LogisticRegression(C=args.c, class_weight="balanced", max_iter=3000).fit(x, y)
    if not args.dry_run:
        np.savez(WEIGHTS, coef=model.coef_[0].astype(np.float32),
                 intercept=model.intercept_.astype(np.float32))
        print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
