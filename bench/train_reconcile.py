"""Train the offline reconciler's pair decision and print its held-out figures.

Reads the labelled pairs we wrote (``data/README.md``; never the LoCoMo-derived pairs nor the
check set ``reconcile_pairs_v3.jsonl``), splits them by person (every pair of one person in one
split), computes :data:`~agent_memory.reasoners.extractive.reconcile.FEATURES` with the local
embedder and WordNet, and fits on ``train`` (plus the reversed copies of its duplicates and
unrelated pairs) gradient-boosted trees of a few shapes (scikit-learn's
``GradientBoostingClassifier``, fixed seed: deterministic). For each candidate the two
class thresholds are chosen on ``tune``: the pair of thresholds with the highest summed
recall whose duplicate and contradiction precision reach :data:`TARGET`;
the candidate recalling most on ``tune`` is kept. Writes
``reasoners/extractive/reconcile_model.json`` (numpy reads it at run time; scikit-learn is
needed only here) and prints the held-out figures.

Usage::

    python bench/train_reconcile.py [--wordnet DIR|none] [--dry-run] [--cache FILE.npz]
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import log_loss

from agent_memory.embedders.local import LocalEmbedder
from agent_memory.eval import reconcile_pairs
from agent_memory.models import Fact
from agent_memory.reasoners.extractive.attributes import AttributeIndex
from agent_memory.reasoners.extractive.lexical import open_lexicon
from agent_memory.reasoners.extractive.reconcile import (
    FEATURES,
    LABELS,
    MODEL_PATH,
    PairModel,
    claim_of,
    pair_matrix,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
TARGET = {"duplicate": 0.97, "contradiction": 0.9}
"""Least precision per class on ``tune``: a merge keeps one text, so duplicates are held to
more than the 0.9 bar (0.97: the 1.0 of earlier rounds let a single tuning pair, a belief
verb against its opposite, push the threshold to where few duplicates merge)."""
GRID = [round(t, 3) for t in np.arange(0.30, 0.995, 0.01)]
SHAPES = ((2, 100), (3, 100), (2, 200))
"""Candidate (tree depth, stages). Deeper or longer fits (depth 4 x 100, depth 2 x 400)
recalled a little more on tune but retired the demo's "has saved $28,000 so far" by "needs
$60,000 for the deposit" again (a later state of another quantity): left out."""


def boosted(depth: int, stages: int) -> GradientBoostingClassifier:
    """The estimator (learning rate 0.1, 80 % row subsampling, seed 0)."""
    return GradientBoostingClassifier(n_estimators=stages, max_depth=depth, learning_rate=0.1,
                                      subsample=0.8, random_state=0)


EXTRA = (DATA / "reconcile_pairs_rules.jsonl", DATA / "reconcile_pairs_attributes.jsonl",
         DATA / "reconcile_pairs_events.jsonl")
"""Written for training only (their people are all in ``train`` or ``tune``): the single-pair
cases of the reconciler's former rules, and single-valued attributes changed, restated or
beside another attribute, and completed events against later states of another quantity
and paraphrases that need world knowledge ("teetotal" / "never drinks alcohol")."""


def written_pairs() -> list[dict]:
    """Every written pair outside the check set, with its split by person
    (:mod:`agent_memory.eval.reconcile_pairs`)."""
    pairs = reconcile_pairs.written_pairs()
    for path in EXTRA:
        pairs += reconcile_pairs.load_pairs(path)
    return [p.model_dump(mode="json") for p in pairs if p.written and p.split != "check"]


def fact(fid: str, side: dict) -> Fact:
    """A fact record built from one side of a pair."""
    return Fact(id=fid, user_id="bench", content=side["text"], subject=side.get("subject"),
                confidence=side.get("confidence", 0.8),
                created_at=datetime.fromisoformat(side["created_at"]))


def reversed_pair(pair: dict) -> dict:
    """The pair with its texts in the other order (each side keeps its time)."""
    a, b = pair["a"], pair["b"]
    return {**pair, "a": {**b, "created_at": a["created_at"]},
            "b": {**a, "created_at": b["created_at"]}}


def features(pairs: list[dict], embedder: LocalEmbedder, index: AttributeIndex,
             lexicon) -> np.ndarray:
    """Feature rows ``(len(pairs), F)``."""
    vectors = embedder.embed_sync([p[s]["text"] for p in pairs for s in ("a", "b")])
    rows = [pair_matrix([fact("a", p["a"]), fact("b", p["b"])], vectors[2 * k: 2 * k + 2],
                        [(0, 1)], attributes=index, lexicon=lexicon)[0]
            for k, p in enumerate(pairs)]
    return np.asarray(rows)


def figures(y: list[str], guess: list[str]) -> dict:
    """Precision, recall and disagreeing merges of the two classes."""
    out: dict = {}
    for label in ("duplicate", "contradiction"):
        tp = sum(1 for a, b in zip(y, guess, strict=True) if a == b == label)
        fp = sum(1 for a, b in zip(y, guess, strict=True) if b == label != a)
        fn = sum(1 for a, b in zip(y, guess, strict=True) if a == label != b)
        out[label] = (tp / (tp + fp) if tp + fp else 1.0, tp / (tp + fn) if tp + fn else 1.0)
    out["merged"] = sum(1 for a, b in zip(y, guess, strict=True)
                        if b == "duplicate" and a != "duplicate")
    return out


def params(model: GradientBoostingClassifier, thresholds: dict[str, float]) -> dict:
    """The JSON object :class:`PairModel` reads, classes in :data:`LABELS` order."""
    order = [list(model.classes_).index(label) for label in LABELS]
    head = {"features": list(FEATURES), "labels": list(LABELS), "thresholds": thresholds}
    init = model._raw_predict_init(np.zeros((1, len(FEATURES))))[0]

    def tree(estimator) -> dict:
        t = estimator.tree_
        return {"feature": t.feature.tolist(), "threshold": t.threshold.tolist(),
                "left": t.children_left.tolist(), "right": t.children_right.tolist(),
                "value": t.value[:, 0, 0].round(6).tolist()}

    return {"kind": "trees", **head, "init": init[order].round(6).tolist(),
            "learning_rate": model.learning_rate,
            "trees": [[tree(stage[c]) for c in order] for stage in model.estimators_]}


def choose_thresholds(probs: np.ndarray, y: list[str], x: np.ndarray) -> dict[str, float]:
    """The thresholds of :data:`GRID` meeting :data:`TARGET` on ``tune`` with most recall."""
    best, chosen = -1.0, {"duplicate": 0.95, "contradiction": 0.95}
    for td in GRID:
        for tc in GRID:
            model = PairModel.__new__(PairModel)
            model.thresholds = {"duplicate": td, "contradiction": tc}
            f = figures(y, [model.decide(p, row) for p, row in zip(probs, x, strict=True)])
            ok = (f["duplicate"][0] >= TARGET["duplicate"]
                  and f["contradiction"][0] >= TARGET["contradiction"])
            score = f["duplicate"][1] + f["contradiction"][1] - 1e-3 * (td + tc)
            if ok and score > best:
                best, chosen = score, {"duplicate": float(td), "contradiction": float(tc)}
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wordnet", default=None, help="WordNet folder, or 'none'")
    parser.add_argument("--dry-run", action="store_true", help="do not write the model")
    parser.add_argument("--cache", type=Path, default=None,
                        help="an .npz of the computed features, reused when it exists")
    args = parser.parse_args()
    lexicon = None if args.wordnet == "none" else open_lexicon(args.wordnet)
    pairs = written_pairs()
    embedder = LocalEmbedder()
    index = AttributeIndex(embedder.embed_sync)
    if args.cache and args.cache.exists():
        x = np.load(args.cache)["x"]
    else:
        x = features(pairs, embedder, index, lexicon)
    part = {s: [k for k, p in enumerate(pairs) if p["split"] == s]
            for s in ("train", "tune", "heldout")}
    y = np.array([p["label"] for p in pairs])
    for s, idx in part.items():
        counts = {label: int((y[idx] == label).sum()) for label in LABELS}
        print(f"{s}: {len(idx)} pairs {counts}")
    # pairs about two subjects ("Wen" / "Wen's brother") are never compared (unrelated)
    same = np.array([claim_of(fact("a", p["a"])).subject == claim_of(fact("b", p["b"])).subject
                     for p in pairs])
    print(f"pairs about two subjects (never compared): {int((~same).sum())}")
    train, tune = ([k for k in part[s] if same[k]] for s in ("train", "tune"))
    # duplicates and unrelated pairs hold in either order: their reversed copies train too
    swapped = [k for k in train if pairs[k]["label"] != "contradiction"]
    if args.cache and args.cache.exists():
        x_rev = np.load(args.cache)["x_rev"]
    else:
        x_rev = features([reversed_pair(pairs[k]) for k in swapped], embedder, index, lexicon)
        if args.cache:
            np.savez(args.cache, x=x, x_rev=x_rev)
    x_fit = np.vstack([x[train], x_rev])
    y_fit = np.concatenate([y[train], y[swapped]])
    candidates = {}  # name -> (params with thresholds, tune recall sum)
    for depth, stages in SHAPES:
        name = f"trees depth={depth} stages={stages}"
        fit = boosted(depth, stages).fit(x_fit, y_fit)
        draft = PairModel(params(fit, {"duplicate": 1.0, "contradiction": 1.0}))
        order = [list(fit.classes_).index(label) for label in LABELS]
        ours = draft.probabilities(x)
        assert np.allclose(ours, fit.predict_proba(x)[:, order], atol=1e-4), \
            "numpy must read the model as sklearn"
        ours[~same] = (0.0, 0.0, 1.0)
        thresholds = choose_thresholds(ours[part["tune"]], list(y[part["tune"]]), x[part["tune"]])
        chosen = PairModel(params(fit, thresholds))
        f = figures(list(y[part["tune"]]), [chosen.decide(p, row) for p, row in
                                            zip(ours[part["tune"]], x[part["tune"]], strict=True)])
        recall = f["duplicate"][1] + f["contradiction"][1]
        loss = log_loss(y[tune], fit.predict_proba(x[tune]), labels=list(fit.classes_))
        print(f"{name:<28} tune log loss {loss:.3f}  thresholds {thresholds}  "
              f"tune recall D {f['duplicate'][1]:.3f} C {f['contradiction'][1]:.3f}")
        candidates[name] = (params(fit, thresholds), recall)
    best = max(candidates, key=lambda k: candidates[k][1])
    chosen_params = candidates[best][0]
    model = PairModel(chosen_params)
    thresholds = model.thresholds
    print(f"chosen on tune recall: {best}")
    print(f"thresholds (chosen on tune for precision >= {TARGET}): {thresholds}")
    probs = model.probabilities(x)
    probs[~same] = (0.0, 0.0, 1.0)
    for name in ("train", "tune", "heldout"):
        idx = part[name]
        f = figures(list(y[idx]), [model.decide(p, row) for p, row in
                                   zip(probs[idx], x[idx], strict=True)])
        onehot = np.array([[label == t for label in LABELS] for t in y[idx]], dtype=float)
        brier = float(((probs[idx] - onehot) ** 2).sum(axis=1).mean()) if len(idx) else 0.0
        print(f"{name:<8} duplicate P {f['duplicate'][0]:.3f} R {f['duplicate'][1]:.3f}  "
              f"contradiction P {f['contradiction'][0]:.3f} R {f['contradiction'][1]:.3f}  "
              f"disagreeing merged {f['merged']}  Brier {brier:.3f}")
    if not args.dry_run:
        MODEL_PATH.write_text(json.dumps(chosen_params, separators=(",", ":")) + "\n")
        print(f"wrote {MODEL_PATH.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
