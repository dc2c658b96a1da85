"""Retrieval evaluation: recall@k math and the LoCoMo evidence-retrieval benchmark."""

from .locomo import EvalReport, QuestionResult, Retriever, evaluate_locomo
from .recall import (
    DEFAULT_KS,
    Hit,
    aggregate,
    expand_ranking,
    metric_names,
    recall_all,
    recall_any,
    score_question,
)

__all__ = [
    "DEFAULT_KS",
    "EvalReport",
    "Hit",
    "QuestionResult",
    "Retriever",
    "aggregate",
    "evaluate_locomo",
    "expand_ranking",
    "metric_names",
    "recall_all",
    "recall_any",
    "score_question",
]
