"""LoCoMo parsing: the real dev set (skipped when absent) and hand-made samples."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.datasets.locomo import (
    LocomoSample,
    dia_id_of,
    load_locomo,
    normalize_evidence,
    parse_sample,
    parse_session_date,
    thread_id,
    turn_id,
)
from agent_memory.errors import EmptyContentError, InvalidInputError
from agent_memory.models import Role


@pytest.fixture(scope="module")
def samples(locomo_path) -> list[LocomoSample]:
    return load_locomo(locomo_path)


@pytest.fixture(scope="module")
def by_id(samples) -> dict[str, LocomoSample]:
    return {s.sample_id: s for s in samples}


def _questions(sample: LocomoSample, text: str):
    return [q for q in sample.questions if q.question == text]


def _sample(**overrides) -> dict:
    """A small well-formed LoCoMo sample; ``overrides`` replace top-level keys."""
    raw = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "9:05 am on 3 January, 2024",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I moved to Lisbon."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Look at my dog!",
                 "blip_caption": "a photo of a brown dog", "img_url": ["http://x/y.jpg"],
                 "query": "brown dog"},
            ],
            "session_2_date_time": "11:30 pm on 29 February, 2024",
            "session_2": [{"speaker": "Bob", "dia_id": "D2:1", "text": "How is Lisbon?"}],
            "session_3_date_time": "1:00 pm on 1 March, 2024",
        },
        "qa": [
            {"question": "Where did Ann move?", "answer": "Lisbon", "category": 4,
             "evidence": ["D1:1"]},
            {"question": "Which pet?", "answer": 7, "category": 1,
             "evidence": ["D1:2; D2:1", "D:1:1", "D1:2", "", "D", "D9:9"]},
            {"question": "Nothing?", "category": 5, "evidence": [],
             "adversarial_answer": "cat"},
        ],
        "observation": {"session_1_observation": {"Ann": [["Ann moved to Lisbon.", "D1:1"]]}},
        "event_summary": {"ignored": True},
    }
    raw.update(overrides)
    return raw


# --- the real dev set ---------------------------------------------------------------------


def test_dev_set_shape(samples):
    assert [s.sample_id for s in samples] == ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]
    for sample in samples:
        assert 19 <= len(sample.sessions) <= 32
        assert 360 <= sum(1 for _ in sample.turns()) <= 680
        assert [s.number for s in sample.sessions] == list(range(1, len(sample.sessions) + 1))
        assert len(set(sample.speakers)) == 2
        assert {t.speaker for t in sample.turns()} == set(sample.speakers)
        assert {t.role for t in sample.turns()} == {Role.USER}
        assert {t.user_id for t in sample.turns()} == {sample.sample_id}
    assert sum(len(s.questions) for s in samples) == 999


def test_conv26_ignores_dates_without_sessions(by_id):
    # conv-26 has session_1..35 dates but only 19 sessions.
    assert len(by_id["conv-26"].sessions) == 19


def test_session_dates_and_turn_timestamps(by_id):
    first = by_id["conv-26"].sessions[0]
    assert first.thread_id == "conv-26:session_1"
    assert first.date == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert first.turns[0].created_at == first.date
    assert first.turns[3].created_at == first.date + timedelta(minutes=3)
    for sample in by_id.values():
        stamps = [t.created_at for t in sample.turns()]
        assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
        for session in sample.sessions:
            assert [t.seq for t in session.turns] == list(range(len(session.turns)))
            assert {t.thread_id for t in session.turns} == {session.thread_id}


def test_turn_ids_and_dia_id_mapping(by_id):
    sample = by_id["conv-26"]
    turn = sample.sessions[0].turns[2]
    assert turn.id == "conv-26:D1:3" == turn_id("conv-26", "D1:3")
    assert turn.metadata["dia_id"] == "D1:3"
    assert dia_id_of(turn.id, "conv-26") == "D1:3"
    assert turn.content == "I went to a LGBTQ support group yesterday and it was so powerful."
    with pytest.raises(InvalidInputError):
        dia_id_of(turn.id, "conv-30")


def test_reparsing_gives_identical_ids(locomo_path, samples):
    again = load_locomo(locomo_path)
    assert [t.id for s in again for t in s.turns()] == [t.id for s in samples for t in s.turns()]
    assert again[0].sessions[3].turns[5] == samples[0].sessions[3].turns[5]


def test_image_turns_carry_the_caption(by_id):
    turn = by_id["conv-26"].sessions[0].turns[4]
    assert turn.metadata["dia_id"] == "D1:5"
    assert turn.content == (
        "The transgender stories were so inspiring! I was so happy and thankful for all the "
        "support. [shares a photo: a photo of a dog walking past a wall with a painting of a "
        "woman]"
    )
    assert turn.metadata["blip_caption"].startswith("a photo of a dog")
    assert turn.metadata["img_url"] == ["https://i.redd.it/l7hozpetnhlb1.jpg"]
    assert turn.metadata["query"] == "transgender pride flag mural"
    captioned = [t for s in by_id.values() for t in s.turns() if "blip_caption" in t.metadata]
    assert len(captioned) == 602
    assert all(t.content.endswith("]") and "[shares a photo: " in t.content for t in captioned)


def test_real_malformed_evidence_is_normalised(by_id):
    # "D8:6; D9:17" in one string
    (q,) = [q for q in by_id["conv-26"].questions if q.evidence == ["D8:6", "D9:17"]]
    assert q.category == 1
    # "D:11:26" -> "D11:26"
    books = _questions(by_id["conv-43"], "What authors has Tim read books from?")
    assert books[0].evidence == ["D1:14", "D2:7", "D4:7", "D5:15", "D11:26", "D20:21", "D26:36"]
    # a lone "D" dropped
    assert any(q.evidence == ["D1:18", "D1:20"] for q in by_id["conv-42"].questions)
    # D10:19 does not exist in conv-42 (session 10 is shorter): dropped, the rest kept
    assert "D10:19" not in by_id["conv-42"].dia_ids()
    assert any(q.evidence[-1] == "D27:23" and len(q.evidence) == 6
               for q in by_id["conv-42"].questions)
    # empty evidence stays empty (two category-3 questions of conv-26)
    assert sorted(q.category for q in by_id["conv-26"].questions if not q.evidence) == [3, 3]
    for sample in by_id.values():
        known = sample.dia_ids()
        for question in sample.questions:
            assert set(question.evidence) <= known
            assert len(set(question.evidence)) == len(question.evidence)


def test_answers_are_text(by_id):
    answers = [q.answer for s in by_id.values() for q in s.questions]
    assert all(a is None or isinstance(a, str) for a in answers)
    adversarial = [q for s in by_id.values() for q in s.questions if q.category == 5]
    assert len(adversarial) == 237 and all(q.adversarial_answer for q in adversarial)


# --- hand-made samples --------------------------------------------------------------------


def test_hand_made_sample():
    sample = parse_sample(_sample())
    assert sample.speakers == ("Ann", "Bob")
    assert [s.thread_id for s in sample.sessions] == ["conv-x:session_1", "conv-x:session_2"]
    assert sample.sessions[1].date == datetime(2024, 2, 29, 23, 30, tzinfo=UTC)
    dog = sample.sessions[0].turns[1]
    assert dog.content == "Look at my dog! [shares a photo: a photo of a brown dog]"
    assert dog.speaker == "Bob" and dog.role is Role.USER
    where, pet, nothing = sample.questions
    assert where.evidence == ["D1:1"] and where.answer == "Lisbon"
    assert pet.evidence == ["D1:2", "D2:1", "D1:1"] and pet.answer == "7"
    assert nothing.evidence == [] and nothing.answer is None and nothing.adversarial_answer == "cat"
    assert sample.evidence_turn_ids(pet) == ["conv-x:D1:2", "conv-x:D2:1", "conv-x:D1:1"]
    assert thread_id("conv-x", 2) == "conv-x:session_2"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["D8:6; D9:17"], ["D8:6", "D9:17"]),
        (["D:11:26"], ["D11:26"]),
        (["D1:3", "D1:3", "d1:03"], ["D1:3"]),
        (["", "D", "D1", "1:3", None, 5], []),
        (["D2:1,D1:1  D3:4"], ["D2:1", "D1:1", "D3:4"]),
    ],
)
def test_normalize_evidence_forms(raw, expected):
    assert normalize_evidence(raw) == expected


def test_normalize_evidence_drops_unknown_ids():
    assert normalize_evidence(["D1:1; D1:99", "D2:1"], known={"D1:1", "D2:1"}) == ["D1:1", "D2:1"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("12:48 am on 1 February, 2023", datetime(2023, 2, 1, 0, 48, tzinfo=UTC)),
        ("12:05 pm on 31 December, 2022", datetime(2022, 12, 31, 12, 5, tzinfo=UTC)),
    ],
)
def test_parse_session_date(text, expected):
    assert parse_session_date(text) == expected


@pytest.mark.parametrize(
    "text", ["yesterday", "13:10 pm on 8 May, 2023", "1:10 pm on 30 February, 2023",
             "1:10 pm on 8 Mai, 2023", ""]
)
def test_parse_session_date_rejects(text):
    with pytest.raises(InvalidInputError):
        parse_session_date(text)


def test_wrong_files_raise_invalid_input(tmp_path):
    cases = {
        "missing.json": None,
        "notjson.json": "this is not json",
        "object.json": json.dumps({"sample_id": "conv-1"}),
        "empty.json": "[]",
        "jsonl.json": json.dumps(_sample()) + "\n" + json.dumps(_sample()),
        "nosession.json": json.dumps([_sample(conversation={"speaker_a": "A", "speaker_b": "B"})]),
        "dup.json": json.dumps([_sample(), _sample()]),
    }
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        with pytest.raises(InvalidInputError, match=name):
            load_locomo(path)


def test_malformed_sample_names_where():
    raw = _sample()
    raw["conversation"]["session_2_date_time"] = "someday"
    with pytest.raises(InvalidInputError, match="someday"):
        parse_sample(raw)
    raw = _sample()
    raw["conversation"]["session_1"][0]["text"] = "   "
    with pytest.raises(EmptyContentError, match="D1:1"):
        parse_sample(raw)
    raw = _sample()
    del raw["conversation"]["session_2_date_time"]
    with pytest.raises(InvalidInputError, match="session_2"):
        parse_sample(raw)
    raw = _sample()
    raw["qa"][0]["category"] = None
    with pytest.raises(InvalidInputError, match=r"qa\[0\]"):
        parse_sample(raw)
