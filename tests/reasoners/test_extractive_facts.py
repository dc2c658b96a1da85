"""Self-disclosure fact extraction of the extractive reasoner."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent_memory.errors import ModelUnavailableError
from agent_memory.models import Turn
from agent_memory.reasoners.base import FactExtraction
from agent_memory.reasoners.extractive import ExtractiveReasoner
from agent_memory.reasoners.extractive.facts import (
    CENTRALITY,
    categorize,
    extract_facts,
    salience,
    score_importance,
    to_third_person,
)
from agent_memory.reasoners.extractive.person import Speaker

LOCOMO = Path(__file__).resolve().parents[2] / "../shared/datasets/locomo/locomo_dev.json"
WHEN = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def turn(text: str, speaker: str | None = "Caroline", role: str = "user",
         turn_id: str = "t1", when: datetime = WHEN) -> Turn:
    return Turn(id=turn_id, user_id="u1", thread_id="th1", role=role, speaker=speaker,
                content=text, created_at=when)


def texts(*turns: Turn) -> list[str]:
    return [f.text for f in extract_facts(turns).facts]


def locomo_session(sample_id: str, session: int) -> list[Turn]:
    """Turns of one LoCoMo session, stamped with the session date (skips without the data)."""
    if not LOCOMO.exists():
        pytest.skip(f"LoCoMo dev set not found at {LOCOMO}")
    sample = next(s for s in json.loads(LOCOMO.read_text()) if s["sample_id"] == sample_id)
    conversation = sample["conversation"]
    stamp = datetime.strptime(
        conversation[f"session_{session}_date_time"], "%I:%M %p on %d %B, %Y"
    ).replace(tzinfo=UTC)
    turns = []
    for seq, raw in enumerate(conversation[f"session_{session}"]):
        content = raw["text"]
        if raw.get("blip_caption"):
            content = f"{content} [image: {raw['blip_caption']}]"
        turns.append(Turn(id=raw["dia_id"], user_id=sample_id, thread_id=f"session_{session}",
                          role="user", speaker=raw["speaker"], content=content,
                          created_at=stamp, seq=seq))
    return turns


# --- rewriting -------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I am a nurse", "Caroline is a nurse"),
        ("I'm keen on counseling", "Caroline is keen on counseling"),
        ("I have two cats", "Caroline has two cats"),
        ("I've been painting", "Caroline has been painting"),
        ("I love hiking", "Caroline loves hiking"),
        ("I really love hiking", "Caroline really loves hiking"),
        ("I kind of like jazz", "Caroline kind of likes jazz"),
        ("I was tired", "Caroline was tired"),
        ("I went home", "Caroline went home"),
        ("I finished the race", "Caroline finished the race"),
        ("I can swim", "Caroline can swim"),
        ("I don't eat meat", "Caroline doesn't eat meat"),
        ("I go to church", "Caroline goes to church"),
        ("I watch movies", "Caroline watches movies"),
        ("I try my best", "Caroline tries their best"),
        ("I'd love to travel", "Caroline would love to travel"),
        ("I'd been there before", "Caroline had been there before"),
        ("I'll start soon", "Caroline will start soon"),
        ("My dog is old", "Caroline's dog is old"),
        ("That book is mine", "That book is Caroline's"),
        ("It made me proud of myself", "It made Caroline proud of themself"),
        ("We took my kids camping", "Caroline and family took their kids camping"),
        # "we" is the speaker with the people named, or with no family of theirs named
        ("We went camping with my kids", "Caroline went camping with their kids"),
        ("We went camping with the kids", "Caroline went camping with the kids"),
        ("We saved a family from a fire", "Caroline saved a family from a fire"),
        ("We're moving and our house is sold",
         "Caroline is moving and their house is sold"),  # never "and others"
        ("Our kids love it and it makes us happy",
         "Caroline's kids love it and it makes Caroline and family happy"),
        ("I moved to the US", "Caroline moved to the US"),
        ("i went out", "Caroline went out"),
        ("I take some me-time", "Caroline takes some me-time"),  # a hyphenated word is one
        ("What can I say, I love it", "What can Caroline say, Caroline loves it"),  # inverted
    ],
)
def test_third_person_rewriting(sentence: str, expected: str) -> None:
    assert to_third_person(sentence, "Caroline") == expected


def test_unnamed_speakers_are_the_user_or_the_assistant() -> None:
    user = extract_facts([turn("I work as a nurse at the city hospital.", speaker=None)])
    assert user.facts[0].text == "The user works as a nurse at the city hospital."
    assert user.facts[0].subject == "The user"
    inside = to_third_person("Yesterday I sold my car", "The user")
    assert inside == "Yesterday the user sold their car"
    bot = extract_facts([turn("I was trained on many public documents.", speaker=None,
                              role="assistant")])
    assert bot.facts == []  # the memory is about the user, never the assistant


def test_brief_example_with_resolved_date() -> None:
    facts = extract_facts([turn("I went to a LGBTQ support group yesterday and it was so powerful.",
                                turn_id="D1:3")]).facts
    assert len(facts) == 1
    fact = facts[0]
    # the claim, not the reaction clause coordinated with it
    assert fact.text == "Caroline went to a LGBTQ support group on 7 May 2023."
    assert fact.subject == "Caroline"
    assert fact.occurred_at == "2023-05-07"
    assert fact.evidence == ["D1:3"]


def test_interjections_vocatives_and_subjectless_openings() -> None:
    facts = texts(
        turn("Yeah, Mel, I painted that lake sunrise last year!", speaker="Melanie"),
        turn("Gonna continue my edu and check out career options.", turn_id="t2"),
        turn("Just got back from a long trip to Spain.", turn_id="t3", speaker="Jon"),
        turn("On another note, I just adopted a pup from a shelter.", turn_id="t4"),
        turn("Speaking of special moments, I just left for a vacation in Portugal.",
             turn_id="t5", speaker="Jon"),
        turn("FYI, I finished another pottery project for my aunt.", turn_id="t6"),
        turn("What can I say, I love turtles and I keep three of them.", turn_id="t7"),
    )
    assert facts == [
        "Melanie painted that lake sunrise in 2022.",
        "Caroline is going to continue their edu and check out career options.",
        "Jon just got back from a long trip to Spain.",
        "Caroline just adopted a pup from a shelter.",
        "Jon just left for a vacation in Portugal.",
        "Caroline finished another pottery project for their aunt.",
        "Caroline loves turtles.",
        "Caroline keeps three of them.",
    ]


def test_a_sentence_in_the_past_with_its_speaker_left_out_is_the_speakers_claim() -> None:
    """A sentence of its own that opens with a verb in the past, with no "I" anywhere ("Took
    the kids to the coast last weekend."), is the speaker's news with the subject left out,
    as in a diary; it is read as the speaker's claim, dated, like "Just got back ..."."""
    facts = texts(
        turn("Busy few days here. Started a pottery class last week to take my mind off work.",
             speaker="Jon"),
        turn("Took the kids to the coast last weekend. The weather was perfect.", turn_id="t2",
             speaker="Jon"),
    )
    assert facts[0].startswith("Jon started a pottery class the week before 8 May 2023")
    assert any(f.startswith("Jon took the kids to the coast") for f in facts[1:]), facts
    # a past verb whose left-out subject is "it", or a participle, is not the speaker's act
    assert texts(turn("Looked like a fun time at the beach.", speaker="Jon"),
                 turn("Happened at the concert last year.", turn_id="t2", speaker="Jon"),
                 turn("Based in Ohio these days.", turn_id="t3", speaker="Jon"),
                 turn("Went to Lisbon last week.", turn_id="t4", speaker="Jon")) == [
        "Jon went to Lisbon the week before 8 May 2023."]
    # a gerund heading a sentence of its own is what the speaker is doing; not as a subject
    assert texts(turn("Finishing up a mural for the library next month.", speaker="Jon"),
                 turn("Searching for the perfect studio's a tough job.", turn_id="t2"),
                 turn("Going to the beach sounds fun.", turn_id="t3")) == [
        "Jon is finishing up a mural for the library in June 2023."]


def test_a_clause_joined_to_a_reason_is_not_part_of_the_reason() -> None:
    """ "and it'd be fun to feed the whole street" hangs on the "'cause" clause in the parse; it
    is a remark of its own, so the reason before it keeps its fact, with "'cause" written out."""
    assert texts(turn("Sorry to hear that! I'm opening a bakery 'cause I'm passionate about "
                      "baking and it'd be fun to feed the whole street.", speaker="Jon")) == [
        "Jon is opening a bakery because they are passionate about baking."]


def test_a_fragment_about_a_thing_is_not_given_the_speaker_as_subject() -> None:
    """A subjectless fragment with no verb ("Nearly as funny as when ...", "Woah, that photo's
    from ...") says how something is; the speaker is not made its subject, while "So excited
    for ..." and "Gonna ..." are the speaker's; "not gonna" is written out too."""
    facts = texts(
        turn("Nearly as funny as when I tried to ride a camel!", speaker="Jon"),
        turn("Woah, that photo's from when my choir won a regional contest.",
             speaker="Jon", turn_id="t2"),
        turn("So excited for my trip to Lisbon next week!", speaker="Jon", turn_id="t3"),
        turn("I'm not gonna quit my choir.", speaker="Jon", turn_id="t4"),
    )
    assert facts == ["Jon is excited for their trip to Lisbon the week after 8 May 2023.",
                     "Jon is not going to quit their choir."]


def test_a_claim_with_one_content_word_and_a_noun_is_a_candidate() -> None:
    """"I'm doing kickboxing", "We made pizza": one content word, but a thing named; a verb
    in -s with its subject left out ("Sounds like a fun trip") is not the speaker's."""
    assert texts(turn("I'm doing kickboxing.", speaker="John"),
                 turn("Sounds like a fun trip.", turn_id="t2", speaker="John")) == [
        "John is doing kickboxing."]


def test_a_percentage_is_content_as_an_amount_not_as_a_degree() -> None:
    """"I saved 20% of my pay" says how much was saved; in "I 100% agree" the percentage
    only says how strongly (the clause names nothing)."""
    assert texts(turn("I saved 20% of my pay last month.", speaker="John"),
                 turn("I 100% agree, Gina.", turn_id="t2", speaker="John")) == [
        "John saved 20% of their pay in April 2023."]


def test_a_name_said_to_the_listener_is_left_out_even_when_unknown() -> None:
    """A nickname the speaker list does not hold ("Mel" for Melanie) is a vocative when a
    comma sets it off at the sentence's edge; a name inside the claim stays."""
    assert texts(turn("Mel, I started a new job at the bakery.", speaker="John"),
                 turn("I totally agree, Mel.", turn_id="t2", speaker="John"),
                 turn("I met Gina, my new boss, at the bakery.", turn_id="t3",
                      speaker="John")) == [
        "John started a new job at the bakery.",
        "John met Gina, their new boss, at the bakery."]


# --- filters ---------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text",
    [
        "What did you do last weekend?",
        "Hey Caroline! Good to see you!",
        "Thanks so much!",
        "Wow, that's great!",
        "I'm so happy for you!",
        "I'm so proud of you.",
        "I agree.",
        "I 100% agree.",
        "I'm a hundred percent with you on that.",
        "I love that!",
        "I hope you have a great time with your family.",
        "You should paint more, your colors are great.",
        "It's special to me.",
        "Me too!",
        "I know, right?",
    ],
)
def test_questions_greetings_reactions_and_vague_sentences_give_no_fact(text: str) -> None:
    assert extract_facts([turn(text)]).facts == []


def test_tool_and_system_turns_give_no_facts() -> None:
    tool = turn("I found 3 flights to Rome.", speaker=None, role="tool")
    system = turn("I am a helpful assistant.", speaker=None, role="system")
    assert extract_facts([tool]).facts == [] and extract_facts([system]).facts == []


def test_one_fact_per_disclosing_sentence_and_exact_duplicates_once() -> None:
    facts = extract_facts([
        turn("Hi! I adopted a puppy last week. What about you? My puppy is called Max.",
             turn_id="a"),
        turn("I adopted a puppy last week.", turn_id="b"),
    ]).facts
    assert [f.text for f in facts] == [
        "Caroline adopted a puppy the week before 8 May 2023.",
        "Caroline's puppy is called Max.",
    ]
    assert [f.evidence for f in facts] == [["a"], ["a"]]


def test_an_i_the_parse_missed_is_not_given_a_second_subject() -> None:
    # the parse reads "I color-code achievements" as a noun phrase without a subject
    facts = extract_facts([turn("I color-code achievements so I can track my progress.")]).facts
    assert facts[0].text == "Caroline color-codes achievements."


def test_a_stage_direction_closing_a_turn_is_not_speech() -> None:
    """A transcript's "[shares a photo: ...]" closing a turn, glued to its last sentence (no
    space after the "!") or holding a full stop of its own, is no claim of the speaker's, and
    an emoji ending a sentence is no word of it; a bracket inside a sentence stays."""
    facts = texts(turn("My aunt gave me this book last year!\U0001F31F [shares a photo: a mug on "
                       "a desk. I painted the mug red.]"),
                  turn("[laughs] I adopted a rescue cat in May and she runs the house now.",
                       turn_id="t2"),
                  turn("I work at [name withheld] as a nurse.", turn_id="t3"))
    assert facts[:2] == ["Caroline's aunt gave Caroline this book in 2022.",
                         "Caroline adopted a rescue cat in May 2023."]
    assert "works at [name withheld" in facts[2]


def test_a_quoted_title_ends_with_the_full_stop_outside_the_quotation_marks() -> None:
    facts = extract_facts([turn('Just finished a dance piece called "Finding Freedom."')]).facts
    assert [f.text for f in facts] == ['Caroline just finished a dance piece called "Finding Freedom".']


# --- scoring ---------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("I'm transgender and proud of my identity", "identity"),
        ("My doctor says my anxiety is better", "health"),
        ("My husband and kids are great", "family"),
        ("I got promoted at my job", "work"),
        ("I'm saving money for a mortgage", "finance"),
        ("I'm studying for my degree at college", "education"),
        ("I'm planning to open a bakery someday", "plan"),
        ("I went to a concert festival yesterday", "event"),
        ("I play guitar and love painting", "hobby"),
        ("My favorite food is sushi", "preference"),
        ("The sky is blue", "other"),
    ],
)
def test_categories_from_the_keyword_map(text: str, category: str) -> None:
    assert categorize(text) == category


def test_importance_ranks_life_events_over_small_talk() -> None:
    event = score_importance("Caroline got married to Tom in Paris on 6 May 2023.", "family", True)
    small = score_importance("Caroline likes tea.", "preference", False)
    assert 1 <= small < event <= 10
    assert event >= 8


def test_outputs_validate_and_hedges_lower_confidence() -> None:
    plain = extract_facts([turn("I live in Boston with my two sisters.")]).facts[0]
    hedged = extract_facts([turn("I think I might move to Denver with my sisters.")]).facts[0]
    assert hedged.confidence < plain.confidence
    for fact in (plain, hedged):
        assert 0 <= fact.confidence <= 1 and 1 <= (fact.importance or 0) <= 10
    FactExtraction.model_validate(FactExtraction(facts=[plain, hedged]).model_dump())


async def test_reasoner_interface() -> None:
    reasoner = ExtractiveReasoner()
    assert reasoner.name == "extractive"
    result = await reasoner.extract_facts([turn("I started a new job at a bank yesterday.")])
    assert isinstance(result, FactExtraction)
    assert result.facts[0].occurred_at == "2023-05-07"
    assert result.facts[0].category == "work"


def test_a_fact_takes_the_date_of_its_own_clause_only():
    """The day another clause of the sentence names is not when this claim began."""
    facts = extract_facts([turn("I get nervous when markets drop, I sold everything in 2020 "
                                "and regretted it.", speaker="Priya")]).facts
    assert facts[0].text == "Priya gets nervous when markets drop."
    assert facts[0].occurred_at is None


# --- real conversations ----------------------------------------------------------------------

@pytest.mark.dataset
def test_locomo_conv26_session1_support_group_fact() -> None:
    turns = locomo_session("conv-26", 1)
    facts = extract_facts(turns).facts
    support = [f for f in facts if "D1:3" in f.evidence]
    assert len(support) == 1
    assert support[0].subject == "Caroline"
    assert "LGBTQ support group" in support[0].text
    assert "7 May 2023" in support[0].text and support[0].occurred_at == "2023-05-07"
    assert {f.subject for f in facts} == {"Caroline", "Melanie"}
    # Melanie's opener "Hey Caroline! Good to see you!" and her questions give no facts
    assert not any("Good to see you" in f.text or f.text.endswith("?") for f in facts)
    assert any(f.subject == "Melanie" and "lake sunrise in 2022" in f.text for f in facts)


@pytest.mark.dataset
def test_locomo_facts_are_third_person_and_cite_their_turn() -> None:
    turns = locomo_session("conv-30", 3)
    by_id = {t.id: t for t in turns}
    facts = extract_facts(turns).facts
    assert len(facts) >= 5
    for fact in facts:
        assert fact.evidence[0] in by_id
        assert fact.subject == by_id[fact.evidence[0]].speaker
        words = fact.text.replace(",", " ").split()
        assert not {"I", "I'm", "my", "My", "me"} & set(words), fact.text


# --- grammar, attribution, who the memory is about --------------------------------------------

PRIYA = Speaker("Priya", pronoun="she", household="husband")


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("My husband and I want to buy our first home",
         "Priya and her husband want to buy their first home"),
        ("My best friend and I've opened a shop", "Priya and her best friend have opened a shop"),
        ("I'm 34 and I work as a nurse", "Priya is 34 and works as a nurse"),
        ("We have saved $28,000 so far", "Priya and her husband have saved $28,000 so far"),
        ("I looked at my pension statement", "Priya looked at her pension statement"),
        ("I sold it and my sister helped me", "Priya sold it and her sister helped her"),
        # named already (a model's half-rewritten fact): the pronoun, not the name again
        ("Priya says I want a garden", "Priya says she wants a garden"),
    ],
)
def test_grammatical_third_person_with_pronouns_and_household(sentence: str,
                                                              expected: str) -> None:
    assert to_third_person(sentence, PRIYA) == expected


def test_compound_subject_without_known_pronouns_takes_singular_their() -> None:
    assert to_third_person("My husband and I want to buy our first home", "Priya") == (
        "Priya and their husband want to buy their first home")


def test_assistant_lines_and_questions_give_no_facts() -> None:
    facts = texts(
        turn("Noted, I will send email summaries from now on.", speaker="Advisor",
             role="assistant"),
        turn("A three-year horizon matters for how we invest the deposit.", speaker="Advisor",
             role="assistant", turn_id="t2"),
        turn("What would I need to save each month today?", speaker="Priya", turn_id="t3"),
        turn("Quick update: I moved to Portland in May.", speaker="Priya", turn_id="t4"),
    )
    assert facts == ["Priya moved to Portland in May 2023."]


@pytest.mark.dataset
def test_two_person_locomo_session_attributes_each_fact_to_its_speaker() -> None:
    turns = locomo_session("conv-26", 1)
    said = {t.id: t.speaker for t in turns}
    facts = extract_facts(turns).facts
    assert {f.subject for f in facts} == {"Caroline", "Melanie"}
    for fact in facts:
        assert fact.subject == said[fact.evidence[0]]
        assert fact.text.startswith(fact.subject) or fact.subject in fact.text
        other = ({"Caroline", "Melanie"} - {fact.subject}).pop()
        assert not fact.text.startswith(other)


def test_two_claims_become_two_atomic_facts_with_verb_agreement() -> None:
    """A dependency parse splits coordinated verbs: each claim its own fact, the shared
    subject restored and the verb agreeing with it."""
    facts = texts(turn("I live in Boston and work as a pharmacist.", speaker="Kai"))
    assert facts == ["Kai lives in Boston.", "Kai works as a pharmacist."]
    facts = texts(turn("Last weekend I joined a chess club - it's really rewarding.",
                       speaker="Kai"))
    assert facts == ["The weekend before 8 May 2023 Kai joined a chess club."]


def test_chatter_captions_questions_and_praise_give_no_fact() -> None:
    chatter = ["Thanks so much, that sounds amazing!", "Here's a pic of my new car.",
               "I'm so proud of you for doing that!", "Do you want to come camping with me?",
               "Talk to you soon, I have to run!", "Let me know how it goes."]
    assert texts(*(turn(t, turn_id=f"t{i}") for i, t in enumerate(chatter))) == []


def test_a_claim_inside_a_sentence_about_a_thing_shown_is_a_fact() -> None:
    """ "Look at these old maps I found": the relative clause is the speaker's claim."""
    facts = texts(turn("Look at these old maps I found in the attic!", speaker="Kai"),
                  turn("These are my hiking boots.", speaker="Kai", turn_id="t2"))
    assert facts == ["Kai found some old maps in the attic.", "Kai has hiking boots."]


def test_an_irregular_past_the_tagger_read_as_present_stays_past() -> None:
    """ "swam" tagged as a present form: "Kai swam", never "Kai swams"."""
    assert texts(turn("I swam competitively for years.", speaker="Kai")) == [
        "Kai swam competitively for years."]
    # a verb whose past is its base form is past when the clause's own date is
    assert texts(turn("I quit smoking last year.", speaker="Kai")) == [
        "Kai quit smoking in 2022."]


def test_an_unnamed_we_is_the_speaker_never_and_others() -> None:
    facts = texts(turn("We went hiking in the Alps last summer.", speaker="Kai"))
    assert facts == ["Kai went hiking in the Alps last summer."]


def test_a_rewritten_we_or_i_agrees_with_its_verb_from_the_parse() -> None:
    """The parse's tags decide agreement: "need" is a present-tense verb although it ends in
    -ed, so an embedded "we need" / "I need" rewritten to a name takes "needs"; a past form
    stays."""
    priya = Speaker("Priya", "she")
    assert texts(turn("We now think we need $60,000 for the deposit.", speaker="Priya")) == [
        "Priya now thinks Priya needs $60,000 for the deposit."]
    assert to_third_person("We now think we need a bigger flat.", priya,
                           {"think": "VBP", "need": "VBP"}) == (
        "Priya now thinks she needs a bigger flat.")
    assert to_third_person("I think I need a break.", priya,
                           {"i": "PRP", "think": "VBP", "need": "VBP", "a": "DT",
                            "break": "NN"}) == "Priya thinks she needs a break."
    assert to_third_person("I heard I agreed to it.", priya,
                           {"i": "PRP", "heard": "VBD", "agreed": "VBD"}
                           ) == "Priya heard she agreed to it."


def test_a_later_i_is_singular_they_when_nothing_plural_comes_between() -> None:
    """With no pronouns known, a later "I" or "me" of the speaker after the speaker as subject
    is singular "they"/"them" ("was" agreeing as "were"), not the name again; the name stays
    where "they" could be read as a plural noun between ("neighbours who are as keen on
    gardening as Joanna is"), after a possessive ("Caroline's aunt gave Caroline"), and without
    the parse's tags."""
    assert texts(turn("I recall that when I gave my first talk, I was so anxious I skipped "
                      "half my slides.", speaker="Joanna")) == [
        ("Joanna recalls that when they gave their first talk, they were so anxious they "
         "skipped half their slides.")]
    assert texts(turn("I'm curious where the new job leads me.", speaker="Melanie")) == [
        "Melanie is curious where the new job leads them."]
    assert texts(turn("I keep meeting neighbours who are as keen on gardening as I am.",
                      speaker="Joanna")) == [
        "Joanna keeps meeting neighbours who are as keen on gardening as Joanna is."]
    assert texts(turn("My aunt gave me this book last year.")) == [
        "Caroline's aunt gave Caroline this book in 2022."]
    assert to_third_person("I was glad I could go.", "Joanna") == "Joanna was glad Joanna could go."
    assert to_third_person("I was glad I could go.", "Joanna",
                           {"i": "PRP", "was": "VBD", "glad": "JJ", "could": "MD", "go": "VB"}
                           ) == "Joanna was glad they could go."


def test_agreement_skips_adverbs_and_quantifiers_the_parse_tags() -> None:
    """A word the parse tags as an adverb or a quantifier is not the verb: "I maybe start"
    becomes "maybe starts", never "maybes start"."""
    john = Speaker("John", "he")
    assert to_third_person("I maybe even start a foundation.", john,
                           {"maybe": "RB", "even": "RB", "start": "VBP"}) == (
        "John maybe even starts a foundation.")
    assert to_third_person("We all find our own way.", john, {"all": "DT", "find": "VBP"}) == (
        "John all finds his own way.")
    assert texts(turn("I maybe even start a foundation someday.", speaker="John")) == [
        "John maybe starts a foundation someday."]  # "even" links to what was said before


def test_colloquial_openers_and_contractions_read_as_standard_english() -> None:
    """"Glad my ..." has the speaker as its unstated subject ("is glad"); "gotta" /
    "wanna" / "gonna" after a rewritten "I" take their standard forms."""
    assert texts(turn("Glad my shop is doing well since I moved it to Elm Street.",
                      speaker="Gina")) == [
        "Gina is glad their shop is doing well since they moved it to Elm Street."]
    assert to_third_person("I gotta focus on my studio.", Speaker("Gina", "she"),
                           {"gotta": "VBP"}) == "Gina has to focus on her studio."
    assert texts(turn("I'm gonna open a second studio in Denver next year.",
                      speaker="Gina")) == [
        "Gina is going to open a second studio in Denver in 2024."]


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm vegetarian.", "Caroline is vegetarian."),
    ("I'm single.", "Caroline is single."),
    ("Oh, and I'm a nurse.", "Caroline is a nurse."),
])
def test_a_copular_self_description_is_a_fact_about_the_speaker(text: str,
                                                                 expected: str) -> None:
    assert texts(turn(text)) == [expected]


def test_a_passing_state_is_not_a_self_description() -> None:
    assert texts(turn("I'm so tired."), turn("I'm so excited about it!", turn_id="t2")) == []


def test_a_model_fact_that_names_the_speaker_goes_on_with_the_pronoun() -> None:
    """A model's half-rewritten fact ("Priya thinks I need ...") reads "she needs", not
    "Priya needs", once the speaker is named."""
    from agent_memory.reasoners.base import FactDraft
    from agent_memory.reasoners.openai_facts import third_person

    said = turn("I think we need $60,000 for the deposit now.", speaker="Priya")
    fact = third_person(FactDraft(text="Priya thinks I need $60,000 for the deposit.",
                                  evidence=[said.id]), said, PRIYA)
    assert fact.text == "Priya thinks she needs $60,000 for the deposit."


def test_facts_from_turns_read_as_written_notes():
    """Each failure a reader saw in LoCoMo facts, on text written here: the verb of a past
    sentence stays past ("when John hurt"), "we" of a pair or team gives no fact about the
    speaker alone, the greeting, vocative and "since we last chatted" go, a subjectless
    gerund is progressive, and a clause with the speaker as object ("Really made me think")
    or an elapsed time ("Been a long week") is no claim by the speaker."""
    texts = [("Maria", "Hey John, how are you?"),
             ("John", "Last season, I had a major challenge when I hurt my ankle."),
             ("John", "We both have similar interests, and we were teammates for four years."),
             ("John", ("Hi Maria, since we last chatted, I'm volunteering as a mentor for a "
                       "local school.")),
             ("John", "Hoping my screenplay gets noticed and makes it to the screen."),
             ("John", ("I ran a charity race last Saturday. Really made me think about taking "
                       "care of our minds.")),
             ("John", "Been a long week since we talked. I adopted a puppy.")]
    turns = [turn(text, speaker, turn_id=f"t{i}") for i, (speaker, text) in enumerate(texts)]
    facts = [f.text for f in extract_facts(turns).facts]
    assert facts == [
        "Last season, John had a major challenge when they hurt their ankle.",
        "John is volunteering as a mentor for a local school.",
        "John is hoping their screenplay gets noticed.",
        "John ran a charity race on Saturday 6 May 2023.",
        "John adopted a puppy."]


def test_a_proposal_to_the_listener_is_no_fact_and_put_together_is_no_pair():
    """"We should plan a hike soon" proposes something to the listener: its "we" takes them
    in, so it is no fact about the speaker; a proposal inside a clause ("how we should ...")
    or "we could" is no proposal. "We're putting together a show" assembles one: "together"
    there is no pair, so the speaker's fact is kept; "put up the tent together" is a pair."""
    lines = [("Omar", "We should plan a hike soon!"),
             ("Lena", "Maybe we ought to try the new ramen place on Friday."),
             ("Omar", "We could see the whole coast from the lighthouse."),
             ("Lena", "We put up the tent together at the lake."),
             ("Omar", "We're putting together a charity quiz at the library next month."),
             ("Lena", "I wrote a poem about how we should treat strangers.")]
    facts = texts(*(turn(text, speaker, turn_id=f"t{i}")
                    for i, (speaker, text) in enumerate(lines)))
    assert facts == ["Omar could see the whole coast from the lighthouse.",
                     "Omar is putting together a charity quiz at the library in June 2023.",
                     "Lena wrote a poem about how Lena should treat strangers."]


def test_a_dash_parts_thoughts_and_dangling_words_go():
    """A dash ends a thought as a full stop does ("- so exciting!" is no part of the win); a
    clause ends on a word, not on "and" or "well"; an infinitive or "might be my favorite"
    with no subject is no claim by the speaker; an adjective tag after "I" is still a verb."""
    lines = ["I cherish time with family.",
             "Always been interested in different cultures and countries.",
             "I won my first chess tournament last week - so exciting!",
             "I'm thinking about adopting a rescue dog - for love and to teach my kids.",
             "Coconut ice cream - might be my new favorite snack.",
             "I have been doing my fair share of research and, well, reading."]
    facts = texts(*(turn(line, "Nate", turn_id=f"t{i}") for i, line in enumerate(lines)))
    assert facts[:5] == [
        "Nate cherishes time with family.",
        "Nate has always been interested in different cultures and countries.",
        "Nate won their first chess tournament the week before 8 May 2023.",
        "Nate is thinking about adopting a rescue dog.",
        "Nate has been doing their fair share of research."]
    assert not any("favorite snack" in f or "to teach" in f for f in facts)
    # no subject is supplied after a dash: the aside may have cut the subject off
    aside = texts(turn("My best friend from college \u2014 the one I told you about \u2014 just "
                       "got engaged to a pilot.", "Nate"))
    assert not any(f.startswith("Nate just got engaged") for f in aside)


def test_we_is_the_group_the_turn_names_or_the_family_while_it_is_the_topic():
    """"we" is the group its turn names ("my teammates and I"); the household only while the
    family is in the talk (named by the speaker, or asked after by the other, within the last
    turns); a "we" of a team or of people at large later on is not the speaker's family, and
    "ourselves" of a "we" read as the speaker alone is singular."""
    lines = [("John", "My kids love the park."),
             ("Maria", "How are your kids doing?"),
             ("John", "We went to the zoo last weekend."),
             ("John", ("The crowd was electric, and my teammates and I were thrilled. "
                       "We pulled off a tough win!")),
             *[("Maria", f"I planted {n} tulips in my garden.") for n in range(5, 12)],
             ("John", "We had a real battle against another team last week."),
             ("John", "We gotta push ourselves out of our comfort zones at the gym.")]
    turns = [turn(text, speaker, turn_id=f"t{i}") for i, (speaker, text) in enumerate(lines)]
    facts = [f.text for f in extract_facts(turns).facts if f.subject == "John"]
    assert "John and family went to the zoo the weekend before 8 May 2023." in facts
    assert "John and their teammates pulled off a tough win." in facts
    assert "John had a real battle against another team the week before 8 May 2023." in facts
    assert "John has to push themself out of their comfort zones at the gym." in facts


def test_salience_scales_down_a_side_remark_only():
    assert salience(0.8, 0.7) == 0.8  # the turn's main point keeps its probability
    assert salience(0.8, CENTRALITY / 2) == pytest.approx(0.4)
    assert salience(0.8, -0.1) == 0.0
    assert salience(0.8, None) == 0.8  # no embeddings: the probability alone


def test_a_side_remark_of_a_turn_gives_way_to_its_main_point():
    said = turn("I finally got the nurse job at the children's hospital! I start on Monday and "
                "I'm nervous about the night shifts. I watched a movie last night too.",
                speaker="Kai")
    assert texts(said) == ["Kai finally got the nurse job at the children's hospital.",
                           "Kai is nervous about the night shifts."]


def test_without_the_local_model_the_probability_alone_decides():
    def unavailable(texts: list[str]):
        raise ModelUnavailableError("all-MiniLM-L6-v2 is not installed")

    said = turn("I work as a pharmacist at a small clinic downtown.", speaker="Kai")
    facts = extract_facts([said], embed=unavailable).facts
    assert [f.text for f in facts] == ["Kai works as a pharmacist at a small clinic downtown."]


MARCH = datetime(2024, 3, 14, 10, 0, tzinfo=UTC)


def dana(text: str) -> list[str]:
    return texts(turn(text, speaker="Dana", when=MARCH))


def test_a_past_clause_takes_the_one_past_date_of_its_sentence():
    """"I cycled to the coast last week and broke a spoke": both happened that week."""
    assert dana("I cycled to the coast last week and broke a spoke on the way back.") == [
        "Dana cycled to the coast the week before 14 March 2024.",
        "The week before 14 March 2024 Dana broke a spoke on the way back."]
    assert dana("Last month I sprained my wrist and had to quit climbing.") == [
        "In February 2024 Dana sprained their wrist.",
        "In February 2024 Dana had to quit climbing."]
    # a date of a phrase of its own, or a present clause, is not the sentence's time
    assert dana("I've lived in Oslo since 2019 and teach maths at a school.") == [
        "Dana has lived in Oslo since 2019.", "Dana teaches maths at a school."]
    # nor is it the time of a clause with its own subject, of its own time or said before it
    assert dana("I lost my scarf last Friday; I had knitted it in Riga.")[1] == (
        "Dana had knitted it in Riga.")
    assert dana("I sold my van in 2021, and then I bought a canoe.")[1] == (
        "Then Dana bought a canoe.")
    assert dana("I toured Peru in May, and my cousin got married there.")[1] == (
        "Dana's cousin got married there.")
    assert dana("I hurt my knee in January and never fully healed.")[1] == (
        "Dana never fully healed.")
    assert dana("My band split up when I was twelve, and I joined a choir in 2015.") == [
        "Dana's band split up when Dana was twelve.", "Dana joined a choir in 2015."]


def test_we_with_my_family_is_the_speaker_even_when_the_household_is_known():
    turns = [Turn(id=f"t{n}", user_id="u1", thread_id="th1", role="user", speaker=speaker,
                  content=text, created_at=MARCH)
             for n, (speaker, text) in enumerate([
                 ("Dana", "My husband and I love the coast."), ("Sam", "How is your family?"),
                 ("Dana", "We went sailing with my kids on Sunday.")])]
    assert [f.text for f in extract_facts(turns).facts][-1] == (
        "Dana went sailing with their kids on Sunday 10 March 2024.")


def test_a_self_introduction_gives_the_full_name_and_leaves_room_for_the_rest():
    """The speaker's own name after "I'm" is what they are called, not a vocative to drop
    (it read "Dana is Okafor"); a fuller name or another name is a fact of its own, beside
    the turn's other facts; the name alone, or a nationality, is no such fact."""
    said = turn("Hi, I'm Dana Okafor. I'm 29 and I live in Leeds.", speaker="Dana")
    assert texts(said) == ["Dana's full name is Dana Okafor.", "Dana is 29.",
                           "Dana lives in Leeds."]
    assert texts(turn("My name is Deborah, but I'm Dee to my friends.", speaker="Deborah")
                 )[:1] != ["Deborah's full name is Deborah."]
    assert texts(turn("Hi! I'm Dee, I'm a nurse in Cork.", speaker="Deborah")) == [
        "Deborah goes by Dee.", "Deborah is a nurse in Cork."]
    assert texts(turn("Hi, I'm Dana. I'm Irish.", speaker="Dana Okafor")) == [
        "Dana Okafor is Irish."]
    assert texts(turn("Thanks, Kai, I moved to Leeds in May.", speaker="Dana"), turn(
        "Sounds great!", speaker="Kai", turn_id="t2")) == ["Dana moved to Leeds in May 2023."]


def test_news_framed_for_the_listener_is_the_speakers_claim():
    """A frame of knowing or telling addressed to the listener ("Guess what,", "Don't forget",
    "Did I tell you", "Just so you know,") is not part of the claim it frames: the framed
    clause is a fact of its own, in a question too ("Did I tell you ...?" gave nothing,
    "Don't forget I start ..." nothing, "Guess what, Dana got ...")."""
    expected = {
        "Guess what, I got the job at Fenwick!": ["Dana got the job at Fenwick."],
        "Don't forget I start my new job in May.": ["Dana starts their new job in May 2023."],
        "Remember that I start my new job in May.": ["Dana starts their new job in May 2023."],
        "Just so you know, I start my new job in May.": [
            "Dana starts their new job in May 2023."],
        "Did I tell you I adopted a dog?": ["Dana adopted a dog."],
        "I forgot to tell you I adopted a dog.": ["Dana adopted a dog."],
        "Did you hear I got engaged?": ["Dana got engaged."],  # one word says the event
        "Did I tell you I was in Lisbon?": ["Dana was in Lisbon."],  # a place says it too
        # a real question, or a request, is still no claim
        "Do you remember where I parked the car?": [],
        "Can I tell you about my trip to Rome?": [],
        "Guess what I did last weekend?": [],  # the news is still to come
    }
    for said, facts in expected.items():
        assert texts(turn(said, speaker="Dana")) == facts, said


def test_we_of_partners_in_the_same_thread_names_both():
    """A speaker who introduces the other speaker as their partner ("my partner Sam is joining
    today") speaks for both with "we", and so does the partner ("Dana and family want to move
    in together", "Sam got engaged" before); a speaker's name inside a claim is not a
    vocative ("Dana's partner is joining" lost "Sam")."""
    turns = [turn("Hi, this is Dana, and my partner Sam is joining today.", speaker="Dana"),
             turn("Welcome, Sam. What would you two like to work on?", speaker="Coach",
                  role="assistant", turn_id="t2"),
             turn("We want to move in together next year, probably in Glasgow.",
                  speaker="Dana", turn_id="t3"),
             turn("We got engaged in Paris in the spring!", speaker="Sam", turn_id="t4"),
             turn("I went climbing with Dana on Sunday, Dana.", speaker="Sam", turn_id="t5")]
    assert texts(*turns) == [
        "Dana's partner Sam is joining on 8 May 2023.",
        "Dana and Sam want to move in together in 2024, probably in Glasgow.",
        "Sam and Dana got engaged in Paris in the spring.",
        "Sam went climbing with Dana on Sunday 7 May 2023."]
    # two friends talking: "we" is not the pair
    assert texts(turn("Sam and I are old friends.", speaker="Dana"),
                 turn("We went camping with my kids last week.", speaker="Sam",
                      turn_id="t2"))[-1] == (
        "Sam went camping with their kids the week before 8 May 2023.")


def test_a_verb_whose_past_is_its_base_form_reads_as_an_event():
    """"I quit smoking and I feel great" is a past event ("Dana quits smoking." before); a
    word of a habit keeps the present ("I usually hit the gym")."""
    assert texts(turn("I quit smoking and I feel great.", speaker="Dana")) == [
        "Dana quit smoking."]
    assert texts(turn("I hurt my knee playing football with my brother.", speaker="Dana")) == [
        "Dana hurt their knee playing football with their brother."]
    assert texts(turn("I usually hit the gym before work at the hospital.", speaker="Dana")) == [
        "Dana usually hits the gym before work at the hospital."]


def test_replies_requests_and_a_second_dated_clause_read_as_said():
    """A date before the second clause's subject is that clause's ("... and two weeks ago I
    started" gave "Dana quit Brightwave and two weeks before ..."); a request to the listener
    is not the speaker's claim ("please don't suggest jogging" gave "Dana doesn't suggest
    jogging"); a reply word before or after the claim is left out ("Not for now,", ", so")."""
    assert texts(turn("I quit Brightwave and two weeks ago I started as a UX researcher at "
                      "Tallyho.", speaker="Dana")) == [
        "Dana quit Brightwave.",
        "Two weeks before 8 May 2023 Dana started as a UX researcher at Tallyho."]
    assert texts(turn("Honestly I hate running, so please don't suggest jogging for stress.",
                      speaker="Dana")) == ["Dana hates running."]
    assert texts(turn("Not for now, I'm not ready for another pet.", speaker="Dana")) == [
        "Dana is not ready for another pet."]
    assert texts(turn("I tried meditation apps before and they never stuck, so no.",
                      speaker="Dana")) == ["Dana tried meditation apps before."]
