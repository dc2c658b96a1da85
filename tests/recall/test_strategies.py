"""HARD_LIMIT, COLLECTION_LIMIT spreading and the SUMMARY map-reduce."""

from __future__ import annotations

import pytest

from agent_memory.errors import InvalidInputError
from agent_memory.reasoners.extractive import ExtractiveReasoner
from agent_memory.recall.strategies import collection_limit, hard_limit, map_reduce_summary

ITEMS = [("a", 0.9), ("a", 0.8), ("a", 0.7), ("a", 0.6), ("b", 0.5), ("b", 0.4), ("c", 0.3)]


def score(x):
    return x[1]


def coll(x):
    return x[0]


def test_hard_limit_keeps_the_best():
    assert hard_limit(ITEMS, score, 3) == ITEMS[:3]


def test_collection_limit_spreads_evenly():
    kept = collection_limit(ITEMS, score, coll, 6)
    # 2 places each; "c" has one memory, so its spare place goes to the best of the rest
    assert kept == [("a", 0.9), ("a", 0.8), ("a", 0.7), ("b", 0.5), ("b", 0.4), ("c", 0.3)]
    # 3 places over 3 collections: the best of each
    assert collection_limit(ITEMS, score, coll, 3) == [("a", 0.9), ("b", 0.5), ("c", 0.3)]


def test_collection_limit_remainder_goes_to_the_best_collection_and_empty_ones_give_way():
    assert collection_limit(ITEMS, score, coll, 4) == [
        ("a", 0.9), ("a", 0.8), ("b", 0.5), ("c", 0.3)
    ]
    # "d" is bound but has no candidates: its places go to the best remaining items
    kept = collection_limit(ITEMS, score, coll, 4, collections=["a", "b", "c", "d"])
    assert kept == [("a", 0.9), ("a", 0.8), ("b", 0.5), ("c", 0.3)]


class CountingReasoner(ExtractiveReasoner):
    def __init__(self):
        self.batches = []

    async def summarize_memories(self, context, memories, max_tokens):
        self.batches.append(list(memories))
        return await super().summarize_memories(context, memories, max_tokens)


async def test_map_reduce_calls_map_then_reduce():
    reasoner = CountingReasoner()
    texts = [f"Caroline likes hiking trail number {i}." for i in range(7)]
    summary, calls = await map_reduce_summary(reasoner, "hiking", texts, batch_size=3,
                                              max_tokens=200)
    # map: 3 + 3 + 1 memories; reduce: the 3 partial summaries
    assert [len(b) for b in reasoner.batches] == [3, 3, 1, 3] and calls == 4
    assert "hiking" in summary
    with pytest.raises(InvalidInputError):
        await map_reduce_summary(reasoner, "x", texts, batch_size=1)
