"""Clauses from the dependency parse and the learned clause selector (real spaCy model, real
local embedder, the shipped weights)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agent_memory.reasoners.extractive.embedded import embedded_clauses
from agent_memory.reasoners.extractive.parse import KINDS, clauses, parse
from agent_memory.reasoners.extractive.reference import outside_reference
from agent_memory.reasoners.extractive.select import (
    PARSE_FEATURES,
    WEIGHTS,
    candidate,
    features,
    worth,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "fact_clauses.jsonl"


def _clauses(text: str, names: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    return [(c.kind, c.text) for c in clauses(parse([text]), names)[0]]


def test_coordinated_verbs_are_separate_claims_sharing_the_subject():
    assert _clauses("I live in Boston and work as a pharmacist.") == [
        ("self", "I live in Boston"), ("self", "I work as a pharmacist")]
    assert _clauses("I'm 34 and I work as a nurse.") == [
        ("self", "I'm 34"), ("self", "I work as a nurse")]


def test_a_run_on_clause_is_split_from_the_reaction_after_it():
    assert _clauses("Last weekend I joined a chess club - it's really rewarding.") == [
        ("self", "Last weekend I joined a chess club"), ("other", "it's really rewarding")]
    # a subordinate clause stays inside its claim
    assert _clauses("When I was a kid, I loved painting.") == [
        ("self", "When I was a kid, I loved painting")]
    # punctuation inside a phrase stays whatever it is
    assert _clauses("I have $12,000 of loans at 5.8% interest.") == [
        ("self", "I have $12,000 of loans at 5.8% interest")]
    assert _clauses("I'm swamped with the kids & work.")[0][1] == "I'm swamped with the kids & work"


def test_a_consequence_opened_by_so_is_a_claim_of_its_own():
    assert _clauses("We moved to Portland in May, so the house search starts over.") == [
        ("group", "We moved to Portland in May"), ("other", "the house search starts over")]
    assert _clauses("I work nights so that I can be home with the kids.") == [
        ("self", "I work nights"), ("self", "I can be home with the kids")]
    # "so" as a degree word stays inside its clause
    assert _clauses("I was so tired that I slept all day.") == [
        ("self", "I was so tired that I slept all day")]


def test_subject_kinds_interjections_and_vocatives():
    assert _clauses("Yeah, Mel, we adopted a puppy!", frozenset({"mel"})) == [
        ("group", "we adopted a puppy")]
    assert _clauses("My daughter turned five.") == [("own", "My daughter turned five")]
    assert _clauses("Just got back from Paris!") == [("none", "Just got back from Paris")]
    assert _clauses("Check this out.")[0][0] == "other"  # an imperative
    assert _clauses("Here's one of the agencies I'm looking into.")[0][0] == "other"


def test_the_selector_keeps_facts_and_drops_chatter(local_embedder):
    texts = ["I work as a pharmacist at the clinic on Main Street", "I'm so proud of you",
             "I just did it", "My son started violin lessons in March"]
    found = [c for cs in clauses(parse(texts)) for c in cs]
    probabilities = worth(found, local_embedder.embed_sync)
    assert [p >= 0.6 for p in probabilities] == [True, False, False, True]
    rows = features(found, local_embedder.embed_sync)
    assert rows.shape == (4, 384 + len(PARSE_FEATURES))
    assert features([], local_embedder.embed_sync).shape == (0, 384 + len(PARSE_FEATURES))


def test_shipped_weights_and_data_match_the_features():
    with np.load(WEIGHTS) as data:
        assert data["coef"].shape == (384 + len(PARSE_FEATURES),)
        assert data["intercept"].shape == (1,)
    items = [json.loads(line) for line in DATA.read_text().splitlines()]
    assert len(items) >= 400 and {i["label"] for i in items} == {0, 1}
    assert all(set(i) == {"text", "label"} and i["text"].strip() for i in items)
    assert len({i["text"] for i in items}) == len(items)
    assert "kind_self" in PARSE_FEATURES and len(KINDS) == 5


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_text_gives_no_clause(text):
    assert clauses(parse([text])) == [[]]


def test_copular_clauses_and_tags_for_agreement():
    found = clauses(parse(["I'm vegetarian and we need a bigger flat."]))[0]
    assert [(c.text, c.copular) for c in found] == [
        ("I'm vegetarian", True), ("we need a bigger flat", False)]
    assert found[1].tags["need"] == "VBP"


def test_a_subjectless_gonna_is_a_plan_not_an_imperative():
    assert _clauses("Gonna volunteer at the food bank next month.") == [
        ("none", "Gonna volunteer at the food bank next month")]
    assert _clauses("Check this out.")[0][0] == "other"


def test_a_gerund_subject_about_the_speaker_is_their_own_claim():
    """"Losing my job was hard" is about the speaker although its subject is a gerund; a
    gerund about nobody in particular stays another's claim."""
    assert _clauses("Losing my job was a bummer.") == [("own", "Losing my job was a bummer")]
    assert _clauses("Marrying my partner was the best part.")[0][0] == "own"
    assert _clauses("Running every day keeps people healthy.")[0][0] == "other"


def test_a_quoted_title_keeps_both_quotation_marks():
    # the parse attaches a mark to the verb, outside the title's subtree, or after the stop
    assert _clauses('I loved "Becoming Nicole" by Amy Ellis Nutt.') == [
        ("self", 'I loved "Becoming Nicole" by Amy Ellis Nutt')]
    assert _clauses('I did a piece called "Finding Freedom."') == [
        ("self", 'I did a piece called "Finding Freedom"')]
    # a dropped vocative takes its commas along and leaves a space before an opening mark
    assert _clauses('I named him, Mel, "Max" after my grandpa.', frozenset({"mel"})) == [
        ("self", 'I named him "Max" after my grandpa')]
    # a mark whose partner lies in another clause is dropped, never left alone
    found = _clauses('"I quit my job and I moved to Oslo" is what I told my boss.')
    assert found[:2] == [("self", "I quit my job"), ("self", "I moved to Oslo")]


def test_a_clause_keeps_the_word_order_of_a_non_projective_parse():
    # "what" hangs from a verb to its right: the subtree walk alone gives "see the trail
    # looks what like"
    assert _clauses("I'm curious to see what the trail looks like.") == [
        ("self", "I'm curious to see what the trail looks like")]


def test_a_coordinated_verb_takes_the_auxiliaries_its_form_needs():
    """A base form keeps the modal, a participle the perfect "have" or passive "be", a gerund
    every auxiliary; a finite verb stands alone."""
    assert _clauses("I should start doing that, or at least write down the things I like.")[
        1] == ("self", "I should at least write down the things I like")
    assert _clauses("I've been working on my store and just teamed up with an artist.") == [
        ("self", "I've been working on my store"), ("self", "I've just teamed up with an artist")]
    assert _clauses("I was born in Ohio and raised in Texas.") == [
        ("self", "I was born in Ohio"), ("self", "I was raised in Texas")]
    assert _clauses("I'm reading a novel and hoping to finish it soon.")[1] == (
        "self", "I'm hoping to finish it soon")
    assert _clauses("I moved to Lisbon and opened a bakery.")[1] == ("self", "I opened a bakery")


def test_a_fragment_or_an_elapsed_time_has_no_subject_to_supply():
    """No one is the subject of "Oscar, my guinea pig" or of "Been a busy week": the clause
    is another's, never the speaker's; a verb the tagger reads as a noun still is."""
    assert _clauses("Oscar, my guinea pig.")[0][0] == "other"
    assert _clauses("Been a busy week since we talked.")[0][0] == "other"
    assert _clauses("Been a fan of jazz for years.")[0][0] == "none"
    # a judged event or time: "it" is left out, not the speaker
    for text in ("Been a long road, but I'm proud.", "Been quite a ride.",
                 "Gonna be a great night featuring local bands."):
        assert _clauses(text)[0][0] == "other", text
    assert _clauses("I color-code achievements so I can track my progress.")[0][0] == "none"


def test_a_claim_about_people_at_large_or_a_caption_is_not_the_speakers():
    """A noun subject makes the speaker's claim only with "I", "me" or "my" in the clause:
    "our" alone speaks of people at large; "Here's a pic I took" is a caption."""
    assert _clauses("Pets have a way of touching our hearts.")[0][0] == "other"
    assert _clauses("Here's a pic I took during my morning run.")[0][0] == "other"
    assert _clauses("Painting is a way to express my feelings.")[0][0] == "own"
    assert _clauses("Our kids love the beach.")[0][0] == "own"


def test_a_short_name_set_off_by_a_comma_is_a_vocative_and_a_percent_stays():
    assert _clauses("I 100% agree, Mel.", frozenset({"melanie"})) == [("self", "I 100% agree")]
    assert _clauses("I went hiking with Mel.", frozenset({"melanie"}))[0][1] == (
        "I went hiking with Mel")


def test_a_second_predicate_of_be_stays_in_its_clause_with_its_and():
    """A participle coordinated with the predicate of "be" is a second predicate adjective,
    not a clause ("a mix of excited and scared"), and an "and" joining words the clause keeps
    stays ("my business and some new routines")."""
    assert _clauses("I'm a mix of excited and scared to get into fashion.") == [
        ("self", "I'm a mix of excited and scared to get into fashion")]
    assert _clauses("I'm working on my business and some new dance routines.") == [
        ("self", "I'm working on my business and some new dance routines")]
    assert _clauses("I live in Boston and work as a pharmacist.") == [
        ("self", "I live in Boston"), ("self", "I work as a pharmacist")]


def test_a_subject_the_parser_coordinated_with_an_object_heads_its_own_clause():
    """The parser attaches "one" and "our big gala" to the noun before them ("three bakeries
    and one", "a swim team and our big gala"), leaving the next verb with no subject; the
    noun right before a finite verb is its subject, not the speaker."""
    assert _clauses("I called three bakeries and one offered me a trial shift!") == [
        ("self", "I called three bakeries"), ("other", "one offered me a trial shift")]
    assert _clauses("I coach a swim team and our big gala is on Saturday!") == [
        ("self", "I coach a swim team"), ("own", "our big gala is on Saturday")]
    # only the "and" right before the subject goes with it
    assert _clauses("I met Anna and Tom and his wife came later.") == [
        ("self", "I met Anna and Tom"), ("other", "his wife came later")]
    # an object coordinated with an object before "and" and a verb stays the object
    assert _clauses("I bought apples and pears and ate them.") == [
        ("self", "I bought apples and pears"), ("self", "I ate them")]


def test_a_subjectless_past_clause_opening_a_sentence_is_a_claim_of_its_own():
    """"Had a wild week, my car broke down" is two claims, the first with the speaker left out
    as in a diary; a participle opening a sentence still modifies the clause after it."""
    assert _clauses("Had a rough week, my car broke down on Friday.") == [
        ("none", "Had a rough week"), ("own", "my car broke down on Friday")]
    assert _clauses("Been having some tight games lately, we played a top team.") == [
        ("none", "Been having some tight games lately"), ("group", "we played a top team")]
    assert _clauses("Growing up, I saw how bad the roads were.") == [
        ("self", "Growing up, I saw how bad the roads were")]
    assert _clauses("Just got back from a week in Rome, it was lovely.")[0] == (
        "none", "Just got back from a week in Rome")  # after an adverb too
    assert _clauses("Badly hurt in the crash, my brother spent a week in hospital.")[0][0] == (
        "own")  # a participle after an adverb still modifies the clause after it


def test_a_clause_joined_inside_a_condition_stays_in_it():
    """"and" inside an "if" clause is part of the condition; inside a "because" clause a
    clause with its own subject is a remark of its own."""
    assert _clauses("I'll buy the house if the bank approves the loan and we sell our flat.") == [
        ("self", "I'll buy the house if the bank approves the loan and we sell our flat")]
    assert _clauses("I'm opening a bakery 'cause I love baking and it'd be fun to share it.") == [
        ("self", "I'm opening a bakery 'cause I love baking"),
        ("other", "it'd be fun to share it")]


def test_an_inverted_so_does_takes_no_subject_from_the_clause_before():
    """"Art frees me, but so does running": "does" is no second verb of "Art"."""
    for text in ("Music gives me real calm, but so does hiking with friends.",
                 "Music gives me real calm, but so does having good people nearby."):
        assert _clauses(text) == [("own", "Music gives me real calm")], text


def test_a_spoken_indefinite_this_is_written_as_an_article():
    """"this amazing woman" introduces someone new ("a"); a bare "this band" points back and
    stays, as do a time ("this past week") and "this" before a word that points ("this next
    game")."""
    assert _clauses("Yesterday I met this amazing woman who runs a bakery.") == [
        ("self", "Yesterday I met an amazing woman who runs a bakery")]
    assert _clauses("We found these old letters in the attic.")[0][1] == (
        "We found some old letters in the attic")
    assert _clauses("I love this band.")[0][1] == "I love this band"
    assert _clauses("I'm nervous about this next game.")[0][1] == (
        "I'm nervous about this next game")
    assert _clauses("I ran three races this past week.")[0][1] == (
        "I ran three races this past week")
    assert _clauses("I've learned all these new tools at work.")[0][1] == (
        "I've learned all these new tools at work")  # "all these": ones in view, not new


def pointing(text: str, subject: str | None = "Tim") -> str | None:
    return outside_reference(parse([text])[0], subject)


def test_words_that_point_outside_a_fact():
    assert pointing("Tim is a huge fan of this band.") == "this"
    assert pointing("Tim sold those shoes.") == "those"
    assert pointing("A friend made it for Tim's birthday.") == "it"  # a friend is no antecedent
    assert pointing("Her advocacy inspires Tim.") == "Her"
    assert pointing("Tim's favorite one is the blue one.") == "one"
    assert pointing("Tim baked a cake with berries on it.") is None  # the cake
    assert pointing("It's been a long week for Tim.") is None  # a dummy subject
    assert pointing("It's important to Tim to stay fit.") is None
    assert pointing("Tim met his sister in Rome.") is None  # his after Tim
    assert pointing("Ana lives in Porto with her two cats.", None) is None
    assert pointing("Tim worked late that day.") is None  # a time
    assert pointing("Tim owns a car that runs on biodiesel.") is None  # a relative "that"
    assert pointing("Tim would like to retire by 60 if that's realistic.") is None
    assert pointing("That was the best part for Tim.") == "That"
    assert pointing("Their support helped Tim through a hard year.") == "Their"
    assert pointing("Tim loves their new flat.") is None  # the singular "they" of Tim
    assert pointing("So Tim can enjoy the games.") == "So"
    assert pointing("So far Tim has saved $3,000.") is None


def test_a_past_form_the_tagger_read_as_a_base_form_opens_a_diary_clause():
    assert _clauses("Lost my wallet at the station, so I'm getting a new card.") == [
        ("none", "Lost my wallet at the station"), ("self", "I'm getting a new card")]
    assert _clauses("Stop worrying, it's fine.")[0][0] == "other"  # an imperative stays one
    [diary, _] = clauses(parse(["Lost my wallet at the station, so I'm getting a new card."]))[0]
    assert diary.tags["lost"] == "VBD"  # rewritten "Sam lost ...", not "Sam losts ..."


def test_it_for_the_clause_before_stands_alone():
    assert pointing("Priya sold everything in 2020 and regretted it.", "Priya") is None
    assert pointing("Priya regretted it.", "Priya") == "it"
    assert pointing("Priya wants to raise it to 6%.", "Priya") == "it"
    # in the object clause of the main verb, "it" cannot stand for that verb's clause
    assert pointing("Jon is hoping it'll give him tips for his studio.", "Jon") == "it"
    assert pointing("Tim wants to retire early and thinks it is doable.", "Tim") is None


def _embedded(text: str) -> list[tuple[str, str]]:
    doc = parse([text])[0]
    return [(c.kind, c.text) for c in embedded_clauses(doc, clauses([doc])[0])]


def test_a_relative_clause_of_the_speaker_is_their_claim():
    """The noun a relative clause of "I"/"we" describes fills its object gap."""
    assert _embedded("Here's the birdhouse I built last spring.") == [
        ("self", "I built the birdhouse last spring")]
    assert _embedded("Look at these old maps I found in the attic!") == [
        ("self", "I found some old maps in the attic")]  # the spoken indefinite
    assert _embedded("It reminds me of a cabin we rented in Maine.") == [
        ("group", "we rented a cabin in Maine")]
    assert _embedded("That's the clinic I'm applying to.") == [  # a stranded preposition
        ("self", "I'm applying to the clinic")]
    assert _embedded("Those are the books I've read and loved.") == [
        ("self", "I've read the books")]  # no dangling "and loved"
    assert _embedded("It's a reminder of all the hills I had to climb last year.") == [
        ("self", "I had to climb all the hills last year")]  # the infinitive's object
    doc = parse(["Those are the Swiss cheeses I bought in Bern."])[0]
    (cheeses,) = embedded_clauses(doc, clauses([doc])[0])
    assert "NORP" in cheeses.entities  # the noun phrase moved after the verb keeps its names
    assert _embedded("Check out the bowls I made and the vase.") == [
        ("self", "I made the bowls")]  # not the coordinated vase
    assert _embedded("Here's the project I'm working on.") == [
        ("self", "I'm working on the project")]  # a particle takes the noun back too
    assert _embedded("Check out this tiny market we stumbled on this morning!") == [
        ("group", "we stumbled on a tiny market this morning")]  # a time is no object
    assert _embedded("Check out this tiny market we stumbled on on the morning of 3 May 2024!"
                     ) == [("group", "we stumbled on a tiny market on the morning of 3 May 2024")]
    assert _embedded("This sketch shows a canoe trip I took in 2022.") == [
        ("self", "I took a canoe trip in 2022")]  # a date of its own preposition stays after
    assert _embedded("This book I read in 2022 reminds me to follow my dreams.") == [
        ("self", "I read a book in 2022")]  # the spoken indefinite, no longer opening
    assert _embedded("Those are the boots I bought on 21 October 2023.") == [
        ("self", "I bought the boots on 21 October 2023")]
    # no gap, a caption, or a sentence whose main clause is the speaker's already
    for text in ("It was one of those nights where I felt at peace.",
                 "Remember the summer we drove to Maine!", "It was the reason we moved to Ohio.",
                 "Look at the house in which I grew up.", "Not the ending I expected.",
                 "Here's a photo I took at the lake.", "I loved the cake I made."):
        assert _embedded(text) == [], text


def test_the_content_clause_of_it_is_a_shame_is_no_relative_clause():
    for text in ("It's a shame that I lost.", "It was such a relief that we made it.",
                 "That's a pity that I missed."):
        assert _embedded(text) == [], text  # not "I lost a shame"
    assert _embedded("It's a gift that I treasure.") == [("self", "I treasure a gift")]


def test_a_presented_possession_of_the_speaker_is_what_they_have():
    assert _embedded("These are my hiking boots.") == [("self", "I have hiking boots")]
    assert _embedded("This is my favorite spot, a bench by the river.") == [
        ("self", "I have a favorite spot, a bench by the river")]
    assert _embedded("This was my first car.") == []  # once owned, not a possession now
    for text in ("These aren't my hiking boots.", "This is my first time in Japan.",
                 "That's my old neighborhood.", "This is my favorite one."):
        assert _embedded(text) == [], text
    assert _embedded("These are my kids who I adore.") == [  # said once, by the relative
        ("self", "I adore my kids")]
    assert _embedded("This is my friend's ring.") == []  # not the speaker's


def test_a_claim_of_the_speaker_needs_no_noun_when_its_verb_says_it():
    """ "I swam competitively for years" is a fact with no noun; a reaction is not."""
    def first(text: str):
        return clauses(parse([text]))[0][0]

    assert candidate(first("I swam competitively for years."))
    assert candidate(first("I retired early."))
    for text in ("I agree completely.", "I really love it.", "I can relate."):
        assert not candidate(first(text)), text
    assert not candidate(first("They retired early."))  # someone else's claim


def test_focus_adverbs_that_point_back_are_left_out():
    """"too", "also", "even" and "as well" add the claim to something said before; the fact
    stands alone without them, and a comma after one stays."""
    assert _clauses("I've been learning the guitar too.") == [
        ("self", "I've been learning the guitar")]
    assert _clauses("I also run a small bakery.") == [("self", "I run a small bakery")]
    assert _clauses("I even found a flat near the river.") == [
        ("self", "I found a flat near the river")]
    assert _clauses("I volunteer at the shelter as well.") == [
        ("self", "I volunteer at the shelter")]
    assert _clauses("I'm getting fitter too, just walking every day.") == [
        ("self", "I'm getting fitter, just walking every day")]
    # not when they qualify another word, nor when the clause needs "too" for its sense
    assert _clauses("I have too much homework.") == [("self", "I have too much homework")]
    assert ("own", "my daughter is allergic too") in _clauses(
        "I'm allergic to peanuts, and my daughter is allergic too.")
    assert _clauses("I was even more nervous at the second interview.") == [
        ("self", "I was even more nervous at the second interview")]


def test_a_command_to_the_listener_after_a_comma_is_not_the_speakers_claim():
    def claims(text: str) -> list[tuple[str, str]]:
        return [c for c in _clauses(text) if c[0] != "other"]

    assert claims("I made a cake, check it out!") == [("self", "I made a cake")]
    assert claims("I made a quilt for my niece, check it out!") == [
        ("self", "I made a quilt for my niece")]
    assert claims("I've finished a watercolour too, take a look!") == [
        ("self", "I've finished a watercolour")]
    # a bare verb that asks nothing of the listener is the speaker's next verb
    kept = " ".join(t for kind, t in claims(
        "I quit my job, moved to Spain, start teaching next month."))
    assert "start teaching next month" in kept, kept
    # after a present verb, a base form is the next verb of a list
    for text, verbs in (("We bake bread, sing songs and play cards.", ("sing", "play")),
                        ("We roast chestnuts, tell stories by the stove and just relax.",
                         ("tell stories", "relax"))):
        kept = " ".join(t for kind, t in _clauses(text) if kind == "group")
        assert all(verb in kept for verb in verbs), kept


def test_a_subordinate_clause_standing_alone_is_no_claim():
    """The answer "Since I was twelve or so." to "How long have you played?" says nothing
    on its own; a subordinate clause before its main clause stays in the claim."""
    assert _clauses("Since I was twelve or so.") == [("other", "Since I was twelve or so")]
    assert _clauses("Because I love the ocean.")[0][0] == "other"
    assert _clauses("When I was a kid, I loved drawing maps.") == [
        ("self", "When I was a kid, I loved drawing maps")]
