"""Recall (seed 004): scoring by relevance, importance and recency; HARD_LIMIT,
COLLECTION_LIMIT and SUMMARY strategies; collections bound to agents; bulk add."""

from .api import RecallAPI, RecalledMemory, RecallResult
from .collections import AddFailure, BulkAddResult, MemoryInput
from .scoring import RelevanceSource, ScoreExplanation, SignalScore, Weights
from .strategies import Strategy

__all__ = [
    "AddFailure",
    "BulkAddResult",
    "MemoryInput",
    "RecallAPI",
    "RecallResult",
    "RecalledMemory",
    "RelevanceSource",
    "ScoreExplanation",
    "SignalScore",
    "Strategy",
    "Weights",
]
