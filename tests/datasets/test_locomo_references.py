"""LoCoMo's reference annotations (observations, session summaries): kept apart from turns."""

from __future__ import annotations

import pytest

from agent_memory.datasets.locomo import load_locomo, parse_sample
from agent_memory.errors import InvalidInputError


def _raw(**overrides) -> dict:
    raw = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann", "speaker_b": "Bob",
            "session_1_date_time": "9:05 am on 3 January, 2024",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I moved to Lisbon."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "I adopted a dog and a cat."},
            ],
            "session_2_date_time": "9:05 am on 4 January, 2024",
            "session_2": [{"speaker": "Bob", "dia_id": "D2:1", "text": "The dog is called Rex."}],
        },
        "qa": [],
        "observation": {
            "session_2_observation": {"Bob": [["Bob's dog is named Rex.", "D2:1"]]},
            "session_1_observation": {
                "Ann": [["Ann moved to Lisbon.", "D1:1"]],
                "Bob": [["Bob adopted a dog and a cat.", ["D1:2", "D:1:2", "D9:9"]]],
            },
        },
        "session_summary": {"session_2_summary": "Bob names the dog.",
                            "session_1_summary": "Ann moved; Bob adopted pets."},
    }
    raw.update(overrides)
    return raw


def test_observations_and_summaries_are_parsed_in_session_order():
    sample = parse_sample(_raw())
    assert [(o.session, o.speaker, o.text, o.evidence) for o in sample.observations] == [
        (1, "Ann", "Ann moved to Lisbon.", ["D1:1"]),
        (1, "Bob", "Bob adopted a dog and a cat.", ["D1:2"]),  # normalised, unknown id dropped
        (2, "Bob", "Bob's dog is named Rex.", ["D2:1"]),
    ]
    assert sample.session_summaries == {1: "Ann moved; Bob adopted pets.", 2: "Bob names the dog."}


def test_references_never_reach_the_turns():
    sample = parse_sample(_raw())
    contents = [t.content for t in sample.turns()]
    assert contents == ["I moved to Lisbon.", "I adopted a dog and a cat.", "The dog is called Rex."]
    assert all(set(t.metadata) == {"sample_id", "dia_id"} for t in sample.turns())


def test_absent_references_give_empty_fields():
    raw = _raw()
    del raw["observation"], raw["session_summary"]
    sample = parse_sample(raw)
    assert sample.observations == [] and sample.session_summaries == {}


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("observation", ["not", "an", "object"], "'observation' must be an object"),
        ("observation", {"session_1": {"Ann": []}}, "session_N_observation"),
        ("observation", {"session_1_observation": {"Ann": [["text only"]]}}, r"\[text, dia_id"),
        ("observation", {"session_1_observation": {"Ann": "Ann moved"}}, "expected a list"),
        ("session_summary", {"session_1_summary": 5}, "session_N_summary"),
        ("session_summary", "a summary", "'session_summary' must be an object"),
    ],
)
def test_malformed_references_raise(key, value, message):
    with pytest.raises(InvalidInputError, match=message):
        parse_sample(_raw(**{key: value}))


def test_dev_set_references(locomo_path):
    samples = load_locomo(locomo_path)
    assert [len(s.observations) for s in samples] == [184, 169, 324, 266, 267]
    for sample in samples:
        assert set(sample.session_summaries) == {s.number for s in sample.sessions}
        assert {o.speaker for o in sample.observations} == set(sample.speakers)
        assert all(o.evidence and set(o.evidence) <= sample.dia_ids()
                   for o in sample.observations)
    jon = [o for o in samples[1].observations if o.text.startswith("Jon is working on opening")]
    assert jon and jon[0].evidence == ["D15:3", "D15:5"]
