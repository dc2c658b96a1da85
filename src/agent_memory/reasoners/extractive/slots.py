"""Slot parsing of fact sentences: who (subject), what about (attribute), which value, yes/no.

Offline reconciliation (:mod:`.reconcile`) compares facts slot by slot, so that only facts
about the same subject *and* the same attribute can contradict each other: "Caroline lives in
Lisbon" never retires "Caroline works as a nurse", and "Caroline's sister lives in Ohio" never
retires "Caroline lives in Lisbon".

A fact sentence (third person, as the extractors write them) is read as::

    <subject> [negation] <predicate>            "Caroline does not eat meat"
    <subject>'s <attribute> is <value>          "Caroline's favorite color is green"

and the predicate is matched against a small lexicon of *single-valued* attributes (residence,
hometown, occupation, employer, age, marital status, diet, favourites, names, counts of
relatives, vehicle) whose values exclude each other, so a changed value is a contradiction.
Any other predicate becomes a *multi-valued* slot keyed by its stemmed content words ("likes
jazz", "plays the guitar"): a person may like many things, so such facts contradict only when
one negates the other ("likes jazz" / "no longer likes jazz", "smokes" / "quit smoking").
Likes and dislikes of the same thing are one slot with opposite polarity.

The lexicon-and-pattern approach follows slot filling in information extraction (e.g.
Jurafsky and Martin, *Speech and Language Processing*, 3rd ed. draft, ch. "Information
Extraction"); the word lists are our own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .sentences import word_set

_RELATIONS = word_set(
    """sister brother mother father mom dad mum son daughter husband wife partner boyfriend
    girlfriend fiance fiancee friend boss manager colleague coworker neighbor neighbour
    roommate grandmother grandfather grandma grandpa aunt uncle cousin niece nephew kid kids
    child children parents family dog cat pet puppy kitten team company band baby"""
)
_OCCUPATIONS = word_set(
    """teacher nurse doctor engineer lawyer accountant designer developer programmer
    architect chef cook baker pilot firefighter paramedic pharmacist dentist surgeon
    electrician plumber carpenter mechanic scientist researcher professor lecturer journalist
    writer author editor photographer artist painter musician singer actor actress dancer
    student consultant analyst banker manager cashier waiter waitress barista bartender
    librarian therapist counselor counsellor psychologist veterinarian vet farmer driver
    salesperson entrepreneur freelancer retiree police officer soldier translator
    receptionist secretary janitor tutor coach athlete"""
)
_MARITAL = {"married": "married", "single": "single", "divorced": "divorced",
            "engaged": "engaged", "widowed": "widowed", "separated": "separated"}
_DIETS = word_set("vegetarian vegan pescatarian carnivore omnivore")
_NUMBERS = {"no": 0, "zero": 0, "one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4,
            "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_POSITIVE_LIKES = word_set("like likes liked love loves loved enjoy enjoys enjoyed adore adores "
                           "prefer prefers")
_NEGATIVE_LIKES = word_set("dislike dislikes disliked hate hates hated detest detests loathe "
                           "loathes")
_STOP = word_set(
    """a an the to of in on at for with and or some any very really also still now currently
    just always usually often is are be been being am was were has have had does do did
    their his her its them they it this that these those"""
)
_ATTRIBUTE_NOUNS = word_set(
    """job occupation profession employer name age birthday hometown home address email phone
    nationality religion diet salary income budget height weight"""
)

_NEGATION = re.compile(
    r"^(?:(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would|should)\s*n[o']t\s+"
    r"|(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would)\s+not\s+"
    r"|cannot\s+|can't\s+|won't\s+|never\s+|no longer\s+|not\s+)",
    re.IGNORECASE,
)
_STOPPED = re.compile(r"^(?:has |have |had )?(?:stopped|quit|gave up|given up)\s+(\w+?)ing\b",
                      re.IGNORECASE)
_DATE_TAIL = re.compile(
    r"\s*(?:,\s*)?\b(?:on|in|since|from|until|by|during|as of)\s+(?:the\s+)?"
    r"(?:\d{1,2}\s+)?(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december|\d{4}|spring|summer|autumn|fall|winter|last|next|early|late)\b.*$"
    r"|\s*\b(?:last|next|this)\s+(?:year|month|week|summer|winter|spring|fall|autumn)\b.*$"
    r"|\s*\b\d+\s+(?:years?|months?|weeks?)\s+ago\b.*$",
    re.IGNORECASE,
)
_HABITUAL = re.compile(
    r"\s*\b(?:every (?:day|morning|evening|night|week|weekend|month|year|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)|daily|weekly|on weekends|"
    r"(?:once|twice|\w+ times) a (?:day|week|month|year))\b", re.IGNORECASE)
_ANYMORE = re.compile(r"\s*\b(?:anymore|any more|any longer)\b", re.IGNORECASE)
_ADVERB = re.compile(r"^(?:(?:now|currently|still|also|recently|just|really|already|finally)\s+)+")
_SUBJECT = re.compile(r"^(?:(?i:the user)\b|[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)", re.UNICODE)
_POSSESSIVE = re.compile(r"^(?P<owner>.+?)(?:'s|\u2019s|s')\s+(?P<rest>.+)$")
_COPULA = re.compile(r"^(?P<attr>[\w ]+?)\s+(?:is|are|was)\s+(?P<value>.+)$")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


@dataclass(frozen=True)
class Slot:
    """What one fact asserts, in comparable form.

    Attributes:
        subject: whom it is about, lower-cased ("caroline", "caroline's sister").
        attribute: the slot (``residence``, ``favorite color``, ``like:jazz``, ``do:play guitar``).
        value: the normalised value ("lisbon"); empty for yes/no slots.
        positive: False when the fact denies the predicate ("does not ...", "no longer ...").
        single: True for single-valued attributes, where two different values exclude each
            other.
        dated: the fact carries an explicit time ("... on 7 May 2023", "in 2021").
        when: that time as written (lower-cased), or ``""``.
    """

    subject: str
    attribute: str
    value: str
    positive: bool
    single: bool
    dated: bool = False
    when: str = ""


_LEMMAS = {"has": "have", "had": "have", "having": "have", "does": "do", "did": "do",
           "is": "be", "are": "be", "was": "be", "were": "be", "children": "kid", "child": "kid",
           "kids": "kid", "went": "go", "goes": "go"}


def stem(word: str) -> str:
    """A crude lemmatiser: a few irregular forms, then ``-ies`` -> ``-y`` and the suffixes
    ``-ing``, ``-ed``, ``-es``, ``-s`` stripped (for matching predicates, not for display)."""
    word = _LEMMAS.get(word, word)
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word.rstrip("e") if len(word) > 3 else word


def value_terms(text: str) -> frozenset[str]:
    """Lower-cased content words of a value, stop words removed (for value comparison)."""
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _STOP)


def _clean(text: str) -> str:
    text = " ".join(text.strip().split()).rstrip(".!;")
    return text.replace("\u2019", "'")


def _value(text: str) -> str:
    text = re.sub(r"^(?:a|an|the|in|at)\s+", "", text.strip().lower())
    return " ".join(re.sub(r"[^\w' -]", " ", text).split())


def _split_subject(text: str, subject_hint: str | None) -> tuple[str, str] | None:
    """``(subject, predicate)``, following possessives of relations ("Caroline's sister")."""
    if subject_hint and text.lower().startswith(subject_hint.lower()):
        subject, rest = text[: len(subject_hint)], text[len(subject_hint):]
    else:
        match = _SUBJECT.match(text)
        if not match:
            return None
        subject, rest = match.group(0), text[match.end():]
    subject = subject.strip()
    if subject.endswith(("'s", "s'")) and rest.startswith(" "):
        rest = subject[-2:] + rest
        subject = subject[:-2]
    while True:
        poss = re.match(r"^(?:'s|s')\s+(?:(?:younger|older|little|big|best|new|old)\s+)?"
                        r"(\w+(?:-in-law)?)(?![\w-])(.*)$", rest)
        if not poss or poss.group(1).lower().removesuffix("-in-law") not in _RELATIONS:
            break
        subject = f"{subject}'s {poss.group(1)}"
        rest = poss.group(2)
    return subject.strip().lower(), rest.strip()


def parse_slot(text: str, subject_hint: str | None = None) -> Slot | None:
    """Parse a fact sentence into a :class:`Slot`, or ``None`` when it does not read as
    ``<subject> <predicate>``.

    Args:
        text: the fact, e.g. "Caroline no longer lives in Boston."
        subject_hint: the fact's ``subject`` field, when known (used to find the subject).

    Example:
        ``parse_slot("Caroline moved to Lisbon")`` gives subject ``caroline``, attribute
        ``residence``, value ``lisbon``, positive, single-valued.
    """
    text = _clean(text)
    if not text or text.endswith("?"):
        return None
    found_date = _DATE_TAIL.search(text)
    when = " ".join(found_date.group(0).lower().split()) if found_date else ""
    text = _DATE_TAIL.sub("", text).strip(" ,")
    text = _HABITUAL.sub("", text).strip(" ,")
    anymore = bool(_ANYMORE.search(text))
    text = _ANYMORE.sub("", text).strip(" ,")
    split = _split_subject(text, subject_hint)
    if split is None:
        return None
    subject, rest = split
    if rest.startswith(("'s ", "s' ")):
        slot = _possessive_attribute(subject, rest[3:], when)
        return slot if slot is None or not anymore else replace(slot, positive=False)
    positive = True
    stopped = _STOPPED.match(rest)
    if stopped:
        positive, rest = False, stopped.group(1) + rest[stopped.end():]
    neg = _NEGATION.match(rest)
    if neg:
        positive, rest = False, rest[neg.end():]
    if anymore:
        positive = False
    pred = _ADVERB.sub("", rest.lower().strip())
    if not pred:
        return None
    found = _single_valued(pred, positive)
    if found is not None:
        attribute, value, positive = found
        return Slot(subject, attribute, value, positive, True, bool(when), when)
    return _multi_valued(subject, pred, positive, when)


def _possessive_attribute(subject: str, rest: str, when: str) -> Slot | None:
    """"<subject>'s favorite color is green", "<subject>'s job is nursing"."""
    match = _COPULA.match(rest.lower())
    if not match:
        return None
    attr = match.group("attr").strip()
    value = match.group("value").strip()
    positive = True
    if value.startswith("not "):
        positive, value = False, value[4:]
    head = attr.split()[-1]
    single = attr.startswith(("favorite", "favourite")) or head in _ATTRIBUTE_NOUNS or (
        attr.split()[0] in _ATTRIBUTE_NOUNS)
    if head in ("home", "hometown", "address"):
        attr = "residence" if head != "hometown" else "hometown"
    if head in ("job", "occupation", "profession"):
        attr = "occupation"
    attr = attr.replace("favourite", "favorite").replace("colour", "color")
    return Slot(subject, attr, _value(value), positive, single, bool(when), when)


def _single_valued(pred: str, positive: bool) -> tuple[str, str, bool] | None:
    """Match the lexicon of single-valued attributes: ``(attribute, value, positive)``."""
    m = re.match(r"^(?:lives?|living|resides?|is based|is located|stays?|has settled|settled)"
                 r"\s+in\s+(.+)$", pred)
    if m:
        return "residence", _value(m.group(1)), positive
    m = re.match(r"^(?:has |have )?(?:moved|relocated|moves|relocates|is moving|"
                 r"has just moved)\s+(?:back\s+)?to\s+(.+)$", pred)
    if m:
        return "residence", _value(m.group(1)), positive
    m = re.match(r"^(?:is|comes?|was born and raised|grew up)\s+(?:originally\s+)?(?:from|in)\s+"
                 r"(.+)$", pred)
    if m and not pred.startswith("is in "):
        return "hometown", _value(m.group(1)), positive
    m = re.match(r"^(?:works?|is working|has worked)\s+as\s+(?:an?\s+)?(.+)$", pred)
    if m:
        return "occupation", _value(m.group(1)), positive
    m = re.match(r"^(?:works?|is working|is employed)\s+(?:at|for|by)\s+(.+)$", pred)
    if m:
        return "employer", _value(m.group(1)), positive
    m = re.match(r"^(?:is|became|has become)\s+(?:an?\s+)([\w -]+)$", pred)
    if m and m.group(1).split()[-1] in _OCCUPATIONS:
        return "occupation", _value(m.group(1)), positive
    m = re.match(r"^(?:is|turned|has turned|just turned)\s+(\d{1,3})(?:\s+years?\s+old)?$", pred)
    if m:
        return "age", m.group(1), positive
    m = re.match(r"^(?:is|got|has gotten|has got|became)\s+(married|single|divorced|engaged|"
                 r"widowed|separated)\b", pred)
    if m:
        return "marital status", _MARITAL[m.group(1)], positive
    m = re.match(r"^(?:is|has become|became|went|is now)\s+(?:a\s+|an\s+)?"
                 r"(vegetarian|vegan|pescatarian|carnivore|omnivore)\b", pred)
    if m:
        return "diet", m.group(1), positive
    if re.match(r"^eats?\s+(?:red\s+)?meat\b", pred):
        # "does not eat meat" is a vegetarian diet; "eats meat" is not
        return "diet", "vegetarian", not positive
    m = re.match(r"^(?:is named|is called|goes by)\s+(.+)$", pred)
    if m:
        return "name", _value(m.group(1)), positive
    m = re.match(r"^(?:has|have)\s+(\d+|no|zero|one|two|three|four|five|six|seven|eight|nine|"
                 r"ten)\s+(kids?|children|child|sons?|daughters?|siblings?|brothers?|sisters?|dogs?|"
                 r"cats?|pets?|grandchildren|grandchild)\b", pred)
    if m:
        count = m.group(1)
        number = int(count) if count.isdigit() else _NUMBERS[count]
        noun = stem(m.group(2))
        return f"number of {noun}", str(number), positive
    m = re.match(r"^(?:drives|drive|owns a car,? a)\s+(?:an?\s+|the\s+)?(.+)$", pred)
    if m:
        return "vehicle", _value(m.group(1)), positive
    return None


def _multi_valued(subject: str, pred: str, positive: bool, when: str) -> Slot:
    """Likes/dislikes of one thing, or any other predicate keyed by its stemmed words."""
    words = pred.split()
    verb = words[0]
    if verb in _POSITIVE_LIKES or verb in _NEGATIVE_LIKES or pred.startswith("can't stand "):
        obj = " ".join(words[1:]) if not pred.startswith("can't stand ") else pred[12:]
        liked = verb in _POSITIVE_LIKES
        key = " ".join(stem(w) for w in _WORD.findall(obj) if w not in _STOP)
        return Slot(subject, f"like:{key}", "", liked == positive, False, bool(when), when)
    key = " ".join(stem(w) for w in _WORD.findall(pred) if w not in _STOP)
    return Slot(subject, f"do:{key}", "", positive, False, bool(when), when)


def _same_attribute(a: str, b: str) -> bool:
    """Equal attributes; for likes, also one object's words within the other's ("jazz" /
    "jazz music")."""
    if a == b:
        return True
    if a.startswith("like:") and b.startswith("like:"):
        wa, wb = set(a[5:].split()), set(b[5:].split())
        return bool(wa) and bool(wb) and (wa <= wb or wb <= wa)
    return False


def _numbers_differ(ta: frozenset[str], tb: frozenset[str]) -> bool:
    """Values equal but for their numbers ("3000 dollars" / "5000 dollars")."""
    na = {t for t in ta if t.isdigit()}
    nb = {t for t in tb if t.isdigit()}
    return bool(na) and bool(nb) and na != nb and ta - na == tb - nb


def _denied_generalisation(a: Slot, b: Slot) -> str | None:
    """A denial of a more general claim: "does not have a cat" against "has a cat named
    Luna" (the denied words, at least two, all within the affirmed predicate)."""
    if a.positive == b.positive or not (a.attribute.startswith("do:")
                                        and b.attribute.startswith("do:")):
        return None
    affirmed, denied = (a, b) if a.positive else (b, a)
    words_denied = denied.attribute[3:].split()
    words_affirmed = affirmed.attribute[3:].split()
    if len(words_denied) >= 2 and words_affirmed[: len(words_denied)] == words_denied:
        return "conflict"
    return None


def same_subject(a: Slot, b: Slot) -> bool:
    """Whether two slots are about the same subject ("the user" matches only itself)."""
    return a.subject == b.subject


def compare(a: Slot, b: Slot) -> str | None:
    """How two slots of the same subject relate.

    Returns:
        ``"same"`` (same attribute, value and polarity: a restatement), ``"conflict"`` (they
        cannot both hold now), or ``None`` (unrelated, or not sure).

    Conflicts: a single-valued attribute with disjoint values (both affirmed) unless both facts
    are dated events (both may have held at their times), or one fact denying what the other
    affirms. Values that share words ("Lisbon" / "Lisbon, Portugal") are never a conflict.
    """
    if a.subject != b.subject:
        return None
    if not _same_attribute(a.attribute, b.attribute):
        return _denied_generalisation(a, b)
    if a.dated and b.dated and a.when != b.when:
        return None  # events at different times may both be true
    ta, tb = value_terms(a.value), value_terms(b.value)
    same_value = a.value == b.value or (bool(ta) and bool(tb) and (ta <= tb or tb <= ta))
    if same_value:
        return "same" if a.positive == b.positive else "conflict"
    if not a.single or not (ta and tb):
        return None
    if ta & tb and not _numbers_differ(ta, tb):
        return None
    if a.positive and b.positive:
        return None if (a.dated and b.dated) else "conflict"
    return None
