"""Subject-aware queries: named speakers stripped from the query and used as a prior."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.models import Fact, Role, Turn
from agent_memory.retrieval.search import SearchRequest, search
from agent_memory.retrieval.subjects import apply_prior, named_speakers, strip_names

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)


def turn(i: int, speaker: str | None, content: str = "hi") -> Turn:
    return Turn(id=f"t{i}", user_id="u1", thread_id="s1", role=Role.USER, speaker=speaker,
                content=content, seq=i, created_at=T0)


def fact(i: int, subject: str | None) -> Fact:
    return Fact(id=f"f{i}", user_id="u1", content="likes tea", subject=subject, evidence=["t0"],
                created_at=T0)


def test_named_speakers_whole_words_any_case_and_possessive():
    speakers = ["Melanie", "Caroline", "", " ", "Melanie"]
    assert named_speakers("What do Melanie's kids like?", speakers) == ["Melanie"]
    assert named_speakers("what does melanie do with caroline", speakers) == ["Melanie",
                                                                              "Caroline"]
    assert named_speakers("What does Melanies do?", speakers) == []  # not a whole word
    assert named_speakers("What did Jon buy?", speakers) == []
    will = ["Will", "Mary Ann"]
    assert named_speakers("What will happen next?", will) == []
    assert named_speakers("What did Will and mary  ann plan?", will) == ["Will", "Mary Ann"]


def test_strip_names_keeps_a_query_that_is_only_names():
    assert strip_names("What do Melanie's kids like?", ["Melanie"]) == "What do kids like?"
    assert strip_names("Did Jon and Gina both dance?", ["Jon", "Gina"]) == "Did and both dance?"
    assert strip_names("Melanie?", ["Melanie"]) == "Melanie?"
    assert strip_names("When will Will come?", ["Will"]) == "When will come?"


def test_apply_prior_multiplies_named_turns_and_facts_and_reranks():
    records = {"t0": turn(0, "Caroline"), "t1": turn(1, "Melanie"), "f0": fact(0, "Melanie"),
               "f1": fact(1, None)}
    scores = {"t0": 0.5, "t1": 0.3, "f0": 0.2, "f1": 0.25, "gone": 0.1}
    ranked, factors = apply_prior(scores, records, ["Melanie"], 1.0)
    assert ranked == [("t1", 0.6), ("t0", 0.5), ("f0", 0.4), ("f1", 0.25), ("gone", 0.1)]
    assert factors == {"t1": 2.0, "f0": 2.0}
    same, none = apply_prior(scores, records, ["Melanie"], 0.0)
    assert [rid for rid, _ in same] == ["t0", "t1", "f1", "f0", "gone"] and none == {}
    with pytest.raises(ValueError):
        apply_prior(scores, records, ["Melanie"], -0.5)


async def add_dialogue(memory):
    # Bob keeps addressing Alice by name; Alice's own answer about her hobby never names her.
    lines = [
        ("Bob", "Alice, how was your week? Alice, tell me everything!"),
        ("Alice", "Busy but good. I spent Saturday at my pottery class shaping bowls."),
        ("Bob", "Alice, you always find something fun to do, Alice."),
        ("Alice", "Thanks! How about you?"),
        ("Bob", "I fixed my bike and went fishing at the lake."),
        ("Alice", "My sister visited, we cooked dinner together."),
        ("Bob", "Hey Alice! Good morning Alice, Alice."),
    ]
    return await memory.add_turns([
        {"user_id": "u1", "thread_id": "s1", "role": "user", "speaker": s, "content": c,
         "created_at": T0 + timedelta(minutes=i)}
        for i, (s, c) in enumerate(lines)
    ])


async def test_named_subject_finds_the_persons_own_turn(memory):
    turns = await add_dialogue(memory)
    question = "What did Alice make?"
    plain = await search(memory.store, memory.embedder, "u1",
                         SearchRequest(query=question, k=3, subject_prior=0.0))
    # the name alone pulls up Bob's turns that say nothing but "Alice"
    assert [h.record.speaker for h in plain[:2]] == ["Bob"] * 2
    hits = await search(memory.store, memory.embedder, "u1", SearchRequest(query=question, k=4))
    assert [h.record.speaker for h in hits[:3]] == ["Alice"] * 3
    assert turns[1].id in {h.record.id for h in hits[:3]}  # the pottery class
    assert hits[0].prior == 2.0 and all(h.prior == 1.0 for h in hits if h.record.speaker == "Bob")
    # a query naming nobody is ranked as before
    other = "What hobby is fun?"
    a = await search(memory.store, memory.embedder, "u1", SearchRequest(query=other, k=5))
    b = await search(memory.store, memory.embedder, "u1",
                     SearchRequest(query=other, k=5, subject_prior=0.0))
    assert [h.record.id for h in a] == [h.record.id for h in b]
    assert all(h.prior == 1.0 for h in a)
