"""Train the offline reconciler's pair decision and print its held-out figures.

Reads the labelled pairs we wrote (``data/README.md``; never the LoCoMo-derived pairs nor the
check set ``reconcile_pairs_v3.jsonl``) and the labelled pools (``data/reconcile_pools.jsonl``:
every fact stored about one person, every pair labelled), splits both by person (every pair and
pool of one person in one split), computes
:data:`~agent_memory.reasoners.extractive.reconcile.FEATURES` with the local embedder and
WordNet (a pool is read whole, as the reconciler reads a user's facts), and fits on ``train``
(the pairs, the reversed copies of their duplicates and unrelated pairs, and every pair of the
training pools, whose duplicates and contradictions weigh :data:`POOL_WEIGHT`) gradient-boosted
trees of a few shapes (scikit-learn's ``GradientBoostingClassifier``, fixed seed:
deterministic). For each candidate the two class thresholds are chosen on ``tune``: the most
recall (duplicates and contradictions of the pairs, retired facts of the pools) whose pair
precision reaches :data:`TARGET`, merging at most :data:`MERGED` of the tuning contradictions
and wrongly retiring at most :data:`WRONG_RETIRED` of the tuning pools' facts; the candidate
with the least log loss on the ``tune`` pairs is kept (a proper score of the probabilities,
not a recall at thresholds fit on the same split). Writes ``reasoners/extractive/reconcile_model.json`` (numpy
reads it at run time; scikit-learn is needed only here) and prints the figures per split, for
the pairs and for the pools.

Usage::

    python bench/train_reconcile.py [--wordnet DIR|none] [--dry-run] [--cache FILE.npz]
                                    [--pool-weight W]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import log_loss

from agent_memory.embedders.local import LocalEmbedder
from agent_memory.eval import reconcile_pairs
from agent_memory.eval.reconcile_pools import fact_ids, load_pools, pool_pairs
from agent_memory.models import Fact
from agent_memory.reasoners.extractive.attributes import AttributeIndex
from agent_memory.reasoners.extractive.lexical import open_lexicon
from agent_memory.reasoners.extractive.reconcile import (
    FEATURES,
    LABELS,
    MODEL_PATH,
    PairModel,
    claim_of,
    decide_rows,
    pair_matrix,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
TARGET = {"duplicate": 0.93, "contradiction": 0.9}
"""Least precision per class on the tuning pairs (a merge keeps one text: duplicates are held
above the 0.9 bar)."""
MERGED = 0.0
"""Most contradictions of the tuning pairs merged, as a share of them: none (a merge keeps one
text and loses the other)."""
WRONG_RETIRED = 0.05
"""Most facts of the tuning pools wrongly retired, as a share of their facts."""
GRID = [round(t, 3) for t in np.arange(0.30, 0.995, 0.02)]
SHAPES = tuple((depth, stages, rate, columns)
               for depth, stages, rate in ((2, 200, 0.1), (3, 300, 0.1), (3, 600, 0.05),
                                           (4, 400, 0.05))
               for columns in (None, "sqrt"))
"""Candidate (tree depth, stages, learning rate, features per split: all, or the square root
of their number drawn at random); the one with the least tuning log loss is kept."""


def boosted(depth: int, stages: int, rate: float = 0.1,
            columns: str | None = None) -> GradientBoostingClassifier:
    """The estimator (80 % row subsampling, ``columns`` features considered per split, seed
    0): stochastic gradient boosting (Friedman, *Computational Statistics & Data Analysis*
    38(4), 2002) with the random feature subsets of random forests (Breiman, *Machine
    Learning* 45, 2001), so that no one strong feature (the sentence cosine) hides the
    others."""
    return GradientBoostingClassifier(n_estimators=stages, max_depth=depth, learning_rate=rate,
                                      subsample=0.8, max_features=columns, random_state=0)


EXTRA = (DATA / "reconcile_pairs_rules.jsonl", DATA / "reconcile_pairs_attributes.jsonl",
         DATA / "reconcile_pairs_events.jsonl", DATA / "reconcile_pairs_polarity.jsonl")
"""Written for training only (their people are all in ``train`` or ``tune``): the single-pair
cases of the reconciler's former rules, and single-valued attributes changed, restated or
beside another attribute, and completed events against later states of another quantity
and paraphrases that need world knowledge ("teetotal" / "never drinks alcohol"), and opposite
polarity about another object ("hates olives" / "loves peppers"), cumulative counts that grow and
roles that change at one workplace."""


def written_pairs() -> list[dict]:
    """Every written pair outside the check set, with its split by person
    (:mod:`agent_memory.eval.reconcile_pairs`)."""
    pairs = reconcile_pairs.written_pairs()
    for path in EXTRA:
        pairs += reconcile_pairs.load_pairs(path)
    return [p.model_dump(mode="json") for p in pairs if p.written and p.split != "check"]


POOL_WEIGHT = 2.0
"""Weight of a training pool's duplicate or contradicting pair (its unrelated pairs weigh 1,
as a written pair does)."""


def pools_by_split() -> dict[str, list]:
    """The written pools (:mod:`agent_memory.eval.reconcile_pools`) outside the check set."""
    return {s: load_pools(split=s) for s in ("train", "tune", "heldout")}


def pool_rows(pools: list, embedder: LocalEmbedder, index: AttributeIndex,
              lexicon) -> tuple[list[dict], np.ndarray]:
    """Every pair of every pool as a dict, and its features ``(n, F)``: each pool is read once
    (:func:`pair_matrix` over all its pairs), as the reconciler reads a user's pool."""
    dicts: list[dict] = []
    rows = []
    for pool in pools:
        pairs = [p.model_dump(mode="json") for p in pool_pairs(pool)]
        facts = [Fact(id=f.id, user_id="bench", content=f.text, subject=pool.person,
                      created_at=f.created_at) for f in pool.facts]
        vectors = embedder.embed_sync([f.content for f in facts])
        order = sorted(range(len(facts)), key=lambda k: facts[k].created_at)  # as pool_pairs
        index_pairs = [(i, j) for n, i in enumerate(order) for j in order[n + 1:]]
        rows.append(pair_matrix(facts, vectors, index_pairs, attributes=index, lexicon=lexicon))
        dicts += pairs
    return dicts, (np.vstack(rows) if rows else np.zeros((0, len(FEATURES))))


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
                        if b == "duplicate" and a == "contradiction")
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


def retirements(rows: list[dict], guess) -> tuple[int, int, int, int]:
    """``(wrongly retired, rightly retired, to retire, facts)`` over the pools of ``rows``
    (pool pairs): a fact is retired when a pair holding it as the older side is decided a
    contradiction."""
    def older(p: dict) -> tuple[str, str]:
        return p["person"], fact_ids(p["id"])[0]

    truth = {older(p) for p in rows if p["label"] == "contradiction"}
    retired = {older(p) for p, g in zip(rows, guess, strict=True) if g == "contradiction"}
    facts = {(p["person"], side) for p in rows for side in fact_ids(p["id"])}
    return len(retired - truth), len(retired & truth), len(truth), len(facts)


def choose_thresholds(probs: np.ndarray, y: list[str], x: np.ndarray, pool_probs: np.ndarray,
                      pool_rows: list[dict], pool_x: np.ndarray) -> dict[str, float]:
    """The thresholds of :data:`GRID` with the most recall on ``tune`` (duplicates and
    contradictions among the pairs, retired facts in the pools) that meet :data:`TARGET`
    on the tuning pairs, merge at most :data:`MERGED` of their contradictions, and retire
    at most :data:`WRONG_RETIRED` of the tuning pools' facts wrongly."""
    truth = np.asarray(y)
    best, chosen = -1.0, {"duplicate": 0.95, "contradiction": 0.95}
    for tc in GRID:
        for td in GRID:
            guess = decide_rows(probs, x, td, tc)
            f = figures(list(truth), list(guess))
            wrong, right, due, facts = retirements(pool_rows,
                                                   decide_rows(pool_probs, pool_x, td, tc))
            ok = (f["duplicate"][0] >= TARGET["duplicate"]
                  and f["contradiction"][0] >= TARGET["contradiction"]
                  and f["merged"] <= MERGED * (truth == "contradiction").sum()
                  and wrong <= WRONG_RETIRED * facts)
            score = (f["duplicate"][1] + f["contradiction"][1] + right / max(due, 1)
                     - 1e-3 * (td + tc))
            if ok and score > best:
                best, chosen = score, {"duplicate": float(td), "contradiction": float(tc)}
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wordnet", default=None, help="WordNet folder, or 'none'")
    parser.add_argument("--dry-run", action="store_true", help="do not write the model")
    parser.add_argument("--cache", type=Path, default=None,
                        help="an .npz of the computed features, reused when it exists")
    parser.add_argument("--pool-weight", type=float, default=POOL_WEIGHT,
                        help="weight of a training pool's duplicate or contradicting pair")
    args = parser.parse_args()
    lexicon = None if args.wordnet == "none" else open_lexicon(args.wordnet)
    pairs = written_pairs()
    pools = pools_by_split()
    embedder = LocalEmbedder()
    index = AttributeIndex(embedder.embed_sync)
    cached = np.load(args.cache) if args.cache and args.cache.exists() else None
    x = cached["x"] if cached is not None else features(pairs, embedder, index, lexicon)
    pooled = {}  # split -> (pair dicts, features)
    for s in ("train", "tune", "heldout"):
        dicts, xs = pool_rows(pools[s], embedder, index, lexicon) if cached is None or \
            f"xp_{s}" not in cached else ([p.model_dump(mode="json") for pool in pools[s]
                                          for p in pool_pairs(pool)], cached[f"xp_{s}"])
        pooled[s] = (dicts, xs)
    part = {s: [k for k, p in enumerate(pairs) if p["split"] == s]
            for s in ("train", "tune", "heldout")}
    y = np.array([p["label"] for p in pairs])
    for s, idx in part.items():
        counts = {label: int((y[idx] == label).sum()) for label in LABELS}
        pool_counts = Counter(p["label"] for p in pooled[s][0])
        print(f"{s}: {len(idx)} pairs {counts}; {len(pools[s])} pools, "
              f"{len(pooled[s][0])} pool pairs {dict(pool_counts)}")
    # pairs about two subjects ("Wen" / "Wen's brother") are never compared (unrelated)
    same = subjects_agree(pairs)
    print(f"pairs about two subjects (never compared): {int((~same).sum())}")
    train, tune = ([k for k in part[s] if same[k]] for s in ("train", "tune"))
    # duplicates and unrelated pairs hold in either order: their reversed copies train too
    swapped = [k for k in train if pairs[k]["label"] != "contradiction"]
    if cached is not None:
        x_rev = cached["x_rev"]
    else:
        x_rev = features([reversed_pair(pairs[k]) for k in swapped], embedder, index, lexicon)
        if args.cache:
            np.savez(args.cache, x=x, x_rev=x_rev,
                     **{f"xp_{s}": pooled[s][1] for s in pooled})
    pool_train, xp_train = pooled["train"]
    keep = subjects_agree(pool_train)
    yp_train = np.array([p["label"] for p in pool_train])[keep]
    x_fit = np.vstack([x[train], x_rev, xp_train[keep]])
    y_fit = np.concatenate([y[train], y[swapped], yp_train])
    # the pools' unrelated pairs weigh as much as a written pair, their few duplicates and
    # contradictions twice (POOL_WEIGHT): they are the rare positives of a real pool
    weight = np.concatenate([np.ones(len(train) + len(swapped)),
                             np.where(yp_train == "unrelated", 1.0, args.pool_weight)])
    # thresholds are chosen on the tuning pairs and the tuning pools' pairs together
    tune_dicts = [pairs[k] for k in part["tune"]] + pooled["tune"][0]
    x_tune = np.vstack([x[part["tune"]], pooled["tune"][1]])
    y_tune = [p["label"] for p in tune_dicts]
    same_tune = subjects_agree(tune_dicts)
    candidates = {}  # name -> (params with thresholds, tune log loss)
    for depth, stages, rate, columns in SHAPES:
        name = f"trees depth={depth} stages={stages} rate={rate} columns={columns or 'all'}"
        fit = boosted(depth, stages, rate, columns).fit(x_fit, y_fit, sample_weight=weight)
        draft = PairModel(params(fit, {"duplicate": 1.0, "contradiction": 1.0}))
        order = [list(fit.classes_).index(label) for label in LABELS]
        ours = draft.probabilities(x_tune)
        assert np.allclose(ours, fit.predict_proba(x_tune)[:, order], atol=1e-4), \
            "numpy must read the model as sklearn"
        ours[~same_tune] = (0.0, 0.0, 1.0)
        n_tune = len(part["tune"])
        thresholds = choose_thresholds(ours[:n_tune], y_tune[:n_tune], x_tune[:n_tune],
                                       ours[n_tune:], tune_dicts[n_tune:], x_tune[n_tune:])
        chosen = PairModel(params(fit, thresholds))
        f = figures(y_tune, [chosen.decide(p, row) for p, row in
                             zip(ours, x_tune, strict=True)])
        loss = log_loss(y[tune], fit.predict_proba(x[tune]), labels=list(fit.classes_))
        print(f"{name:<28} tune log loss {loss:.3f}  thresholds {thresholds}  "
              f"tune recall D {f['duplicate'][1]:.3f} C {f['contradiction'][1]:.3f}")
        candidates[name] = (params(fit, thresholds), loss)
    best = min(candidates, key=lambda k: candidates[k][1])
    chosen_params = candidates[best][0]
    model = PairModel(chosen_params)
    print(f"chosen on tune log loss: {best}")
    print(f"thresholds (chosen on tune for precision >= {TARGET}): {model.thresholds}")
    for name in ("train", "tune", "heldout"):
        for kind, rows, xs in (("pairs", [pairs[k] for k in part[name]], x[part[name]]),
                               ("pools", *pooled[name])):
            if not rows:
                continue
            probs = model.probabilities(xs)
            probs[~subjects_agree(rows)] = (0.0, 0.0, 1.0)
            truth = [p["label"] for p in rows]
            guess = list(decide_rows(probs, xs, **model.thresholds))
            f = figures(truth, guess)
            onehot = np.array([[label == t for label in LABELS] for t in truth], dtype=float)
            brier = float(((probs - onehot) ** 2).sum(axis=1).mean())
            retired = ("  wrongly retired facts {} (rightly {} of {}) of {}".format(
                *retirements(rows, guess)) if kind == "pools" else "")
            print(f"{name:<8}{kind:<6} duplicate P {f['duplicate'][0]:.3f} "
                  f"R {f['duplicate'][1]:.3f}  contradiction P {f['contradiction'][0]:.3f} "
                  f"R {f['contradiction'][1]:.3f}  contradictions merged {f['merged']}  "
                  f"Brier {brier:.3f}{retired}")
    if not args.dry_run:
        MODEL_PATH.write_text(json.dumps(chosen_params, separators=(",", ":")) + "\n")
        print(f"wrote {MODEL_PATH.relative_to(ROOT)}", file=sys.stderr)


def subjects_agree(rows: list[dict]) -> np.ndarray:
    """Whether each pair's two claims parse to one subject (others are never compared)."""
    return np.array([claim_of(fact("a", p["a"])).subject == claim_of(fact("b", p["b"])).subject
                     for p in rows], dtype=bool)


if __name__ == "__main__":
    main()
