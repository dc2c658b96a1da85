"""Turn-level evidence retrieval on LoCoMo: ask every question, score the turns retrieved.

For each question of the chosen categories (1-4 by default: category 5 is unanswerable by
design, and published memory systems report on 1-4), the retriever is asked for the question's
sample (``user_id = sample_id``); its hits become a ranking of turn ids
(:func:`~agent_memory.eval.recall.expand_ranking`), which is scored against the question's
normalised evidence mapped to turn ids (:func:`~agent_memory.datasets.locomo.turn_id`) with
``recall_any@k`` and ``recall_all@k``. Questions left with no valid evidence after
normalisation cannot be scored: they are skipped and counted.

Example::

    samples = load_locomo("../shared/datasets/locomo/locomo_dev.json")

    async def retrieve(user_id: str, question: str, k: int) -> list[Hit]:
        hits = await memory.search(question, user_id=user_id, k=k)
        return [(h.record.kind, h.record.id, h.record.evidence) for h in hits]

    report = await evaluate_locomo(samples, retrieve)
    Path("eval.json").write_text(report.to_json())
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..datasets.locomo import CATEGORY_NAMES, LocomoSample
from ..errors import InvalidInputError
from .recall import DEFAULT_KS, Hit, aggregate, expand_ranking, metric_names, score_question

Retriever = Callable[[str, str, int], Awaitable[Sequence[Hit]]]
"""``retrieve(user_id, question_text, k_max)`` -> hits ``(record_kind, record_id, evidence)``,
best first. It may return more than ``k_max`` hits; the ranking is cut at ``k_max`` turns."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``, called after each question of the chosen categories."""

DEFAULT_CATEGORIES: tuple[int, ...] = (1, 2, 3, 4)
"""Categories scored by default (multi-hop, temporal, open-domain, single-hop)."""


class QuestionResult(BaseModel):
    """How one question was scored.

    Attributes:
        sample_id: the conversation (and user) asked.
        question: the question text.
        category: LoCoMo category 1-5.
        gold: evidence turn ids.
        ranked: the turn ids scored, best first (at most ``max(ks)``).
        scores: ``{"recall_any@k": 0.0 | 1.0, "recall_all@k": ...}``.
    """

    model_config = ConfigDict(frozen=True)

    sample_id: str
    question: str
    category: int
    gold: list[str]
    ranked: list[str]
    scores: dict[str, float]


class EvalReport(BaseModel):
    """The outcome of :func:`evaluate_locomo`.

    Attributes:
        ks: the cut-offs, ascending.
        categories: the categories asked.
        n: questions scored.
        skipped: questions of those categories with no valid evidence (not scored).
        overall: mean ``recall_any@k`` / ``recall_all@k`` over the scored questions.
        by_category: ``{"1": {"n": int, "recall_any@1": float, ...}, ...}``.
        questions: every scored question with its ranking (not part of :meth:`to_json`).
    """

    ks: tuple[int, ...]
    categories: tuple[int, ...]
    n: int
    skipped: int
    overall: dict[str, float]
    by_category: dict[str, dict[str, int | float]]
    questions: list[QuestionResult] = []

    @property
    def columns(self) -> list[str]:
        """Metric names in table order: every ``recall_any@k``, then every ``recall_all@k``."""
        return metric_names(self.ks)

    def to_dict(self) -> dict[str, Any]:
        """``{"n": int, "skipped": int, "overall": {...}, "by_category": {"1": {...}, ...}}``."""
        return {
            "n": self.n,
            "skipped": self.skipped,
            "overall": dict(self.overall),
            "by_category": {c: dict(v) for c, v in self.by_category.items()},
        }

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text (what ``agent-memory eval locomo --json OUT`` writes)."""
        return json.dumps(self.to_dict(), indent=indent)

    def rows(self) -> list[tuple[str, int, list[float]]]:
        """Table rows ``(label, n, values in columns order)``: overall first, then per category.

        Labels are ``"overall"`` and ``"{category} {name}"``, e.g. ``"1 multi-hop"``.
        """
        names = self.columns
        table = [("overall", self.n, [self.overall[name] for name in names])]
        for category, values in self.by_category.items():
            name = CATEGORY_NAMES.get(int(category), "") if category.isdigit() else ""
            label = f"{category} {name}".strip()
            table.append((label, int(values["n"]), [float(values[m]) for m in names]))
        return table


def _check_ks(ks: Iterable[int]) -> tuple[int, ...]:
    values = tuple(ks)
    if not values or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in values):
        raise InvalidInputError(f"ks must be positive integers, got {values!r}")
    return tuple(sorted(set(values)))


def _ranking(hits: Sequence[Hit], k_max: int) -> list[str]:
    """The turn ids scored for one question.

    The one place where retrieved hits become the scored ranking: a later context budget
    (tokens of retrieved text allowed per question) will cut the ranking here.
    """
    return expand_ranking(hits, k_max)


async def evaluate_locomo(
    samples: Sequence[LocomoSample],
    retrieve: Retriever,
    *,
    categories: Iterable[int] = DEFAULT_CATEGORIES,
    ks: Iterable[int] = DEFAULT_KS,
    progress: Progress | None = None,
) -> EvalReport:
    """Score turn-level evidence retrieval over LoCoMo questions.

    Questions are asked one at a time, sample by sample, in file order.

    Args:
        samples: from :func:`~agent_memory.datasets.locomo.load_locomo`; their turns must
            already be in the memory ``retrieve`` searches, under ``user_id = sample_id``.
        retrieve: ``await retrieve(user_id, question, k_max)`` -> hits, best first
            (:data:`Retriever`).
        categories: LoCoMo categories to ask (1-5).
        ks: recall cut-offs (positive integers); ``k_max = max(ks)``.
        progress: optional ``progress(done, total)`` callback.

    Returns:
        The :class:`EvalReport`.

    Raises:
        InvalidInputError: ``ks`` or ``categories`` is empty or invalid, or ``retrieve``
            returned something that is not a list of hits. Errors from ``retrieve`` propagate.
    """
    ks_sorted = _check_ks(ks)
    chosen = tuple(sorted(set(categories)))
    if not chosen or any(c not in CATEGORY_NAMES for c in chosen):
        raise InvalidInputError(f"categories must be among 1-5, got {chosen!r}")
    k_max = ks_sorted[-1]
    asked = [(s, q) for s in samples for q in s.questions if q.category in chosen]
    results: list[QuestionResult] = []
    skipped: Counter[int] = Counter()
    for done, (sample, question) in enumerate(asked, start=1):
        gold = sample.evidence_turn_ids(question)
        if gold:
            hits = await retrieve(sample.sample_id, question.question, k_max)
            if isinstance(hits, (str, bytes)) or not isinstance(hits, Iterable):
                raise InvalidInputError(f"retrieve returned {type(hits).__name__}, not hits")
            ranked = _ranking(list(hits), k_max)
            results.append(
                QuestionResult(
                    sample_id=sample.sample_id,
                    question=question.question,
                    category=question.category,
                    gold=gold,
                    ranked=ranked,
                    scores=score_question(ranked, gold, ks_sorted),
                )
            )
        else:
            skipped[question.category] += 1
        if progress is not None:
            progress(done, len(asked))
    summary = aggregate(((r.category, r.scores) for r in results), ks_sorted)
    return EvalReport(
        ks=ks_sorted,
        categories=chosen,
        n=summary["n"],
        skipped=sum(skipped.values()),
        overall=summary["overall"],
        by_category=summary["by_category"],
        questions=results,
    )
