"""Structural contrasts between two predicates that embeddings do not see.

Sentence embeddings place antonyms and swapped arguments close together ("owns his apartment"
/ "rents his apartment" 0.848, "prefers tea over coffee" / "prefers coffee over tea" 0.995 with
all-MiniLM-L6-v2), so the reconciler (:mod:`.reconcile`) reads the structure of the two
predicates before it trusts their cosine:

- a **minimal pair** differs in exactly one content word on each side with the rest shared:
  the one place where an antonym ("owns" / "rents", "full time" / "part time") hides, so a
  minimal pair is merged only by the stricter predicate threshold, never by sentence cosine;
- a **swapped comparison** has the same content words in another order around a comparative
  ("over", "than", "rather than", "instead of", "to"): the arguments changed roles;
- **different counts of one thing**: the same head verb and the same counted noun with another
  number ("has two pets" / "has three pets");
- **opposite directions of one change**: the same words around "up" / "down" ("rent went up" /
  "rent went down", "increased" / "decreased"), or opposite particles after a copula ("is in
  debt" / "is out of debt");
- **other units or ordinals**: "50,000 dollars" / "50,000 euros", "first floor" / "fifth floor"
  are not the same value;
- **the same time** written two ways ("on 3 March" / "on March 3");
- **other qualifiers** of the same content words (:func:`qualifiers_differ`): "lives *near*
  Paris", "rents a room *from* / *to* her aunt", "*will* / *might* move", "*half* / *all* of
  the money", "is *mostly* vegan", "*thinks* he is sick", "*half-sister*", "owns" / "owned".

Contrast sets and minimal pairs as probes of what a model distinguishes: Gardner et al.,
"Evaluating Models' Local Decision Boundaries via Contrast Sets", Findings of EMNLP 2020.
"""

from __future__ import annotations

import re

from .claims import content_words, numbers_in, stem_term

_COMPARATIVE = re.compile(r"\b(?:over|than|rather than|instead of|to)\b", re.IGNORECASE)
_COUNTED = re.compile(r"(?:\$?\d[\d,]*(?:\.\d+)?|\b(?:no|zero|one|two|three|four|five|six|"
                      r"seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty)\b)"
                      r"(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?\s+"
                      r"(?:(?:more|new|young|old|little|small|big|adult)\s+)?([a-z]+)",
                      re.IGNORECASE)
_TOKEN = re.compile(r"[a-z]+|\d+")


def minimal_pair(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two term sets differ in exactly one term each, sharing at least one."""
    return len(a - b) == 1 and len(b - a) == 1 and bool(a & b)


def swapped_comparison(a: str, b: str) -> bool:
    """Whether two predicates with the same content words in another order compare them
    ("prefers tea over coffee" / "prefers coffee over tea")."""
    return bool(_COMPARATIVE.search(a) and _COMPARATIVE.search(b)) and (
        content_words(a) != content_words(b))


def _counts(predicate: str) -> dict[str, frozenset[str]]:
    """Counted noun (stemmed) -> its numbers, e.g. ``{"pet": {"2"}}`` for "has two pets"."""
    out: dict[str, set[str]] = {}
    for match in _COUNTED.finditer(predicate):
        number = numbers_in(match.group(0).rsplit(" ", 1)[0]) or frozenset({"0"})
        out.setdefault(stem_term(match.group(1).lower()), set()).update(number)
    return {noun: frozenset(numbers) for noun, numbers in out.items()}


def counts_differ(a: str, b: str) -> bool:
    """Whether two predicates with the same head verb count one noun differently ("has two
    pets, a dog and a cat" / "has three pets")."""
    head_a, head_b = a.split()[:1], b.split()[:1]
    if not head_a or not head_b or head_a[0].lower() != head_b[0].lower():
        return False
    counts_a, counts_b = _counts(a), _counts(b)
    return any(noun in counts_b and counts_a[noun] != counts_b[noun] for noun in counts_a)


_UP = frozenset({"up", "rose", "risen", "rises", "increased", "increases", "higher", "more"})
_DOWN = frozenset({"down", "fell", "fallen", "falls", "decreased", "decreases", "lower",
                   "less"})
"""Words of the direction of a change (a closed class)."""


_OPPOSITE_PARTICLES = (("in", "out"), ("on", "off"), ("for", "against"))
"""Prepositions of opposite state after a copula ("is in debt" / "is out of debt", "is on a
diet" / "is off his diet", "is for the plan" / "is against the plan")."""
_COPULA = re.compile(r"^(?:is|are|was|were|am)\s+(\w+)", re.IGNORECASE)


def opposite_direction(a: str, b: str) -> bool:
    """Whether two predicates state one change or state in opposite directions: one has a
    word of :data:`_UP` and the other of :data:`_DOWN` ("rent went up" / "rent went down"),
    or they open with a copula and opposite particles (:data:`_OPPOSITE_PARTICLES`), their
    content words otherwise the same."""
    words_a, words_b = set(_TOKEN.findall(a.lower())), set(_TOKEN.findall(b.lower()))
    direction = _UP | _DOWN
    if (words_a & _UP and words_b & _DOWN) or (words_a & _DOWN and words_b & _UP):
        return set(content_words(a)) - direction == set(content_words(b)) - direction
    first_a, first_b = _COPULA.match(a), _COPULA.match(b)
    if not first_a or not first_b:
        return False
    pair = {first_a.group(1).lower(), first_b.group(1).lower()}
    particles = {w for both in _OPPOSITE_PARTICLES for w in both}
    return (any(pair == {x, y} for x, y in _OPPOSITE_PARTICLES)
            and set(content_words(a)) - particles == set(content_words(b)) - particles)


_MEASURE_UNITS = {
    "currency": {"dollar": ("$", "dollar", "dollars", "usd", "bucks"),
                 "euro": ("€", "euro", "euros", "eur"), "pound": ("£", "pound", "pounds", "gbp"),
                 "yen": ("yen",), "rupee": ("rupee", "rupees")},
    "distance": {"mile": ("mile", "miles"),
                 "km": ("km", "kilometre", "kilometres", "kilometer", "kilometers"),
                 "m": ("metre", "metres", "meter", "meters"), "foot": ("foot", "feet"),
                 "yard": ("yard", "yards")},
    "weight": {"kg": ("kg", "kilo", "kilos", "kilogram", "kilograms"),
               "lb": ("lb", "lbs"), "stone": ("stone",)},
    "duration": {"minute": ("minute", "minutes", "min", "mins"), "hour": ("hour", "hours"),
                 "day": ("day", "days"), "week": ("week", "weeks"),
                 "month": ("month", "months"), "year": ("year", "years")},
}
"""Units of measure by dimension, each with its spellings (a closed class): "50,000 dollars"
and "50,000 euros" are other amounts, "5 miles" and "5 kilometres" other distances, while
"92 kg" and "92 kilograms" are one weight."""
_UNIT_OF = {spelling: (dim, unit) for dim, units in _MEASURE_UNITS.items()
            for unit, spellings in units.items() for spelling in spellings}
_MEASURE = re.compile(r"([$€£])\s?\d|\b\d[\d,.]*\s*(?:k\s+)?([a-z]+)|\b(?:one|two|three|four|"
                      r"five|six|seven|eight|nine|ten|twelve|twenty|thirty|forty|fifty|"
                      r"hundred|thousand)\s+([a-z]+)", re.IGNORECASE)
_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                      r"eleventh|twelfth|\d+(?:st|nd|rd|th))\b", re.IGNORECASE)


def _measures(predicate: str) -> dict[str, set[str]]:
    """Dimension -> the units a number in ``predicate`` is measured in."""
    out: dict[str, set[str]] = {}
    for match in _MEASURE.finditer(predicate):
        spelling = (match.group(1) or match.group(2) or match.group(3) or "").lower()
        if spelling in _UNIT_OF:
            dimension, unit = _UNIT_OF[spelling]
            out.setdefault(dimension, set()).add(unit)
    return out


def measures_differ(a: str, b: str) -> bool:
    """Whether two predicates measure in other units of one dimension ("50,000 dollars" /
    "50,000 euros", "5 miles" / "5 kilometres"), or name other ordinals ("first floor" /
    "fifth floor")."""
    units_a, units_b = _measures(a), _measures(b)
    if any(dim in units_b and not units_a[dim] & units_b[dim] for dim in units_a):
        return True
    ordinals_a = {m.lower() for m in _ORDINAL.findall(a)}
    ordinals_b = {m.lower() for m in _ORDINAL.findall(b)}
    return bool(ordinals_a) and bool(ordinals_b) and ordinals_a != ordinals_b


def same_time(a: str, b: str) -> bool:
    """Whether two time expressions name the same time (same words and numbers, any order)."""
    return set(_TOKEN.findall(a.lower())) == set(_TOKEN.findall(b.lower()))


_RELATIONAL = frozenset({"near", "nearby", "outside", "without", "except", "beyond", "around",
                         "opposite", "instead", "north", "south", "east", "west", "across",
                         "upstairs", "downstairs", "beside"})
"""Prepositions and adverbs that place a thing relative to another, or exclude it ("lives
*near* Paris", "lives *without* her parents"): a closed class, present on one side only, they
change what is claimed though every content word is shared."""
_PREPOSITIONS = {"in": "in", "at": "in", "on": "in", "inside": "in", "within": "in",
                 "from": "from", "to": "to", "into": "to", "towards": "to", "toward": "to",
                 "for": "for", "with": "with", "alongside": "with", "without": "without",
                 "near": "near", "beside": "near", "before": "before",
                 "after": "after", "outside": "outside", "against": "against",
                 "under": "under", "below": "under", "beneath": "under", "over": "over",
                 "above": "over", "behind": "behind", "front": "front", "across": "across",
                 "north": "north", "south": "south", "east": "east", "west": "west",
                 "of": "of", "about": "about"}
"""Prepositions (and the nouns of "in front of", "north of") by the role they give their
object; "in", "at", "on" all locate."""
_REWORDED_ROLES = frozenset(frozenset(pair) for pair in [
    ("in", "from"), ("in", "to"), ("in", "for"), ("in", "of"), ("of", "to"), ("for", "to"),
    ("of", "about"), ("of", "for"), ("in", "near")])
"""Pairs of roles that paraphrases swap ("grew up *in* Porto" / "is *from* Porto", "works
*for* / *at* the council", "a member *of* / belongs *to* a club"); every other pair of roles
places the object otherwise ("rents a room *from* / *to* her aunt", "works *for* / *with* his
father", "*before* / *after* work", "*behind* / *in front of* the house"). "Near" against
"in" is read by the relational check instead, which needs the word on one side only."""
_DETERMINERS = frozenset({"a", "an", "the", "his", "her", "their", "my", "our", "its", "this",
                          "that", "these", "those", "your", "one", "some"})
_MODALS = {"will": "will", "shall": "will", "would": "would", "might": "might", "may": "might",
           "could": "might", "can": "can", "should": "should", "ought": "should",
           "must": "must"}
"""Modal auxiliaries by what they say of the claim ("will move" / "might move": how certain or
obligatory it is); "might", "may" and "could" say the same."""
_QUANTIFIERS = frozenset({"all", "most", "many", "much", "some", "few", "half", "several",
                          "none", "every", "each", "both", "either", "neither", "part"})
"""Quantifiers ("half of the money" / "all of the money"): different ones, both present, are
different amounts."""
_PARTITIVES = frozenset({"half", "some", "part", "most", "few", "portion", "quarter", "third",
                         "share", "stake"})
"""Quantifiers of a part ("gave *half* her savings", "owns *part* of the restaurant"): on one
side only, the claim is about less than the whole. A universal on one side ("paid off *all*
her loans" / "has loans") is no such difference."""
_HEDGES = frozenset({"mostly", "partly", "partially", "largely", "mainly", "sometimes",
                     "occasionally", "rarely", "seldom", "barely", "hardly", "if", "unless",
                     "whenever", "when", "who", "whom", "whose", "which", "possibly", "maybe",
                     "perhaps", "probably", "apparently", "supposedly", "reportedly",
                     "somewhat", "often", "always", "usually", "frequently", "only", "kind",
                     "sort"})
"""Hedges, conditions and relative pronouns ("is *mostly* vegan", "goes running *if* the
weather is good", "is the only child *who* stayed in town"): on one side only, the claim is
weaker than the other or about something narrower."""
_PERIODS = re.compile(r"\b(?:a|an|per|every|each)\s+(year|month|week|day|night|hour)\b"
                      r"|\b(year|month|week|day|night|hour)ly\b|\b(annual)ly\b|\b(dai)ly\b")
"""The period of a rate ("50,000 a year" / "50,000 a month" / "monthly")."""
_PERIOD_NAMES = {"annual": "year", "dai": "day"}
_BOUNDS = {"about": "approx", "around": "approx", "roughly": "approx", "approximately": "approx",
           "nearly": "approx", "almost": "approx", "exactly": "exact", "precisely": "exact",
           "over": "above", "more than": "above", "at least": "above", "under": "below",
           "less than": "below", "fewer than": "below", "at most": "below", "up to": "below",
           "no more than": "below", "not more than": "below", "no less than": "above",
           "not less than": "above", "no fewer than": "above", "between": "range"}
_BOUND = re.compile(r"\b(" + "|".join(sorted(_BOUNDS, key=len, reverse=True))
                    + r")\s+(?=\$?\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|"
                    r"twenty|thirty|forty|fifty|hundred)\b)")
"""Words that bound a number ("*over* 40", "*at least* 5 km", "*exactly* 20"): another bound
is another value; an approximation against a bare number ("about 20" / "20") is the same."""
_BELIEF = re.compile(r"\b(?:thinks?|believes?|suspects?|fears?|doubts?|claims?|says?|said|"
                     r"guess(?:es)?|assumes?|imagines?|worr(?:y|ies)|wonders?|supposes?|feels?|"
                     r"convinced|sure|certain|worried|afraid|scared|hopeful)\s+(?:that|he|she|"
                     r"they|it|we|i|there)\b|\b(?:seems?|appears?|pretends?|poses?\s+as)\b")
"""A belief or pretence anywhere in the predicate ("is convinced she has the flu", "seems
happy", "poses as a doctor"): the claim is a belief, not the fact."""
_ATTITUDES = frozenset(stem_term(w) for w in [
    "thinks", "believes", "suspects", "fears", "doubts", "claims", "says", "said", "guesses",
    "assumes", "imagines", "worries", "wonders", "supposes", "pretends", "denies", "feels"])
"""Verbs of belief and report (non-factive: "Dev *thinks* he is sick" does not say he is): on
one side only, the claim is a belief, not the fact."""
_IRREGULAR_PAST = {
    "taught": "teach", "thought": "think", "bought": "buy", "brought": "bring", "wrote": "write",
    "ran": "run", "ate": "eat", "drank": "drink", "drove": "drive", "rode": "ride",
    "sang": "sing", "spoke": "speak", "swam": "swim", "sold": "sell", "felt": "feel",
    "kept": "keep", "met": "meet", "paid": "pay", "saw": "see", "slept": "sleep",
    "spent": "spend", "stood": "stand", "took": "take", "told": "tell", "won": "win",
    "wore": "wear", "grew": "grow", "knew": "know", "gave": "give", "began": "begin",
    "came": "come", "made": "make", "built": "build", "led": "lead", "held": "hold",
    "sat": "sit", "fought": "fight", "caught": "catch", "chose": "choose", "flew": "fly",
    "found": "find", "heard": "hear", "left": "leave", "lost": "lose", "sent": "send",
    "understood": "understand", "went": "go", "did": "do", "had": "have"}
"""Irregular past forms of verbs that head facts, with their base (a closed class)."""
_PRESENT_OR_PAST = re.compile(r"^(\w+?)(ed|es|s)$")
_WOULD_LIKE = re.compile(r"\bwould (?:like|love)\b")
""""would like to" is a verb of desire ("wants to"), not a modal of the claim."""
_COMPOUND_WORD = re.compile(r"\b[a-z]+(?:-[a-z]+)+\b")
_POSSESSOR = re.compile(r"\b([a-z]+)(?:'s|s')\s+([a-z]+)")


def _relates_otherwise(words: list[str], other: set[str]) -> bool:
    """Whether a predicate places a thing the other predicate also names by a relational
    word the other lacks ("lives *near* Paris" against "lives in Paris")."""
    for k, word in enumerate(words):
        if word in _RELATIONAL and word not in other:
            following = content_words(" ".join(words[k + 1:]), stemmed=False)
            if following and following[0] in other:
                return True
    return False


def _roles(words: list[str]) -> dict[str, str]:
    """The role each noun gets from the preposition before it (through determiners and one
    modifier): "rents a room from her aunt" -> ``{"aunt": "from"}``."""

    def before(k: int) -> int:
        k -= 1
        while k >= 0 and words[k] in _DETERMINERS:
            k -= 1
        return k

    roles: dict[str, str] = {}
    for k, word in enumerate(words):
        if word in _PREPOSITIONS or word in _DETERMINERS or word == "to":
            continue
        back = before(k)
        if back >= 0 and words[back] not in _PREPOSITIONS:
            back = before(back)  # one modifier: "to her *older* brother"
        if back >= 0 and words[back] in _PREPOSITIONS:
            roles.setdefault(word, _PREPOSITIONS[words[back]])
    return roles


def _tense(words: list[str]) -> tuple[str, bool] | None:
    """``(stem, past)`` of the finite verb heading a predicate (a progressive "is dating" is
    present), or ``None``."""
    head = words[0] if words else ""
    if head in ("is", "are", "am") and len(words) > 1 and words[1].endswith("ing"):
        return stem_term(words[1]), False
    if head in _IRREGULAR_PAST:
        return stem_term(_IRREGULAR_PAST[head]), True
    found = _PRESENT_OR_PAST.match(head)
    if not found:
        return None
    base = re.sub(r"(?:ied|ies)$", "y", head)  # "married" / "marries" -> "marry"
    return stem_term(base), found.group(2) == "ed"


def _fused(a: str, other_words: set[str], other: str) -> bool:
    """Whether ``a`` fuses a word of the other predicate into a compound or a possessor the
    other lacks: "half-sister" / "sister", "co-owns" / "owns", "doctor's assistant" /
    "doctor", "her neighbour's dog" / "her dog"."""
    for compound in _COMPOUND_WORD.findall(a):
        spaced = compound.replace("-", " ")
        if (compound not in other and spaced not in other
                and set(compound.split("-")) & other_words):
            return True
    return any(owner not in _DETERMINERS
               and not re.search(rf"\b{owner}(?:'s|s'|s)?\s+{following}\b", other)
               and not re.search(rf"\b{owner}(?:'s|s')\s", other)
               for owner, following in _POSSESSOR.findall(a))


_DESIRE = re.compile(r"^(?:is\s+|are\s+)?(?:wants?|hopes?|hoping|wish(?:es)?|dreams?|dreaming|"
                     r"would like|want|plans?|planning|intends?|intending|aims?|aiming)\b")
_PURSUIT = re.compile(r"^(?:is\s+|are\s+)?(?:learning|trying|tries|looking\s+for|searching|"
                      r"studying|training|working on)\b")
"""Two stages of what is not yet done: desiring it ("wants to learn Spanish") and pursuing it
("is learning Spanish"). Deliberating ("is considering", "is looking into") is neither."""


def _stage(predicate: str) -> str:
    """``"desire"``, ``"pursuit"`` or ``""`` for a predicate (lower case)."""
    return "desire" if _DESIRE.match(predicate) else "pursuit" if _PURSUIT.match(predicate) else ""


def _interval(predicate: str) -> tuple[float, float] | None:
    """The values a predicate's one number (or range) allows: ``(lo, hi)``; ``None`` when it
    has no number, several, or an approximate one."""
    text = predicate.lower()
    values = sorted(float(n) for n in numbers_in(text))
    kinds = _bound_kinds(text)
    if not values or "approx" in kinds or len(kinds) > 1:
        return None
    if kinds == {"range"} and len(values) == 2:
        return values[0], values[1]
    if len(values) != 1:
        return None
    value = values[0]
    if kinds == {"above"}:
        return value, float("inf")
    if kinds == {"below"}:
        return float("-inf"), value
    return value, value


def bounds_disagree(a: str, b: str) -> bool | None:
    """For two predicates of which one bounds its number ("is over 40", "between 30 and 40"):
    ``True`` when no value satisfies both ("over 40" / "25"), ``False`` when one may ("over
    40" / "45"), ``None`` when neither is bounded or a number cannot be read."""
    if not (bounded(a) or bounded(b)):
        return None
    range_a, range_b = _interval(a), _interval(b)
    if range_a is None or range_b is None:
        return None
    return range_a[1] < range_b[0] or range_b[1] < range_a[0]


def _bound_kinds(text: str) -> set[str]:
    """The kinds of bound on the numbers of lower-cased ``text``: ``"approx"``, ``"exact"``,
    ``"above"``, ``"below"``, ``"range"``."""
    return {_BOUNDS[m] for m in _BOUND.findall(text)}


def bounded(predicate: str) -> bool:
    """Whether a number in ``predicate`` is bounded or a range ("over 40", "between 30 and 40",
    "about 20"): it is not compared as an exact value."""
    return bool(_BOUND.search(predicate.lower()))


def _periods(predicate: str) -> set[str]:
    """The periods of the rates in ``predicate`` ("a month", "monthly", "annually")."""
    out = set()
    for groups in _PERIODS.findall(predicate):
        found = next(g for g in groups if g)
        out.add(_PERIOD_NAMES.get(found, found))
    return out


def qualifiers_differ(a: str, b: str) -> bool:
    """Whether two predicates whose content words agree are qualified differently, so they are
    never duplicates. Embeddings and content words both miss these function words:

    - a relational word on one side only ("lives near Paris" / "lives in Paris"), or another
      preposition before a shared noun ("rents a room from her aunt" / "to her aunt");
    - another modal ("will move" / "might move"), another quantifier ("half" / "all"), a
      hedge or condition on one side only ("mostly vegan", "if the weather is good"), another
      period of a rate ("a year" / "a month"), another bound on a number ("over 40" / "40",
      "about 20" / "exactly 20");
    - a belief verb heading one side only ("thinks he is sick" / "is sick");
    - a compound or possessor on one side only ("half-sister", "doctor's assistant");
    - the same head verb in another tense ("owns" / "owned", "teaches" / "taught").
    """
    a, b = (_WOULD_LIKE.sub("want", p.lower()).replace("next to", "beside")
            .replace("close to", "near") for p in (a, b))
    list_a, list_b = _TOKEN.findall(a), _TOKEN.findall(b)
    words_a, words_b = set(list_a), set(list_b)
    if _relates_otherwise(list_a, words_b) or _relates_otherwise(list_b, words_a):
        return True
    roles_a, roles_b = _roles(list_a), _roles(list_b)
    if any(role != roles_b.get(w, role)
           and frozenset((role, roles_b[w])) not in _REWORDED_ROLES
           for w, role in roles_a.items()):
        return True
    modals_a = {_MODALS[w] for w in words_a & _MODALS.keys()}
    modals_b = {_MODALS[w] for w in words_b & _MODALS.keys()}
    if modals_a != modals_b or (words_a ^ words_b) & _HEDGES:
        return True
    quant_a, quant_b = words_a & _QUANTIFIERS, words_b & _QUANTIFIERS
    if (quant_a and quant_b and quant_a != quant_b) or (words_a ^ words_b) & _PARTITIVES:
        return True
    stage_a, stage_b = _stage(a), _stage(b)
    if stage_a and stage_b and stage_a != stage_b:
        return True  # "wants to learn Spanish" / "is learning Spanish"
    period_a, period_b = _periods(a), _periods(b)
    if period_a and period_b and period_a != period_b:
        return True
    if bool(_BELIEF.search(a)) != bool(_BELIEF.search(b)):
        return True
    bounds_a, bounds_b = _bound_kinds(a), _bound_kinds(b)
    if bounds_a != bounds_b and not (bounds_a | bounds_b == {"approx"}
                                     and not (bounds_a and bounds_b)):
        return True
    if _fused(a, words_b, b) or _fused(b, words_a, a):
        return True
    head_a, head_b = list_a[0] if list_a else "", list_b[0] if list_b else ""
    if (stem_term(head_a) in _ATTITUDES) != (stem_term(head_b) in _ATTITUDES):
        return True
    tense_a, tense_b = _tense(list_a), _tense(list_b)
    return (tense_a is not None and tense_b is not None and tense_a[0] == tense_b[0]
            and tense_a[1] != tense_b[1])
