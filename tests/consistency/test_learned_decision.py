"""The learned pair decision: the shipped model, the held-out written pairs, and a move that
retires the old residence but not the job (real local embedder and WordNet)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import numpy as np
import pytest

from agent_memory.eval.reconcile_pairs import written_pairs
from agent_memory.models import Fact
from agent_memory.reasoners.extractive.reconcile import (
    CANDIDATE_COSINE,
    FEATURES,
    MODEL_PATH,
    PairModel,
    default_model,
    is_candidate,
    pair_matrix,
    reconcile_facts,
)

from .conftest import relation


def _fact(fid: str, text: str, when: datetime, subject: str = "Kai") -> Fact:
    return Fact(id=fid, user_id="u", content=text, subject=subject, created_at=when)


def test_the_shipped_model_reads_as_probabilities() -> None:
    model = default_model()
    x = np.random.default_rng(0).normal(size=(5, len(FEATURES)))
    p = model.probabilities(x)
    assert p.shape == (5, 3) and np.allclose(p.sum(axis=1), 1.0) and (p >= 0).all()
    assert 1 / 3 < model.thresholds["duplicate"] <= 1
    assert 1 / 3 < model.thresholds["contradiction"] <= 1
    params = json.loads(MODEL_PATH.read_text())
    with pytest.raises(ValueError, match="other features"):
        PairModel({**params, "features": params["features"][:-1]})


def test_a_move_retires_the_old_residence_and_not_the_job(local_embedder, attributes,
                                                          lexicon) -> None:
    january, june = datetime(2024, 1, 15, tzinfo=UTC), datetime(2025, 6, 20, tzinfo=UTC)
    facts = [_fact("home", "Kai lives in Boston.", january),
             _fact("job", "Kai works as a pharmacist.", january),
             _fact("move", "Kai moved to Portland in May.", june)]
    vectors = local_embedder.embed_sync([f.content for f in facts])
    decision = reconcile_facts(facts, vectors, attributes=attributes, lexicon=lexicon)
    pairs = {frozenset((c.first_id, c.second_id)) for c in decision.contradictions}
    assert pairs == {frozenset(("home", "move"))}
    assert not decision.duplicates


def test_another_persons_fact_is_never_compared(local_embedder, attributes) -> None:
    when = datetime(2024, 1, 1, tzinfo=UTC)
    facts = [_fact("a", "Wen lives in Toronto.", when, "Wen"),
             _fact("b", "Wen's brother lives in Vancouver.", when.replace(month=5), "Wen")]
    decision = reconcile_facts(facts, local_embedder.embed_sync([f.content for f in facts]),
                               attributes=attributes)
    assert not decision.contradictions and not decision.duplicates


def test_held_out_pairs_are_decided_with_precision(local_embedder, attributes,
                                                     lexicon) -> None:
    """On the held-out written pairs (people never seen in training or tuning): duplicate and
    contradiction precision at least 0.9, and at most one pair labelled otherwise merged in
    about 240 (the shipped model merges one; docs/consistency.md)."""
    pairs = written_pairs(split="heldout")
    if len(pairs) < 50:
        pytest.skip("fewer than 50 held-out written pairs in data/")
    texts = [t for p in pairs for t in (p.a.text, p.b.text)]
    vectors = local_embedder.embed_sync(texts)
    guesses = []
    for k, pair in enumerate(pairs):
        facts = [Fact(id=s, user_id="u", content=side.text, subject=side.subject,
                      created_at=side.created_at) for s, side in (("a", pair.a), ("b", pair.b))]
        decision = reconcile_facts(facts, vectors[2 * k: 2 * k + 2], attributes=attributes,
                                   lexicon=lexicon)
        guesses.append("contradiction" if decision.contradictions
                       else "duplicate" if decision.duplicates else "unrelated")
    labels = [p.label for p in pairs]
    for label in ("duplicate", "contradiction"):
        called = [y for y, g in zip(labels, guesses, strict=True) if g == label]
        assert called, f"no pair called {label}"
        assert sum(y == label for y in called) / len(called) >= 0.9, label
    merged = [y for y, g in zip(labels, guesses, strict=True)
              if g == "duplicate" and y != "duplicate"]
    assert len(merged) <= 1


def test_facts_about_different_things_are_never_contradictions(local_embedder, attributes,
                                                               lexicon) -> None:
    """Reconciliation compares every two facts of a person: a later fact about something else
    retires nothing (candidate selection), while a changed budget still replaces the old."""
    march, june = datetime(2025, 3, 4, tzinfo=UTC), datetime(2025, 6, 2, tzinfo=UTC)
    facts = [_fact("nervous", "Priya gets nervous when markets drop.", march, "Priya"),
             _fact("retire", "Priya would like to retire by 60.", march, "Priya"),
             _fact("budget", "Priya's budget for the house is $350,000.", march, "Priya"),
             _fact("home", "Priya and her husband want to buy their first home in about three "
                   "years.", march, "Priya"),
             _fact("saved", "Priya and her husband have saved $28,000 so far.", march, "Priya"),
             _fact("moved", "Priya moved to Portland in May.", june, "Priya"),
             _fact("email", "Priya prefers a short email summary after each meeting.", june,
                   "Priya"),
             _fact("budget2", "Priya's budget for the house is now $480,000.", june, "Priya")]
    decision = reconcile_facts(facts, local_embedder.embed_sync([f.content for f in facts]),
                               attributes=attributes, lexicon=lexicon)
    pairs = {frozenset((c.first_id, c.second_id)) for c in decision.contradictions}
    assert pairs == {frozenset(("budget", "budget2"))}


def test_a_shared_word_makes_a_candidate_below_the_cosine(local_embedder, attributes,
                                                          lexicon) -> None:
    """Predicates far apart by embedding but sharing a content word ("major") may contradict;
    without a shared word, the same low cosine keeps the pair out."""
    march, june = datetime(2024, 3, 1, tzinfo=UTC), datetime(2024, 9, 1, tzinfo=UTC)
    facts = [_fact("a", "Caspian is majoring in economics.", march, "Caspian"),
             _fact("b", "Caspian switched his major to computer science.", june, "Caspian"),
             _fact("c", "Caspian plays the cello.", june, "Caspian")]
    vectors = local_embedder.embed_sync([f.content for f in facts])
    x = pair_matrix(facts, vectors, [(0, 1), (0, 2)], attributes=attributes, lexicon=lexicon)
    predicate, jaccard = FEATURES.index("predicate_cos"), FEATURES.index("term_jaccard")
    assert x[0, predicate] < CANDIDATE_COSINE < 1 and x[0, jaccard] > 0
    assert is_candidate(x[0])
    assert x[1, predicate] < CANDIDATE_COSINE and x[1, jaccard] == 0
    assert not is_candidate(x[1])


def test_the_graded_attribute_is_the_weaker_sides_prototype_cosine(local_embedder,
                                                                    attributes) -> None:
    when = datetime(2024, 1, 1, tzinfo=UTC)
    texts = ["Hana works as an accountant.", "Hana is a lawyer.", "Hana likes jazz."]
    facts = [_fact(str(k), t, when.replace(month=k + 1), "Hana") for k, t in enumerate(texts)]
    x = pair_matrix(facts, local_embedder.embed_sync(texts), [(0, 1), (0, 2)],
                    attributes=attributes, lexicon=None)
    shared = x[:, FEATURES.index("attribute_shared")]
    scores = attributes.scores(local_embedder.embed_sync(
        ["works as an accountant", "is a lawyer", "likes jazz"]))
    assert shared[0] == pytest.approx(float(np.minimum(scores[0], scores[1]).max()), abs=1e-5)
    assert shared[0] > shared[1] > 0
    assert pair_matrix(facts, None, [(0, 1)], attributes=None,
                       lexicon=None)[0, FEATURES.index("attribute_shared")] == 0


def test_an_event_that_changes_nothing_needs_more_to_retire_a_state(local_embedder, attributes,
                                                                    lexicon) -> None:
    """A state, then an event in which nothing reads as a change (no ending, other value,
    denial, plan carried out), must pass STATE_EVENT_THRESHOLD, not the contradiction threshold
    alone: "volunteers at the food bank" holds beside "volunteered at the food bank on
    Saturday" (the model's P(contradiction) is between the two); "lives in Leeds" does not
    beside "moved to York"."""
    from agent_memory.reasoners.extractive.reconcile import (
        STATE_EVENT_THRESHOLD,
        decide_rows,
        unchanged_by_event,
    )

    march, june = datetime(2024, 3, 1, tzinfo=UTC), datetime(2024, 9, 1, tzinfo=UTC)
    facts = [_fact("bank", "Rosa volunteers at the food bank.", march, "Rosa"),
             _fact("saturday", "Rosa volunteered at the food bank on Saturday.", june, "Rosa"),
             _fact("home", "Rosa lives in Leeds.", march, "Rosa"),
             _fact("moved", "Rosa moved to York.", june, "Rosa")]
    vectors = local_embedder.embed_sync([f.content for f in facts])
    x = pair_matrix(facts, vectors, [(0, 1), (2, 3)], attributes=attributes, lexicon=lexicon)
    assert unchanged_by_event(x[0]) and not unchanged_by_event(x[1])
    assert is_candidate(x[0]) and is_candidate(x[1])
    model = default_model()
    assert model.thresholds["contradiction"] < STATE_EVENT_THRESHOLD
    between = (model.thresholds["contradiction"] + STATE_EVENT_THRESHOLD) / 2
    probs = np.array([[0.0, between, 1 - between]] * 2)
    assert list(decide_rows(probs, x, **model.thresholds)) == ["unrelated", "contradiction"]
    sure = np.array([[0.0, 0.95, 0.05]] * 2)
    assert list(decide_rows(sure, x, **model.thresholds)) == ["contradiction"] * 2
    decision = reconcile_facts(facts, vectors, attributes=attributes, lexicon=lexicon)
    retired = {c.first_id for c in decision.contradictions}
    assert "home" in retired and "bank" not in retired
    assert not decision.duplicates


@pytest.mark.parametrize(("older", "newer", "expected"), [
    # a death ends the present states of the one who died, whatever the words
    ("Dana's cat Miso is 14.", "Dana's cat Miso died on Sunday 10 March 2024.", "contradiction"),
    ("Dana's dad lives in a flat in Hull.", "Dana's dad passed away in May.", "contradiction"),
    ("Dana's dog Rex sleeps on the sofa.", "Dana's dog Rex was put down in June.",
     "contradiction"),
    # not what happened before it, another one's death, nor a name left open
    ("Dana's cat Miso was a stray.", "Dana's cat Miso died in March.", "unrelated"),
    ("Dana's dad taught Dana to fish.", "Dana's dad passed away in May.", "unrelated"),
    ("Dana's cat Miso is 14.", "Dana's cat Pip died in March.", "unrelated"),
    ("Dana's gran Ivy lives in Hull.", "Dana's gran passed away in May.", "unrelated"),
    ("Dana works as a nurse.", "Dana died her hair blue.", "unrelated"),
    # a birth ends the pregnancy, told of the mother or of the baby, and a wedding the
    # engagement
    ("Dana's wife Mia is pregnant.", "Dana's son Leo was born on 2 May 2024.", "contradiction"),
    ("Dana is seven months pregnant.", "Dana gave birth to a girl in June.", "contradiction"),
    ("Dana's sister Ivy is expecting a baby.", "Dana's nephew Finn was born in May.",
     "contradiction"),
    ("Dana's daughter Zoe is pregnant.", "Dana became a grandmother in May.", "contradiction"),
    ("Dana is engaged to Sam.", "Dana married Sam in Leeds in June.", "contradiction"),
    # not another one's baby, not a past pregnancy, not two past events
    ("Dana's wife Mia is pregnant.", "Dana's cousin had twins in May.", "unrelated"),
    ("Dana's wife Mia is pregnant.", "Dana's nephew Finn was born in May.", "unrelated"),
    ("Dana found out she was pregnant in March.", "Dana gave birth to a girl in June.",
     "unrelated"),
    ("Dana got engaged to Sam in 2022.", "Dana married Sam in Leeds in June.", "unrelated"),
    ("Dana is expecting a promotion.", "Dana's son Leo was born in May.", "unrelated"),
    # stopping what one dislikes ends nothing; ending the dislike does
    ("Dana hates running.", "Dana has stopped running.", "unrelated"),
    ("Dana can't stand golf.", "Dana gave up golf in 2023.", "unrelated"),
    ("Dana dislikes driving.", "Dana quit driving after the crash.", "unrelated"),
    ("Dana hates sushi.", "Dana no longer hates sushi.", "contradiction"),
    # words of dying that tell no death, deaths of what lasts, births and weddings of others
    ("Dana works as a nurse.", "Dana died laughing at the comedy show.", "unrelated"),
    ("Dana lives in Leeds.", "Dana put down roots in Leeds.", "unrelated"),
    ("Dana's baby Leo sleeps in a crib.", "Dana's baby Leo was put down for a nap.",
     "unrelated"),
    ("Dana's Tesla is red.", "Dana's Tesla died on the motorway.", "unrelated"),
    ("Dana's mother is from Poland.", "Dana's mother passed away in May.", "unrelated"),
    ("Dana's cousin lives in Hull.", "Dana's cousin died in a car crash.", "unrelated"),
    ("Dana is engaged to Sam.", "Dana is not married.", "unrelated"),
    ("Dana is engaged to Sam.", "Dana plans to get married in June 2025.", "unrelated"),
    ("Dana is engaged to Sam.", "Dana's friends got married in June.", "unrelated"),
    ("Dana is engaged in research on bees.", "Dana married Sam in June.", "unrelated"),
    ("Dana is pregnant.", "Dana had a baby shower last weekend.", "unrelated"),
    ("Dana is trying to get pregnant.", "Dana's son Leo was born in May.", "unrelated"),
    ("Dana's wife Mia is pregnant.", "Dana's hairdresser's baby was born in May.",
     "unrelated"),
    ("Dana's friend Sara is pregnant.", "Dana's friend Kim gave birth in May.", "unrelated"),
    ("Dana's wife is pregnant.", "Dana became a mother when she adopted Ava.", "unrelated"),
])
def test_a_death_birth_or_wedding_ends_what_it_ends(local_embedder, attributes, lexicon,
                                                    older: str, newer: str,
                                                    expected: str) -> None:
    assert relation(local_embedder, attributes, older, newer, "Dana", lexicon) == expected


def test_a_death_said_before_the_state_is_not_read_as_its_end(local_embedder,
                                                              attributes) -> None:
    """Only a later death ends a state: read the other way round, or at the same time, the
    pair is left to the learned decision (its rationale gives a probability, not the
    death)."""
    march, may = datetime(2024, 3, 1, tzinfo=UTC), datetime(2024, 5, 1, tzinfo=UTC)
    for died_at, state_at in ((march, may), (march, march)):
        facts = [_fact("died", "Kai's cat Miso died in March.", died_at),
                 _fact("age", "Kai's cat Miso is 14.", state_at)]
        decision = reconcile_facts(facts, local_embedder.embed_sync([f.content for f in facts]),
                                   attributes=attributes)
        assert not any("the subject died" in c.rationale for c in decision.contradictions)


def test_a_birth_from_before_the_pregnancy_ends_nothing(local_embedder, attributes) -> None:
    """The event must follow the state: a son born in 2019, told after a pregnancy told in
    2024, ends neither (the consistency layer would otherwise retire the older-dated birth)."""
    told, later = datetime(2024, 3, 1, tzinfo=UTC), datetime(2024, 4, 1, tzinfo=UTC)
    facts = [Fact(id="pregnant", user_id="u", content="Kai's wife Mia is pregnant.",
                  subject="Kai", created_at=told, valid_from=told),
             Fact(id="born", user_id="u", content="Kai's son Leo was born in 2019.",
                  subject="Kai", created_at=later,
                  valid_from=datetime(2019, 1, 1, tzinfo=UTC))]
    decision = reconcile_facts(facts, local_embedder.embed_sync([f.content for f in facts]),
                               attributes=attributes)
    assert not decision.contradictions


@pytest.mark.parametrize(("older", "newer", "expected"), [
    # a named relative or pet changes as the person does: the verb after the name is read
    ("Dana's son Oliver lives in Leeds.", "Dana's son Oliver moved to York in May.",
     "contradiction"),
    ("Dana's sister Ivy works at a bakery.", "Dana's sister Ivy quit her job at the bakery.",
     "contradiction"),
    ("Dana's wife Mia works as a nurse.", "Dana's wife Mia retired from nursing in 2024.",
     "contradiction"),
    ("Dana's son Oliver plays the violin.", "Dana's son Oliver gave up the violin.",
     "contradiction"),
    # a verb and a capitalised object are no name: the change is still read
    ("Dana's sister works at Google.", "Dana's sister quit Google to travel the world.",
     "contradiction"),
    ("Dana's husband loves Italian food.", "Dana's husband hates Italian food.",
     "contradiction"),
])
def test_a_named_relative_changes_as_a_person_does(local_embedder, attributes, lexicon,
                                                   older: str, newer: str,
                                                   expected: str) -> None:
    assert relation(local_embedder, attributes, older, newer, "Dana", lexicon) == expected
