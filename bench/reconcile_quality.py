"""Precision and recall of the offline reconciler on our labelled fact pairs.

Each pair of a labelled file (duplicates, contradictions, and unrelated facts about the same
person; ``data/README.md`` describes both files) is reconciled as a pool of two facts by the
extractive reasoner with the local all-MiniLM-L6-v2 embeddings. A pair is predicted
``duplicate`` when the two facts land in one duplicate group, ``contradiction`` when they are
reported as a contradicting pair, else ``unrelated``. Precision and recall are computed per
class, and "disagreeing pairs merged" counts contradictions predicted ``duplicate`` (a merge
that loses one of two facts that disagree; it must be 0); unrelated pairs merged are counted
beside it (they lower duplicate precision).

``--store DB`` reconciles each user's current facts of a SQLite store whole (e.g. the
offline facts of LoCoMo conversations, ``agent-memory eval locomo-memory --store DB``) and
prints the share of facts retired: unlabelled, a check that real pools are not over-retired.

``--pools`` also reconciles each written pool (``data/reconcile_pools.jsonl``: every fact
stored about one person, every pair labelled; ``data/reconcile_pools_check.jsonl``: the
``check`` pools, never trained or tuned on) whole, as a user's facts are reconciled, and
counts the facts wrongly retired: the figure that pairs alone hide, since most pairs of a real
pool share a topic and hold together.

Pairs are read with :mod:`agent_memory.eval.reconcile_pairs`: every pair gets a split by
person (``train``, ``tune``, ``heldout``, ``check`` for the check set's persons, ``locomo`` for
the LoCoMo-referenced pairs, whose text is rebuilt from ``../shared/datasets`` and omitted when
it is absent). ``--pairs written`` scores every written set together. Fit and tune on
``train`` / ``tune``, judge on ``heldout``. The bars on the held-out split: contradiction
precision >= 0.9 and recall >= 0.6, duplicate precision >= 0.9 and recall >= 0.7 (0.6 in
issue 20), no disagreeing pair merged.

Usage::

    python bench/reconcile_quality.py [--pairs PATH|written] [--split SPLIT|all]
                                      [--errors] [--pools] [--store DB]
    python bench/reconcile_quality.py --pairs written --split heldout \
        --reasoner compatible:qwen15 --reasoner-base-url http://127.0.0.1:8765/v1 --limit 30

With ``--reasoner`` an LLM reconciles each pair once (one prompt per pair); its decision is
scored alone and after verification by the learned offline decision
(:mod:`agent_memory.reasoners.reconcile_verify`), on ``--limit`` pairs taken in turn from each
label (sorted by id). "Facts wrongly retired" counts pairs labelled duplicate or unrelated that
a decision calls a contradiction: each would retire a good fact. ``--llm-answers FILE`` keeps
the LLM's decisions (JSON lines by pair id): pairs already answered there are not asked again,
so the verified combination can be re-scored after the offline decision changes.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

from agent_memory.embedders.local import LocalEmbedder
from agent_memory.eval.reconcile_pairs import SPLITS, load_pairs, written_pairs
from agent_memory.eval.reconcile_pools import fact_ids, load_pools, pool_pairs
from agent_memory.models import Fact
from agent_memory.reasoners.extractive.attributes import AttributeIndex
from agent_memory.reasoners.extractive.lexical import Lexicon, open_lexicon
from agent_memory.reasoners.extractive.reconcile import reconcile_facts

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "data" / "reconcile_pairs.jsonl"
PAIRS_V2 = ROOT / "data" / "reconcile_pairs_v2.jsonl"
LABELS = ("duplicate", "contradiction", "unrelated")
BARS = {("contradiction", "precision"): 0.9, ("contradiction", "recall"): 0.6,
        ("duplicate", "precision"): 0.9, ("duplicate", "recall"): 0.6}


def load(path: Path | str) -> list[dict]:
    """The labelled pairs of ``path`` (or of every written set for ``"written"``) as dicts
    (:class:`~agent_memory.eval.reconcile_pairs.LabelledPair` fields, with ``split``)."""
    pairs = written_pairs() if str(path) == "written" else load_pairs(path)
    return [p.model_dump(mode="json") for p in pairs]


def fact(fid: str, side: dict) -> Fact:
    """A fact record built from one side of a pair."""
    return Fact(id=fid, user_id="bench", content=side["text"], subject=side.get("subject"),
                confidence=side.get("confidence", 0.8),
                created_at=datetime.fromisoformat(side["created_at"]))


def predict(pairs: list[dict], lexicon: Lexicon | None) -> list[str]:
    """The predicted label of every pair."""
    embedder = LocalEmbedder()
    texts = [p[s]["text"] for p in pairs for s in ("a", "b")]
    vectors = embedder.embed_sync(texts)
    index = AttributeIndex(embedder.embed_sync)
    out = []
    for k, pair in enumerate(pairs):
        facts = [fact("a", pair["a"]), fact("b", pair["b"])]
        decision = reconcile_facts(facts, vectors[2 * k: 2 * k + 2], attributes=index,
                                   lexicon=lexicon)
        if decision.contradictions:
            out.append("contradiction")
        elif any({"a", "b"} <= set(g.fact_ids) for g in decision.duplicates):
            out.append("duplicate")
        else:
            out.append("unrelated")
    return out


def report(pairs: list[dict], predicted: list[str], show_errors: bool) -> dict[str, dict]:
    """Print the per-class table (and the errors); return the figures.

    Returns:
        ``{"duplicate": {...}, "contradiction": {...}, "merged_disagreeing": int}`` where each
        class maps ``precision``, ``recall``, ``tp``, ``fp``, ``fn``.
    """
    counts = Counter((p["label"], q) for p, q in zip(pairs, predicted, strict=True))
    figures: dict = {}
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
    figures["merged_disagreeing"] = counts[("contradiction", "duplicate")]
    print(f"disagreeing pairs merged: {figures['merged_disagreeing']} "
          f"of {sum(1 for p in pairs if p['label'] == 'contradiction')} contradictions "
          f"(unrelated pairs merged: {counts[('unrelated', 'duplicate')]} of "
          f"{sum(1 for p in pairs if p['label'] == 'unrelated')})")
    sources = Counter(p.get("source", "").split(":")[0] for p in pairs)
    if len(sources) > 1:
        for source in sorted(sources):
            hits = sum(1 for p, q in zip(pairs, predicted, strict=True)
                       if p["source"].split(":")[0] == source and p["label"] == q)
            print(f"  source {source}: {hits}/{sources[source]} pairs labelled right")
    if show_errors:
        for pair, guess in zip(pairs, predicted, strict=True):
            if guess != pair["label"]:
                print(f"  {pair['id']} {pair['label']:>13} -> {guess:<13} "
                      f"{pair['a']['text']!r} / {pair['b']['text']!r}")
    return figures


def bars_met(figures: dict) -> list[str]:
    """The bars of the held-out half that ``figures`` misses (empty when all are met)."""
    missed = [f"{label} {measure} {figures[label][measure]:.3f} < {bar}"
              for (label, measure), bar in BARS.items() if figures[label][measure] < bar]
    if figures["merged_disagreeing"]:
        missed.append(f"{figures['merged_disagreeing']} disagreeing pairs merged")
    return missed


def take(pairs: list[dict], limit: int | None) -> list[dict]:
    """``limit`` pairs taken in turn from each label (ids sorted), or all of them."""
    if limit is None:
        return pairs
    by_label = {label: sorted((p for p in pairs if p["label"] == label), key=lambda p: p["id"])
                for label in LABELS}
    out: list[dict] = []
    while len(out) < min(limit, len(pairs)):
        for label in LABELS:
            if by_label[label] and len(out) < limit:
                out.append(by_label[label].pop(0))
    return out


def label_of(decision) -> str:
    """The label a decision gives a pool of the two facts ``a`` and ``b``."""
    if decision.contradictions:
        return "contradiction"
    if any({"a", "b"} <= set(g.fact_ids) for g in decision.duplicates):
        return "duplicate"
    return "unrelated"


def predict_llm(pairs: list[dict], spec: str, base_url: str | None,
                answers: Path | None = None, **options: object
                ) -> tuple[list[str], list[str], int]:
    """``(alone, verified, failures)``: the LLM's label of every pair, the label after
    verification, and how many answers failed (malformed or endpoint errors: ``unrelated``).
    With ``answers`` (JSON lines of ``{"id", "decision"}``) the decisions found there are
    reused and new ones appended."""
    import asyncio
    import json

    from agent_memory.errors import AgentMemoryError
    from agent_memory.reasoners import get_reasoner, openai_reconcile
    from agent_memory.reasoners.reconcile_models import ReconcileDecision
    from agent_memory.reasoners.reconcile_verify import DEFAULT_VERIFIER

    reasoner = get_reasoner(spec, **({"base_url": base_url} if base_url else {}), **options)
    known: dict[str, ReconcileDecision] = {}
    if answers is not None and answers.exists():
        for line in answers.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                known[row["id"]] = ReconcileDecision.model_validate(row["decision"])

    async def ask(pair: dict, facts: list[Fact]) -> ReconcileDecision:
        if pair["id"] in known:
            return known[pair["id"]]
        decision = await openai_reconcile.reconcile(reasoner.structured, facts, verifier=None)
        if answers is not None:
            with answers.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"id": pair["id"],
                                      "decision": decision.model_dump(mode="json")}) + "\n")
        return decision

    async def run() -> tuple[list[str], list[str], int]:
        alone, verified, failures = [], [], 0
        for k, pair in enumerate(pairs):
            facts = [fact("a", pair["a"]), fact("b", pair["b"])]
            try:
                decision = await ask(pair, facts)
            except AgentMemoryError as exc:
                print(f"  {pair['id']}: {type(exc).__name__}: {str(exc)[:100]}")
                failures += 1
                alone.append("unrelated")
                verified.append("unrelated")
                continue
            checked = await DEFAULT_VERIFIER.acheck(decision, facts)
            alone.append(label_of(decision))
            verified.append(label_of(checked))
            print(f"  {k + 1}/{len(pairs)} {pair['id']} {pair['label']:>13}: LLM "
                  f"{alone[-1]:<13} verified {verified[-1]}", flush=True)
        return alone, verified, failures

    return asyncio.run(run())


def score_pools(split: str, lexicon: Lexicon | None, show_errors: bool) -> None:
    """Reconcile each written pool of ``split`` whole (every pair of its facts at once, as a
    user's pool is reconciled) and print the pair figures and the facts wrongly retired."""
    pools = load_pools(split=split)
    if not pools:
        print("no written pools for this split")
        return
    embedder = LocalEmbedder()
    index = AttributeIndex(embedder.embed_sync)
    rows: list[dict] = []
    guesses: list[str] = []
    wrong = total = missed = 0
    for pool in pools:
        facts = [Fact(id=f.id, user_id="bench", content=f.text, subject=pool.person,
                      created_at=f.created_at) for f in pool.facts]
        decision = reconcile_facts(facts, embedder.embed_sync([f.content for f in facts]),
                                   attributes=index, lexicon=lexicon)
        found = {frozenset((c.first_id, c.second_id)) for c in decision.contradictions}
        retired = {c.first_id for c in decision.contradictions}
        for pair in pool_pairs(pool):
            a, b = fact_ids(pair.id)
            rows.append(pair.model_dump(mode="json"))
            guesses.append("contradiction" if frozenset((a, b)) in found else
                           "duplicate" if any({a, b} <= set(g.fact_ids)
                                              for g in decision.duplicates) else "unrelated")
        wrong += len(retired - pool.retired())
        missed += len(pool.retired() - retired)
        total += len(facts)
    print(f"\n== pools: {split} ({len(pools)} pools, {total} facts, each reconciled whole) ==")
    report(rows, guesses, show_errors)
    print(f"facts wrongly retired: {wrong} of {total} ({wrong / total:.1%}); facts that should "
          f"be retired and were not: {missed} of {sum(len(p.retired()) for p in pools)}")


def score_store(store: Path, lexicon: Lexicon | None) -> None:
    """Reconcile each user's current facts in a SQLite store whole (unlabelled: e.g. the
    store ``agent-memory eval locomo-memory --store`` wrote) and print the share of facts a
    contradiction would retire (a careful annotator retires few facts of a real
    conversation: people change some things, and mostly add) and the seconds the decision
    took per pool (embedding excluded)."""
    import asyncio

    from agent_memory.client import AsyncMemory
    from agent_memory.config import Settings

    async def read() -> dict[str, list[Fact]]:
        async with AsyncMemory.open(Settings.load(store=str(store))) as memory:
            users = await memory.store.users()
            return {u: [r for r in await memory.get_memories(u, kinds=["fact"])
                        if isinstance(r, Fact)] for u in users}

    embedder = LocalEmbedder()
    index = AttributeIndex(embedder.embed_sync)
    print(f"\n== real pools: {store} (each user's current facts reconciled whole) ==")
    retired_all = facts_all = 0
    for user, facts in asyncio.run(read()).items():
        if len(facts) < 2:
            continue
        vectors = embedder.embed_sync([f.content for f in facts])
        start = time.perf_counter()
        decision = reconcile_facts(facts, vectors, attributes=index, lexicon=lexicon)
        seconds = time.perf_counter() - start
        retired = {c.first_id for c in decision.contradictions}
        merged = sum(len(g.fact_ids) - 1 for g in decision.duplicates)
        retired_all += len(retired)
        facts_all += len(facts)
        print(f"{user:<14} facts {len(facts):>4}  contradictions {len(decision.contradictions):>4}"
              f"  retired {len(retired):>4} ({len(retired) / len(facts):.1%})  merged {merged}"
              f"  {seconds:.1f} s")
    if facts_all:
        print(f"all            facts {facts_all:>4}  retired {retired_all} "
              f"({retired_all / facts_all:.1%})")


def wrongly_retired(pairs: list[dict], predicted: list[str]) -> int:
    """Pairs labelled duplicate or unrelated called a contradiction (a good fact retired)."""
    return sum(1 for p, q in zip(pairs, predicted, strict=True)
               if q == "contradiction" and p["label"] != "contradiction")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS,
                        help=f"labelled pairs (JSON lines), e.g. {PAIRS_V2}; 'written' for every "
                             "written set")
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="all",
                        help="which split to score (by person; see "
                             "agent_memory.eval.reconcile_pairs); 'all' reports each split "
                             "present and the whole")
    parser.add_argument("--errors", action="store_true", help="list the misclassified pairs")
    parser.add_argument("--store", type=Path, default=None,
                        help="also reconcile each user's current facts of this SQLite store "
                             "whole and print the share retired (unlabelled real pools)")
    parser.add_argument("--pools", action="store_true",
                        help="also reconcile each written pool of the split whole "
                             "(data/reconcile_pools.jsonl) and count facts wrongly retired")
    parser.add_argument("--wordnet", default=None,
                        help="WordNet database folder (default: AGENT_MEMORY_WORDNET, then the "
                             "usual places); 'none' decides without lexical relations")
    parser.add_argument("--reasoner", default=None,
                        help="score an LLM reconciler too, e.g. compatible:qwen15")
    parser.add_argument("--reasoner-base-url", default=None, help="its OpenAI-compatible URL")
    parser.add_argument("--limit", type=int, default=None,
                        help="score this many pairs (taken in turn from each label)")
    parser.add_argument("--reasoner-timeout", type=float, default=600.0,
                        help="seconds to wait for one LLM answer (a slow local model needs "
                             "minutes)")
    parser.add_argument("--reasoner-response-format", default="auto",
                        choices=("auto", "json_schema", "json_object"),
                        help="how structured output is asked for (json_object for llama.cpp)")
    parser.add_argument("--llm-answers", type=Path, default=None,
                        help="JSON lines file keeping the LLM's decisions by pair id (reused "
                             "when present, appended to)")
    args = parser.parse_args()
    lexicon = None if args.wordnet == "none" else open_lexicon(args.wordnet)
    pairs = load(args.pairs)
    if args.split != "all":
        pairs = [p for p in pairs if p["split"] == args.split]
    pairs = take(pairs, args.limit)
    predicted = predict(pairs, lexicon)
    if args.reasoner:
        alone, verified, failures = predict_llm(
            pairs, args.reasoner, args.reasoner_base_url, args.llm_answers,
            timeout=args.reasoner_timeout, response_format=args.reasoner_response_format)
        for name, guesses in (("offline (learned)", predicted), (f"LLM {args.reasoner}", alone),
                              (f"LLM {args.reasoner}, verified", verified)):
            print(f"\n== {name} ==")
            report(pairs, guesses, args.errors)
            print(f"facts wrongly retired (duplicate or unrelated called contradiction): "
                  f"{wrongly_retired(pairs, guesses)} of "
                  f"{sum(1 for p in pairs if p['label'] != 'contradiction')}")
        print(f"\nLLM answers failed: {failures} of {len(pairs)}; verification vetoed "
              f"{sum(1 for a, b in zip(alone, verified, strict=True) if a != b)} "
              "contradictions")
        return
    groups = [(args.split, pairs, predicted)]
    present = [split for split in SPLITS if any(p["split"] == split for p in pairs)]
    if args.split == "all" and len(present) > 1:
        groups = [(split, [p for p in pairs if p["split"] == split],
                   [q for p, q in zip(pairs, predicted, strict=True) if p["split"] == split])
                  for split in present] + groups
    shown = args.pairs.relative_to(ROOT) if args.pairs.is_relative_to(ROOT) else args.pairs
    print(f"pairs: {shown}  wordnet: {lexicon.wordnet.folder if lexicon else 'none'}")
    for split, subset, guesses in groups:
        print(f"\n== split: {split} ==")
        figures = report(subset, guesses, args.errors)
        missed = bars_met(figures)
        print("bars (contradiction P>=0.9 R>=0.6, duplicate P>=0.9 R>=0.6, none merged): "
              + ("met" if not missed else "NOT met: " + "; ".join(missed)))
    if args.pools:
        for split in (("train", "tune", "heldout", "check") if args.split == "all"
                      else (args.split,)):
            score_pools(split, lexicon, args.errors)
    if args.store:
        score_store(args.store, lexicon)


if __name__ == "__main__":
    main()
