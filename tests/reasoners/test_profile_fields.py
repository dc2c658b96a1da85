"""The offline profile-field model: its data, its decisions, and where it does not apply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from agent_memory.errors import ModelUnavailableError
from agent_memory.profile_schema import SchemaField, schema_fields
from agent_memory.reasoners.extractive import field_model
from agent_memory.reasoners.extractive.profile import FieldIndex

DATA = sorted((Path(__file__).resolve().parents[2] / "data").glob("profile_statements*.jsonl"))


def test_training_statements_are_labelled_with_the_default_fields_and_name_their_subject() -> None:
    names = {f.name for f in schema_fields()} | {field_model.NONE}
    items = [json.loads(line) for path in DATA for line in path.read_text().splitlines()
             if line.strip()]
    assert len(items) >= 1800
    assert {item["field"] for item in items} == names  # every class has statements
    assert all(item["subject"] in item["text"] for item in items)
    assert len({item["text"] for item in items}) == len(items)


def test_the_model_covers_the_default_schema_only_as_it_is() -> None:
    from dataclasses import replace

    default = schema_fields()
    assert field_model.covers(default)
    assert field_model.covers(default[:4])  # a subset keeps its meanings
    star = SchemaField(name="star_sign", description="zodiac sign",
                       prototypes=("The person is a Leo.",))
    assert not field_model.covers((*default[:3], star))
    # a default name given another meaning is the schema's own field: filed by its prototypes
    assert not field_model.covers((replace(default[2], description="the person's dream job",
                                           prototypes=("The person dreams of flying.",)),))
    assert not field_model.covers(())
    assert not field_model.covers((replace(default[0], name=field_model.NONE),))


@pytest.fixture(scope="module")
def embed(local_embedder):
    return local_embedder.embed_sync


def _placed(embed, cases: dict[str, str | None]) -> list:
    """The model's filing of the statements about Omar in ``cases``, none of which may be in
    the training data."""
    texts = list(cases)
    assert all(text not in path.read_text() for path in DATA for text in texts)
    return field_model.assign(embed, texts, ["Omar"] * len(texts), schema_fields())


def test_clear_statements_go_to_their_field_and_chatter_to_none(embed) -> None:
    # Written for this test; none of them is in the training data.
    cases = {
        "Omar teaches chemistry at a high school.": "occupation",
        "Omar's son started kindergarten in September 2024.": "family",
        "Omar adopted a grey cat called Pixel.": "pets",
        "Omar grew up in Marseille and lives in Lyon now.": "location",
        "Omar has paid off the loan on his car.": "finances",
        "Omar sings in a choir every Thursday.": "hobbies",
        "Omar is so excited!": None,
        "Omar thanked a friend for the kind words.": None,
        "Omar will send the photos later.": None,
    }
    placed = _placed(embed, cases)
    assert {t: a.field for t, a in zip(cases, placed, strict=True)} == cases
    for a in placed:
        assert (a.score >= field_model.MIN_PROBABILITY) if a.field else a.score == 0.0


def test_a_lasting_taste_told_with_a_word_of_change_is_filed(embed) -> None:
    """"now", "actually", "has stopped": a liking or an activity that holds from now on goes
    in the profile; the same words on a moment do not. Written for this test; none of them is
    in the training data."""
    cases = {
        "Omar loves hiking now.": "hobbies",
        "Omar actually enjoys swimming these days.": "hobbies",
        "Omar has started playing the drums.": "hobbies",
        "Omar now prefers green tea.": "preferences",
        "Omar likes olives now.": "preferences",
        "Omar loved the photo.": None,
        "Omar is loving this weather right now.": None,
        "Omar is so sleepy now.": None,
    }
    placed = _placed(embed, cases)
    assert {t: a.field for t, a in zip(cases, placed, strict=True)} == cases


def test_a_fact_torn_between_two_fields_is_still_filed(embed) -> None:
    """Only the doubt whether a fact is profile material keeps it out, not two fields."""
    fields = schema_fields()
    text = "Priya adopted a dog for her kids."
    from agent_memory.reasoners.extractive.field_model import as_generic

    row = field_model.probabilities(embed([as_generic(text, "Priya")]), fields)[0]
    assert row.sum() == pytest.approx(1.0, abs=1e-5)
    assert sorted(row[:-1])[-2] > 0.1  # a second field is in play
    [placed] = field_model.assign(embed, [text], ["Priya"], fields)
    assert placed.field == "family"  # pets second


class StarSigns(BaseModel):
    star_sign: list[str] = Field(default_factory=list, description="zodiac sign",
                                 examples=["The person is a Leo."])
    occupation: list[str] = Field(default_factory=list, description="job",
                                  examples=["The person works as a nurse."])


def test_the_index_files_by_the_model_for_the_default_schema_and_by_prototypes_otherwise(
        embed) -> None:
    texts = ["Sam is a Virgo, born in early September.", "Sam is so excited!"]
    default = FieldIndex(embed, schema_fields(), learned=embed)
    assert [a.field for a in default.assign(texts, ["Sam", "Sam"])] == ["age", None]  # birthday
    custom = FieldIndex(embed, schema_fields(StarSigns), learned=embed)
    assert custom.assign(texts, ["Sam", "Sam"])[0].field == "star_sign"
    unlearned = FieldIndex(embed, schema_fields(), learned=None)
    by_prototypes = unlearned.assign(texts, ["Sam", "Sam"])
    best, _ = unlearned.scores(texts, ["Sam", "Sam"])
    assert [a.score for a in by_prototypes if a.field] == [
        pytest.approx(float(best[k].max())) for k, a in enumerate(by_prototypes) if a.field]


def test_without_the_local_model_the_index_files_by_the_prototypes(embed, caplog) -> None:
    calls = []

    def unavailable(texts):
        calls.append(len(texts))
        raise ModelUnavailableError("all-MiniLM-L6-v2 is not installed")

    index = FieldIndex(embed, schema_fields(), learned=unavailable)
    texts = ["Sam works as a nurse at the hospital.", "Sam has a dog named Rex."]
    expected = FieldIndex(embed, schema_fields()).assign(texts, ["Sam", "Sam"])
    assert index.assign(texts, ["Sam", "Sam"]) == expected
    assert index.assign(texts, ["Sam", "Sam"]) == expected
    assert calls == [2]  # tried once, then the prototypes
    assert "filed by the prototypes" in caplog.text


def test_nothing_to_file() -> None:
    assert field_model.assign(lambda texts: [], [], [], schema_fields()) == []


def test_a_fact_that_does_not_stand_alone_is_left_out_of_the_profile(embed) -> None:
    """What "this", "it" or "her" points at was in another sentence: the fact is kept, but a
    profile line must be read on its own. Both ways of filing leave it out."""
    subjects = ["Sam"] * 4
    texts = ["Sam is a huge fan of this band.", "A friend made it for Sam's wedding.",
             "Her paintings inspire Sam.", "Sam plays the cello in an orchestra."]
    for learned in (embed, None):
        placed = FieldIndex(embed, schema_fields(), learned=learned).assign(texts, subjects)
        assert [a.field for a in placed[:3]] == [None, None, None]
        assert [a.score for a in placed[:3]] == [0.0, 0.0, 0.0]
        assert placed[3].field == "hobbies"
