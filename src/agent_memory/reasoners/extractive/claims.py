"""Fact sentences read as claims: subject, predicate, polarity, state change, numbers.

Offline reconciliation (:mod:`.reconcile`) compares two facts through what they claim, not
through their wording. A fact sentence (third person, as the extractors write them) becomes a
:class:`Claim`:

- **subject**: the leading name, following possessives of relations ("Ana's sister") and
  "has a sister who ..." relative clauses, so a relative's facts never retire the person's;
- **predicate**: the rest, with the subject masked, dates and habitual adverbials ("every
  Sunday") set aside, negation removed (it is kept as the polarity) -- the phrase whose
  embedding :mod:`.attributes` compares;
- **polarity**: ``False`` for a negated predicate ("does not", "never", "no longer",
  "... anymore") and for a **cessation** ("quit smoking", "sold his car", "paid off the
  loan"): the lemma of the first verb is in a small lexical class of verbs that end a state,
  and the claim then denies its object ("smoking", "his car", "the loan");
- **change**: ``"end"`` for a cessation, ``"begin"`` for an onset ("moved to", "started",
  "became", "now ..."), else ``""``: two facts with different changes never merge;
- **numbers**: normalised (number words to digits, ``$3,000`` -> ``3000``), compared exactly;
- **terms**: stemmed content words of the predicate without numbers, stop words and light
  verbs (be, have, do, get), for lexical containment tests.

The two lexical classes (negation cues, state-change lemmas) are closed-class function words
and a handful of aspectual verbs; everything open-class (which attribute, which value) is left
to the embedding (:mod:`.attributes`). Parsing follows shallow predicate-argument reading in
information extraction (Jurafsky and Martin, *Speech and Language Processing*, 3rd ed. draft,
ch. "Information Extraction").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .sentences import word_set
from .slots import _ANYMORE, _DATE_TAIL, _HABITUAL, _NEGATION, _RELATIONS, _STOP, _WORD, stem
from .slots import _clean as clean
from .slots import _split_subject as split_subject

_ENDING = word_set("quit quits quitting stop stops stopped stopping gave give gives giving "
                   "given cease ceased sold sell sells selling close closes closed left leave "
                   "leaves cancel cancelled canceled ended end ends drop dropped paid pay pays "
                   "broke break breaks abandon abandoned")
"""Lemmas (and irregular forms) of verbs that end a state; "gave up", "paid off", "broke up
with", "dropped out of" take their particle along (:data:`_PARTICLE`)."""
_BEGINNING = word_set("moved move moves relocated relocate relocates started start starts "
                      "began begin begins became become becomes switched switch took joined "
                      "join joins adopted adopt adopts bought buy buys now")
"""Lemmas of verbs that begin a state (an onset), and the adverb "now"."""
_PARTICLE = re.compile(r"^(?:up|off|out|down|away)(?:\s+(?:with|of|on))?\s+")
_LIGHT = word_set("be is are was were am been being have has had having do does did get gets "
                  "got getting become became has_been")
_NUMBER_WORDS = {"zero": "0", "no": "0", "one": "1", "two": "2", "three": "3", "four": "4",
                 "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
                 "eleven": "11", "twelve": "12", "twenty": "20", "thirty": "30",
                 "forty": "40", "fifty": "50", "hundred": "100"}
_NUMBER = re.compile(r"\$?\d[\d,]*(?:\.\d+)?k?|\b(?:" + "|".join(
    w for w in _NUMBER_WORDS if w != "no") + r")\b", re.IGNORECASE)
_LEADING_DATE = re.compile(
    r"^(?:in|on|since|as of|by)\s+(?:\d{1,2}\s+)?(?:january|february|march|april|may|june|"
    r"july|august|september|october|november|december|\d{4}|spring|summer|autumn|fall|"
    r"winter)\b[\w ]*?,?\s+(?=[A-Z])|^(?:every|each)\s+\w+,?\s+(?=[A-Z])", re.IGNORECASE)
_NEG_INSIDE = re.compile(r"\b(?:no longer|never)\b\s*", re.IGNORECASE)
_WHO = re.compile(r"^(?:has|have)\s+an?\s+(?:(?:younger|older|little|big|best)\s+)?(\w+)\s+"
                  r"(?:who|that)\s+(.+)$", re.IGNORECASE)
_UNITS = word_set("dollars dollar euros euro pounds years year old aged as from up by into "
                  "out about over off")
"""Units of numbers and prepositions that do not tell two predicates apart."""
_ADVERBS = re.compile(r"\b(?:currently|still|also|recently|just|really|already|finally|"
                      r"actually)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Claim:
    """What one fact asserts, in comparable form (see the module docstring).

    Attributes:
        subject: whom it is about, lower-cased ("ana", "ana's sister").
        predicate: the affirmative predicate, subject masked ("lives in Lisbon").
        positive: False when the fact denies the predicate or ends the state.
        change: ``"end"``, ``"begin"`` or ``""``.
        numbers: the numbers, normalised to digit strings.
        terms: stemmed content words of the predicate (numbers, stop words, light verbs out).
        when: the explicit time as written (lower-cased), or ``""``.
    """

    subject: str
    predicate: str
    positive: bool
    change: str
    numbers: frozenset[str]
    terms: frozenset[str]
    when: str = ""


def numbers_in(text: str) -> frozenset[str]:
    """Numbers in ``text`` as digit strings: ``"$3,000"`` -> ``"3000"``, ``"two"`` -> ``"2"``,
    ``"5k"`` -> ``"5000"``."""
    out = set()
    for raw in _NUMBER.findall(text):
        word = raw.lower()
        if word in _NUMBER_WORDS:
            out.add(_NUMBER_WORDS[word])
            continue
        digits = word.lstrip("$").replace(",", "")
        scale = 1000 if digits.endswith("k") else 1
        digits = digits.rstrip("k")
        try:
            value = float(digits) * scale
        except ValueError:
            continue
        out.add(str(int(value)) if value == int(value) else str(value))
    return frozenset(out)


def terms_of(predicate: str) -> frozenset[str]:
    """Stemmed content words of a predicate (no numbers, stop words or light verbs)."""
    words = _WORD.findall(_NUMBER.sub(" ", predicate.lower()))
    return frozenset(stem(w) for w in words
                     if w not in _STOP and w not in _LIGHT and w not in _NUMBER_WORDS
                     and w not in _UNITS)


def parse_claim(text: str, subject_hint: str | None = None) -> Claim | None:
    """Read a fact sentence as a :class:`Claim`, or ``None`` (a question, or no subject).

    Args:
        text: the fact, e.g. "Ana no longer lives in Boston."
        subject_hint: the fact's ``subject`` field, when known.

    Example:
        ``parse_claim("Gus quit smoking.")`` gives subject ``gus``, predicate ``smoking``,
        positive False, change ``"end"``.
    """
    text = clean(text)
    if not text or text.endswith("?"):
        return None
    text = _LEADING_DATE.sub("", text)
    found = _DATE_TAIL.search(text)
    when = " ".join(found.group(0).lower().split()) if found else ""
    text = _DATE_TAIL.sub("", text).strip(" ,")
    text = _HABITUAL.sub("", text).strip(" ,")
    positive = not _ANYMORE.search(text)
    text = _ANYMORE.sub("", text).strip(" ,")
    split = split_subject(text, subject_hint)
    if split is None:
        return None
    subject, rest = split
    if rest.startswith(("'s ", "s' ")):
        rest = rest[3:]  # "<subject>'s favorite color is green": the attribute is the predicate
    who = _WHO.match(rest)
    if who and who.group(1).lower() in _RELATIONS:
        subject, rest = f"{subject}'s {who.group(1).lower()}", who.group(2)
    rest = _ADVERBS.sub("", rest)
    neg = _NEGATION.match(rest)
    if neg:
        positive, rest = False, rest[neg.end():]
    if _NEG_INSIDE.search(rest):
        positive, rest = False, _NEG_INSIDE.sub("", rest)
    change = ""
    words = rest.split()
    head = words[0].lower() if words else ""
    if head in ("has", "have", "had") and len(words) > 1:
        head = words[1].lower()  # "has quit", "has moved"
        if head in _ENDING or head in _BEGINNING:
            rest = " ".join(words[1:])
    if head in _ENDING:
        change, positive = "end", False
        rest = _PARTICLE.sub("", rest.split(" ", 1)[1] if " " in rest else "")
        rest = re.sub(r"\band\b.*$", "", rest).strip()  # "closed her bakery and ..."
    elif head in _BEGINNING:
        change = "begin"
        if head == "now":
            rest = rest.split(" ", 1)[1] if " " in rest else ""
    rest = rest.strip(" ,")
    if not rest:
        return None
    return Claim(subject, rest, positive, change, numbers_in(rest), terms_of(rest), when)
