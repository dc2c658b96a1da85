"""LoCoMo evidence recall of several retrieval configurations, from one built store.

Usage::

    python bench/recall_quality.py --store /tmp/locomo.db            # builds it when absent
    python bench/recall_quality.py --store /tmp/locomo.db --plain-turns

Loads the dev set, ingests it into ``--store`` if the store has no profile for a sample yet
(the product path: ``ingest_threads``), then scores each configuration of the product's
``retrieval.search.search`` with the eval's protocol (turn level, categories 1-4, k = 10, the
search asked for 2 x 25 hits like ``agent-memory eval locomo``) and prints recall_any@10 /
recall_all@10 overall and per category, plus the seconds each configuration took.

``--plain-turns`` first copies the store and re-indexes its turns without the previous turn
as context (the index before issue 4), to measure that change on the same derived records.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

from agent_memory import AsyncMemory, Settings, indexing
from agent_memory.datasets.locomo import load_locomo
from agent_memory.eval.locomo import evaluate_locomo
from agent_memory.indexing import build_indexed
from agent_memory.ingest import ThreadBatch, ingest_threads
from agent_memory.models import RecordKind
from agent_memory.retrieval.fusion import FACT_FOLD_WEIGHT
from agent_memory.retrieval.hits import SearchMode
from agent_memory.retrieval.search import SearchFilters, SearchRequest, search
from agent_memory.retrieval.subjects import SUBJECT_WEIGHT
from agent_memory.stores.base import RecordQuery

DEV = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "locomo" / "locomo_dev.json"

CONFIGS: dict[str, dict] = {
    "default (hybrid, rrf k=10, evidence fusion, subject prior 1, fact fold 0.4)": {},
    "fact fold 1 (a fact's whole score onto its turn)": {"fact_fold": 1.0},
    "fact fold 0 (facts rank only as hits)": {"fact_fold": 0.0},
    "no subject prior (names kept in the query)": {"subject_prior": 0.0},
    "subject prior 0.5": {"subject_prior": 0.5},
    "subject prior 2": {"subject_prior": 2.0},
    "no evidence fusion": {"evidence_fusion": False},
    "rrf k=60": {"rrf_k": 60},
    "rrf k=60, no evidence fusion (issue-2 search)": {"rrf_k": 60, "evidence_fusion": False,
                                                      "candidates": 200},
    "pool 200 per signal": {"candidates": 200},
    "pool 50 per signal": {"candidates": 50},
    "pool 30 per signal": {"candidates": 30},
    "turns and facts only": {"kinds": {RecordKind.TURN, RecordKind.FACT}},
    "turns only": {"kinds": {RecordKind.TURN}},
    "vector only": {"mode": SearchMode.VECTOR},
    "text only": {"mode": SearchMode.TEXT},
}


async def ensure_built(memory: AsyncMemory, samples) -> None:
    todo = [s for s in samples if await memory.get_profile(s.sample_id) is None]
    if todo:
        t0 = time.perf_counter()
        batches = [ThreadBatch(s.sample_id, x.thread_id, x.turns) for s in todo for x in s.sessions]
        await ingest_threads(memory, batches)
        print(f"built store in {time.perf_counter() - t0:.1f} s", file=sys.stderr)


async def reindex_turns(memory: AsyncMemory, samples, context: bool) -> None:
    """Re-put every turn, indexed alone (``context`` False) or with its previous turn."""
    for s in samples:
        query = RecordQuery(kinds=frozenset({RecordKind.TURN}))
        turns = await memory.store.list(s.sample_id, query)
        previous = None if context else {}
        await memory.store.put(await build_indexed(turns, memory.embedder, previous=previous,
                                                   store=memory.store))


async def score(memory: AsyncMemory, samples, config: dict):
    rrf_k = config.get("rrf_k", memory.settings.rrf_k)
    kinds = config.get("kinds")
    filters = SearchFilters(kinds=frozenset(kinds) if kinds else None)

    async def retrieve(user_id: str, question: str, k_max: int):
        request = SearchRequest(
            query=question, k=2 * k_max, mode=config.get("mode", SearchMode.HYBRID),
            candidates=config.get("candidates"), filters=filters,
            evidence_fusion=config.get("evidence_fusion", True),
            subject_prior=config.get("subject_prior", SUBJECT_WEIGHT),
            fact_fold=config.get("fact_fold", FACT_FOLD_WEIGHT),
        )
        hits = await search(memory.store, memory.embedder, user_id, request, rrf_k=rrf_k)
        return [(h.provenance.kind.value, h.record.id, h.provenance.evidence) for h in hits]

    return await evaluate_locomo(samples, retrieve, ks=(10, 25))


def line(label: str, report, seconds: float) -> str:
    o = report.overall
    cats = "  ".join(
        f"{c}:{v['recall_any@10']:.3f}/{v['recall_all@10']:.3f}"
        for c, v in report.by_category.items()
    )
    return (f"{label:48s} any@10 {o['recall_any@10']:.3f}  all@10 {o['recall_all@10']:.3f}"
            f"   {cats}   ({seconds:.1f} s)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEV)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--plain-turns", action="store_true")
    parser.add_argument("--context-tokens", type=int, default=None,
                        help="re-index turns (in a copy) with this much previous-turn context")
    parser.add_argument("--only", nargs="*", help="configuration labels to run (substrings)")
    args = parser.parse_args()
    samples = load_locomo(args.data)
    store = args.store
    tmp = None
    if args.context_tokens is not None:
        indexing.CONTEXT_TOKENS = args.context_tokens
    if args.plain_turns or args.context_tokens is not None:
        async with AsyncMemory.open(Settings.load(store=str(store))) as memory:
            await ensure_built(memory, samples)
        tmp = tempfile.TemporaryDirectory()
        copy = Path(tmp.name) / "plain.db"
        shutil.copy(store, copy)
        store = copy
    async with AsyncMemory.open(Settings.load(store=str(store))) as memory:
        await ensure_built(memory, samples)
        if args.plain_turns or args.context_tokens is not None:
            await reindex_turns(memory, samples, context=not args.plain_turns)
            print("turns re-indexed " + ("without previous-turn context" if args.plain_turns
                  else f"with {indexing.CONTEXT_TOKENS} tokens of previous-turn context"))
        print("LoCoMo dev, categories 1-4, turn level; per category any@10/all@10 "
              "(1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop)")
        for label, config in CONFIGS.items():
            if args.only and not any(o in label for o in args.only):
                continue
            t0 = time.perf_counter()
            report = await score(memory, samples, config)
            print(line(label, report, time.perf_counter() - t0), flush=True)
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
