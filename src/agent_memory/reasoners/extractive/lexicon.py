"""The closed-class word lists of offline reconciliation, in one place.

Stop words, negation cues, aspectual verbs that begin or end a state, intention, liking,
privative modifiers, qualifiers, number words and a crude stemmer, for :mod:`.claims`;
open-class knowledge comes from embeddings and WordNet. Classes follow Quirk et al., *A
Comprehensive Grammar of the English Language* (1985): ch. 3, 5-6, 16.39.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...text.numbers import NUMBER_WORDS
from .sentences import word_set

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

STOP = word_set(
    """a an the to of in on at for with and or some any very really also still now currently
    just always usually often is are be been being am was were has have had does do did
    their his her its them they it this that these those""")
BE = word_set("am 'm is 's are 're was were be been being")
NAME_LABELS = word_set("PERSON NORP FAC ORG GPE LOC PRODUCT EVENT WORK_OF_ART LANGUAGE")
"""spaCy entity labels of names (people, places, organisations, works), not amounts or times."""
WH_TAGS = frozenset(("WP", "WDT", "WP$", "WRB"))
"""Penn tags of interrogative and relative words ("what", "which", "whose", "how")."""
DEMONSTRATIVES = word_set("this that these those")
"""The forms of "be", contracted ones included."""
LIGHT = word_set("be is are was were am been being have has had having do does did get gets "
                 "got getting become became go goes going went gone")
"""Light verbs: they carry tense and motion; the noun or gerund after them carries the claim."""
UNITS = word_set("dollars dollar euros euro pounds years year aged as from up by into out about "
                 "over off all any anyone anything someone something every each himself herself "
                 "themselves myself yourself")
RELATIONS = word_set(
    """sister brother mother father mom dad mum son daughter husband wife partner boyfriend
    girlfriend fiance fiancee friend boss manager colleague coworker neighbor neighbour
    roommate grandmother grandfather grandma grandpa aunt uncle cousin niece nephew kid kids
    child children parents family dog cat pet puppy kitten team company band baby""")
"""Relations whose possessive opens another subject ("Ana's sister lives in Rome")."""
PEOPLE_NOUNS = RELATIONS - word_set("dog cat pet puppy kitten team company band")
"""The relations that are people ("a friend", "my sister"): never what "it" stands for, as a
pet, a band or a company can be."""

ENDING = word_set(
    "quit quits stop stops stopped cease ceased sold sell sells close closes closed left leave "
    "leaves cancel cancelled canceled ended end ends abandon abandoned lost lose loses finished "
    "finish finishes completed complete completes recovered recover recovers resigned resign "
    "resigns retired retire retires withdrew withdraw withdraws graduated graduate graduates "
    "divorced divorce divorces fired expelled dismissed")
"""Aspectual and terminative verbs that end a state; the claim denies their object."""
ENDING_WITH_PARTICLE = word_set("gave give gives paid pay pays broke break breaks dropped drop "
                                "drops fell fall falls returned return returns")
"""Verbs that end a state only with a particle ("gave up", "paid off", "broke up with",
"returned from")."""
BEGINNING = word_set("moved move moves relocated relocate relocates started start starts began "
                     "begin begins became become becomes switched switch joined join joins "
                     "adopted adopt adopts bought buy buys now")
"""Verbs that begin a state (an onset), and the adverb "now"."""
BEGINNING_WITH_PARTICLE = word_set("took take takes taken")
"""Verbs that begin a state only with a particle ("took up running", "took over the garage",
"took out a loan", "took in a foster cat") or a position ("took a job at a bank"): "took the
kids to the park" is an outing."""
PAST_FORMS = word_set("paid sold bought lost gave got took went made ran won spent left put lent "
                      "withdrew began became grew drove flew met sent built wrote broke quit")
"""Irregular simple past forms (and "quit"): a completed event, not a state."""
NOT_PAST = word_set("need feed seed speed bleed breed proceed succeed exceed")
"""Words in ``-ed`` that are no past tense."""


def past_form(word: str) -> bool:
    """Whether a lower-case word is a simple past form: irregular (:data:`PAST_FORMS`) or in
    ``-ed`` and longer than four letters, outside :data:`NOT_PAST` ("lost", "finished"; not
    "need", "red")."""
    return word in PAST_FORMS or (word.endswith("ed") and len(word) > 4 and word not in NOT_PAST)

LIKING = word_set("like likes liked love loves loved enjoy enjoys enjoyed adore adores adored "
                  "prefer prefers preferred")
DISLIKING = word_set("dislike dislikes disliked hate hates hated detest detests detested loathe "
                     "loathes loathed")

NEGATION = re.compile(
    r"^(?:(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would|should)\s*n[o']t\s+"
    r"|(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would)\s+not\s+"
    r"|cannot\s+|can't\s+|won't\s+|never\s+|no longer\s+|not\s+)", re.IGNORECASE)
ANYMORE = re.compile(r"\s*\b(?:anymore|any more|any longer)\b", re.IGNORECASE)
NEG_INSIDE = re.compile(r"\b(?:no longer|never)\b\s*", re.IGNORECASE)
HAS_NO = re.compile(r"^(has|have|had)\s+no\s+(?!longer\b|one\b)", re.IGNORECASE)
FORMER = re.compile(r"^(?:is|was)\s+(?:an?\s+)?(?:former\s+|ex-\s*|ex\s+)", re.IGNORECASE)
USED_TO = re.compile(r"^used\s+to\s+", re.IGNORECASE)
BACK_FROM = re.compile(r"^(?:is|are|was|were|came|comes|got|gets)\s+back(?:\s+(?:at|to|in|on)"
                       r"\s+\w+)?\s+(?:after|from)\s+", re.IGNORECASE)
"""Back from an absence ("is back at work after her leave"): read as "returned from", an
ending."""
INTENTION_NOUN = re.compile(r"\b(?:plans?|dreams?|goals?|bids?|attempts?|ambitions?|hopes?|"
                            r"intentions?|ideas?|efforts?)$", re.IGNORECASE)
"""Nouns of intention that govern an infinitive ("her plan to swim"): what ends is the plan and
what it was for."""
TOLERATE = re.compile(r"^(?:stand|bear|abide|stomach)\s+", re.IGNORECASE)
IRREALIS = re.compile(
    r"^(?:(?:is|are)\s+)?(?:plans?|planning|wants?|hopes?|hoping|intends?|aims?|wish(?:es)?|"
    r"dreams?|considering|thinking (?:about|of)|trying|tries|would like|expects?|expecting|"
    r"looking\s+(?:for|into)|searching\s+for|learning|exploring|studying(?=\s+to\b)|"
    r"training(?=\s+to\b)|will)\s+(?:to\s+|of\s+)?", re.IGNORECASE)
"""Verbs of intention, desire and seeking: what they govern has not happened."""
MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|"
          "december")
DATE_TAIL = re.compile(
    r"\s*(?:,\s*)?\b(?:on|in|since|from|until|by|during|as of)\s+(?:the\s+)?(?:\d{1,2}\s+)?"
    rf"(?:{MONTHS}|\d{{4}}|spring|summer|autumn|fall|winter|last|next|early|late)\b.*$"
    r"|\s*\b(?:last|next|this)\s+(?:year|month|week|summer|winter|spring|fall|autumn)\b.*$"
    r"|\s*\b\d+\s+(?:years?|months?|weeks?)\s+ago\b.*$", re.IGNORECASE)
LEADING_DATE = re.compile(
    rf"^(?:in|on|since|as of|by)\s+(?:\d{{1,2}}\s+)?(?:{MONTHS}|\d{{4}}|spring|summer|autumn|"
    r"fall|winter)\b[\w ]*?,?\s+(?=[A-Z])", re.IGNORECASE)
HABITUAL = re.compile(
    r"\s*\b(?:every (?:day|morning|evening|night|week|weekend|month|year|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)|daily|weekly|monthly|annually|on weekends|"
    r"(?:in the (?:morning|afternoon|evening)|at (?:night|noon|midnight))|"
    r"(?:once|twice|\w+ times) a (?:day|week|month|year)|a (?:day|week|month|year))\b",
    re.IGNORECASE)
"""How often and at what time of day: two facts at other times may both hold."""

PRIVATIVE = word_set(
    "former formerly ex non retired previous previously late fake false mock faux imitation "
    "artificial pretend wannabe aspiring almost nearly lapsed would-be so-called supposed "
    "alleged prospective interim deputy vice assistant honorary emeritus apprentice toy half")
"""Privative modifiers, approximators and role modifiers: "a former nurse" is no nurse."""
QUALIFIERS = word_set(
    "might may could should must will would can maybe perhaps probably possibly mostly "
    "usually sometimes rarely occasionally only mainly partly all most few many several "
    "half some none both either near outside inside behind under over above below without "
    "beside next north south east west from to for with against if unless seems appears "
    "thinks believes convinced doubts sure co")
"""Modals, hedges, quantifiers, relational prepositions, conditions and belief verbs: a word of
this class on one side only qualifies that claim differently."""

NUMBER = re.compile(r"\$?\d[\d,]*(?:\.\d+)?k?|\b(?:" + "|".join(NUMBER_WORDS) + r")\b",
                    re.IGNORECASE)
"""A number in digits or a simple number word (the claim parser masks them)."""


_LEMMAS = {"has": "have", "had": "have", "having": "have", "does": "do", "did": "do",
           "is": "be", "are": "be", "was": "be", "were": "be", "children": "kid", "child": "kid",
           "kids": "kid", "went": "go", "goes": "go", "going": "go", "doing": "do",
           "being": "be"}
_DOUBLED = re.compile(r"([bdgkmnprt])\1$")


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude stemmer for matching, not display: a few irregular forms, ``-ies`` -> ``-y``,
    the suffixes ``-ing``, ``-ed``, ``-es``, ``-s`` stripped, a doubled consonant and a final
    ``-e`` / ``-y`` folded ("running" / "run" -> "run", "studies" / "study" -> "stud")."""
    inflected = word.endswith(("ing", "ed"))
    word = _LEMMAS.get(word, word)
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    else:
        for suffix in ("ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
    word = word.rstrip("e") if len(word) > 3 else word
    if inflected and len(word) > 3:
        word = _DOUBLED.sub(r"\1", word)
    return word[:-1] if word.endswith("y") and len(word) > 4 else word

PARTNERS = word_set("wife husband partner girlfriend boyfriend fiancee fiancée fiance spouse")
"""Kin terms for the one a person is partnered with (closed class)."""
CHILDREN = word_set("son sons daughter daughters baby babies child children kid kids twins")
"""Kin terms for a person's children."""
SIBLINGS = word_set("sister brother sister-in-law brother-in-law")
"""Kin terms for a person's siblings (and theirs by marriage)."""
OFFSPRING = word_set("son daughter son-in-law daughter-in-law")
"""Kin terms for a person's child or their partner, whose child is the grandchild."""
NEPHEWS = word_set("niece nieces nephew nephews")
"""Kin terms for a sibling's children."""
GRANDCHILDREN = word_set("grandson grandsons granddaughter granddaughters grandchild "
                         "grandchildren grandbaby grandkid grandkids")
"""Kin terms for a child's children."""
BECAME = {"parent": word_set("father mother dad mum mom parent"),
          "sibling": word_set("aunt auntie uncle"),
          "grandparent": word_set("grandmother grandfather grandma grandpa granny grandparent")}
"""What a person "became" at a birth, by whose child was born (their own, a sibling's, a
child's)."""
ONE_OF_A_KIND = word_set("mother mum mom mama father dad papa wife husband partner spouse "
                         "fiancee fiancée fiance stepmother stepfather")
"""Kin a person has one of: "Dana's dad" names one person without a name."""
KIN = ONE_OF_A_KIND | word_set(
    "son daughter child baby brother sister grandmother grandfather grandma grandpa gran "
    "granny grandson granddaughter aunt uncle cousin niece nephew friend boyfriend "
    "girlfriend stepson stepdaughter stepbrother stepsister")
"""Kin and close people whose death a memory records (a named one, or one of a kind)."""
PETS = word_set("cat kitten dog puppy pup hamster rabbit bunny horse pony parrot budgie "
                "bird fish goldfish tortoise turtle snake lizard ferret rat mouse gerbil "
                "guinea pig chicken hen goat")
"""Animals kept as pets: a named one's death ends its states ("Dana's cat Miso")."""
