"""evaluate_locomo: question selection, gold mapping, skipping, report shape; on the real dev set
with retrievers whose figures are known in advance."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from agent_memory.datasets.locomo import LocomoSample, load_locomo, parse_sample
from agent_memory.errors import InvalidInputError
from agent_memory.eval.locomo import EvalReport, evaluate_locomo
from agent_memory.eval.recall import metric_names


def _raw_sample(sample_id: str) -> dict:
    turns = [{"speaker": "Ann" if i % 2 else "Bob", "dia_id": f"D1:{i}", "text": f"turn {i}"}
             for i in range(1, 7)]
    return {
        "sample_id": sample_id,
        "conversation": {"speaker_a": "Ann", "speaker_b": "Bob",
                         "session_1_date_time": "10:00 am on 1 June, 2023", "session_1": turns},
        "qa": [
            {"question": "q-single", "answer": "a", "category": 4, "evidence": ["D1:2"]},
            {"question": "q-multi", "answer": "a", "category": 1, "evidence": ["D1:5", "D1:1"]},
            {"question": "q-none", "answer": "a", "category": 3, "evidence": ["D7:1", "D"]},
            {"question": "q-adv", "category": 5, "evidence": ["D1:3"], "adversarial_answer": "x"},
        ],
    }


class FixedRetriever:
    """Returns the same hits for every question and records what it was asked."""

    def __init__(self, hits_for):
        self.hits_for = hits_for
        self.calls: list[tuple[str, str, int]] = []

    async def __call__(self, user_id: str, question: str, k: int):
        self.calls.append((user_id, question, k))
        return self.hits_for(user_id)


async def test_hand_made_evaluation():
    samples = [parse_sample(_raw_sample("s1")), parse_sample(_raw_sample("s2"))]
    retrieve = FixedRetriever(lambda user: [
        ("turn", f"{user}:D1:1", []),
        ("summary", f"summary_{user}_x", [f"{user}:D1:1", f"{user}:D1:3", f"{user}:D1:2"]),
        ("fact", f"f_{user}", [f"{user}:D1:5"]),
    ])
    progress: list[tuple[int, int]] = []
    report = await evaluate_locomo(samples, retrieve, ks=(1, 3, 4),
                                   progress=lambda done, total: progress.append((done, total)))
    # category 5 is not asked; q-none has no valid evidence: skipped, never sent to retrieve
    assert retrieve.calls == [("s1", "q-single", 4), ("s1", "q-multi", 4),
                              ("s2", "q-single", 4), ("s2", "q-multi", 4)]
    assert progress == [(i, 6) for i in range(1, 7)]
    assert report.n == 4 and report.skipped == 2
    assert report.questions[0].ranked == ["s1:D1:1", "s1:D1:3", "s1:D1:2", "s1:D1:5"]
    assert report.questions[1].gold == ["s1:D1:5", "s1:D1:1"]
    # q-single: gold D1:2 at rank 3; q-multi: D1:1 at rank 1, D1:5 at rank 4
    assert report.by_category["4"] == {
        "n": 2, "recall_any@1": 0.0, "recall_any@3": 1.0, "recall_any@4": 1.0,
        "recall_all@1": 0.0, "recall_all@3": 1.0, "recall_all@4": 1.0,
    }
    assert report.by_category["1"]["recall_any@1"] == 1.0
    assert report.by_category["1"]["recall_all@3"] == 0.0
    assert report.by_category["1"]["recall_all@4"] == 1.0
    assert report.overall["recall_any@1"] == 0.5 and report.overall["recall_all@3"] == 0.5

    data = json.loads(report.to_json())
    assert data == report.to_dict()
    assert set(data) == {"n", "skipped", "overall", "by_category"}
    assert list(data["by_category"]) == ["1", "4"]
    assert isinstance(data["by_category"]["1"]["n"], int)
    assert list(data["overall"]) == metric_names((1, 3, 4))

    rows = report.rows()
    assert [r[0] for r in rows] == ["overall", "1 multi-hop", "4 single-hop"]
    assert rows[0][1] == 4 and rows[1][1] == 2
    assert rows[0][2] == [report.overall[m] for m in report.columns]


async def test_category_selection_and_argument_checks():
    samples = [parse_sample(_raw_sample("s1"))]
    retrieve = FixedRetriever(lambda user: [])
    report = await evaluate_locomo(samples, retrieve, categories=[5], ks=[10, 1, 10])
    assert report.ks == (1, 10) and report.n == 1 and report.skipped == 0
    assert report.overall == {"recall_any@1": 0.0, "recall_any@10": 0.0,
                              "recall_all@1": 0.0, "recall_all@10": 0.0}
    with pytest.raises(InvalidInputError, match="categories"):
        await evaluate_locomo(samples, retrieve, categories=(0, 1))
    with pytest.raises(InvalidInputError, match="ks"):
        await evaluate_locomo(samples, retrieve, ks=())
    with pytest.raises(InvalidInputError, match="ks"):
        await evaluate_locomo(samples, retrieve, ks=(0, 5))

    async def broken(user_id, question, k):
        return None

    with pytest.raises(InvalidInputError, match="retrieve returned NoneType"):
        await evaluate_locomo(samples, broken)


# --- the real dev set ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def samples(locomo_path) -> list[LocomoSample]:
    return load_locomo(locomo_path)


def _asked(samples):
    return [(s, q) for s in samples for q in s.questions if q.category in (1, 2, 3, 4)]


async def test_oracle_retriever_on_dev_set(samples):
    """Returning exactly the gold turns: recall_any is 1 everywhere, recall_all@k is the share
    of questions with at most k evidence turns."""
    gold = {}
    for sample, question in _asked(samples):
        gold.setdefault((sample.sample_id, question.question), []).append(
            sample.evidence_turn_ids(question))

    async def oracle(user_id, question, k):
        (turn_ids,) = {tuple(g) for g in gold[(user_id, question)]}  # duplicates agree
        return [("turn", t, []) for t in turn_ids]

    report = await evaluate_locomo(samples, oracle)
    scored = [q for _, q in _asked(samples) if q.evidence]
    assert report.skipped == 2  # the two conv-26 questions with empty evidence
    assert report.n == len(scored) == 760
    assert {c: v["n"] for c, v in report.by_category.items()} == {
        str(c): n for c, n in sorted(Counter(q.category for q in scored).items())
    }
    for k in (1, 5, 10, 25):
        assert report.overall[f"recall_any@{k}"] == 1.0
        expected = sum(len(q.evidence) <= k for q in scored) / len(scored)
        assert report.overall[f"recall_all@{k}"] == pytest.approx(expected)
    assert report.overall["recall_all@1"] < 1.0  # multi-turn evidence exists


async def test_session_summary_retriever_on_dev_set(samples):
    """One summary hit covering the session of the first evidence turn: a gold turn counts at k
    only when it is among the session's first k turns, never merely because its session was
    found."""
    session_of = {t.id: session for s in samples for session in s.sessions for t in session.turns}
    seq_of = {t.id: t.seq for s in samples for t in s.turns()}
    first_gold = {}
    for sample, question in _asked(samples):
        if question.evidence:
            first_gold.setdefault((sample.sample_id, question.question),
                                  sample.evidence_turn_ids(question)[0])

    async def summaries(user_id, question, k):
        session = session_of[first_gold[(user_id, question)]]
        evidence = [t.id for t in session.turns]
        return [("summary", f"summary_{user_id}_{session.thread_id}", evidence)]

    report = await evaluate_locomo(samples, summaries)
    for k in (1, 10, 25):
        hits = 0
        for result in report.questions:
            session = session_of[first_gold[(result.sample_id, result.question)]]
            hits += any(session_of[g] is session and seq_of[g] < k for g in result.gold)
        assert report.overall[f"recall_any@{k}"] == pytest.approx(hits / report.n)
    for result in report.questions:
        session = session_of[first_gold[(result.sample_id, result.question)]]
        assert result.ranked == [t.id for t in session.turns][:25]
    assert report.overall["recall_any@1"] < report.overall["recall_any@10"] < 1.0
    assert report.overall["recall_any@25"] < 1.0  # finding the session is not enough


def test_report_round_trips_as_model():
    report = EvalReport(ks=(1,), categories=(4,), n=1, skipped=0,
                        overall={"recall_any@1": 1.0, "recall_all@1": 1.0},
                        by_category={"4": {"n": 1, "recall_any@1": 1.0, "recall_all@1": 1.0}})
    assert EvalReport.model_validate_json(report.model_dump_json()) == report
