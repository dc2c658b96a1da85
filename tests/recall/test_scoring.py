"""Score arithmetic on hand-built records, signal by signal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.errors import InvalidInputError
from agent_memory.models import Fact, Turn
from agent_memory.recall.scoring import (
    RelevanceSource,
    Weights,
    explain,
    min_max,
    rescale_cosine,
    rescale_importance,
)

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def fact(i: int, importance: int | None, created: datetime, accessed: datetime | None = None):
    return Fact(id=f"f{i}", user_id="u", content=f"fact {i}", importance=importance,
                created_at=created, last_accessed_at=accessed)


def test_rescalings():
    assert rescale_cosine(-1.0) == 0.0 and rescale_cosine(1.0) == 1.0
    assert rescale_cosine(0.5) == pytest.approx(0.75)
    assert rescale_importance(1) == 0.0 and rescale_importance(10) == 1.0
    assert rescale_importance(4) == pytest.approx(1 / 3)
    assert min_max([10.0, 20.0, 15.0]) == [0.0, 1.0, 0.5]
    assert min_max([3.0, 3.0]) == [1.0, 1.0]
    with pytest.raises(InvalidInputError):
        min_max([])


def test_each_signal_and_the_weighted_sum():
    records = [
        fact(1, 10, T0),                                              # oldest
        fact(2, 1, T0 + timedelta(days=1), accessed=T0 + timedelta(days=4)),  # newest access
        fact(3, None, T0 + timedelta(days=2)),
    ]
    cosines = [0.6, -0.2, 1.0]
    weights = Weights(relevance=2.0, importance=1.0, recency=1.0)
    out = explain(records, cosines, weights, source=RelevanceSource.COSINE, default_importance=5)

    first, second, third = out
    assert first.relevance.scaled == pytest.approx(0.8)
    assert first.importance.scaled == 1.0 and first.importance.note == "stored"
    assert first.recency.scaled == 0.0 and first.recency.note == "created_at"
    assert first.score == pytest.approx((2 * 0.8 + 1.0 + 0.0) / 4)

    assert second.relevance.scaled == pytest.approx(0.4)
    assert second.importance.scaled == 0.0
    assert second.recency.scaled == 1.0 and second.recency.note == "last_accessed_at"
    assert second.score == pytest.approx((2 * 0.4 + 0.0 + 1.0) / 4)

    assert third.importance.raw == 5 and third.importance.note == "default importance"
    assert third.recency.scaled == pytest.approx(0.5)  # day 2 within [day 0, day 4]
    assert third.score == pytest.approx((2 * 1.0 + 4 / 9 + 0.5) / 4)
    for e in out:
        parts = e.relevance.weighted + e.importance.weighted + e.recency.weighted
        assert e.score == pytest.approx(parts)
        assert "relevance" in e.describe()


def test_fused_relevance_is_normalised_by_the_best_candidate():
    records = [fact(1, 5, T0), fact(2, 5, T0)]
    out = explain(records, [0.2, 0.05], Weights(importance=0, recency=0),
                  source=RelevanceSource.FUSED)
    assert [e.relevance.scaled for e in out] == [1.0, pytest.approx(0.25)]
    assert [e.score for e in out] == [1.0, pytest.approx(0.25)]


def test_a_turn_without_importance_uses_the_default():
    turn = Turn(id="t", user_id="u", thread_id="s", role="user", content="hi", created_at=T0)
    (e,) = explain([turn], [0.0], Weights(relevance=0, recency=0),
                   source=RelevanceSource.COSINE, default_importance=10)
    assert e.score == 1.0


def test_bad_weights_and_inputs_raise():
    with pytest.raises(InvalidInputError):
        explain([fact(1, 1, T0)], [0.1], Weights(relevance=0, importance=0, recency=0),
                source=RelevanceSource.COSINE)
    with pytest.raises(InvalidInputError):
        explain([fact(1, 1, T0)], [], Weights(), source=RelevanceSource.COSINE)
    with pytest.raises(InvalidInputError):
        explain([fact(1, 1, T0)], [0.1], Weights(), source=RelevanceSource.COSINE,
                default_importance=11)
