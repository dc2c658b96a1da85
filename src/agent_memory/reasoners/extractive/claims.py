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

_ENDING = word_set("quit quits quitting stop stops stopped stopping cease ceased sold sell sells "
                   "selling close closes closed left leave leaves cancel cancelled canceled "
                   "ended end ends abandon abandoned lost lose loses losing finished finish "
                   "finishes completed complete completes recovered recover recovers cleared clears "
                   "resigned resign resigns retired retire retires withdrew withdraw withdraws "
                   "withdrawn graduated graduate graduates divorced divorce divorces fired "
                   "expelled dismissed")
"""Lemmas (and irregular forms) of aspectual and terminative verbs that end a state, an
activity or a membership ("quit", "sold", "lost", "finished", "recovered from", "resigned
from", "graduated from", "divorced"); the claim denies their object. Without an object
("has retired") the verb is the state itself."""
_COMPLETING = word_set("finished finish finishes completed complete completes graduated "
                       "graduate graduates")
"""Terminative verbs of completion: the activity ends in its result ("finished her degree"
ends the studying, not the having of the degree)."""
_ENDING_WITH_PARTICLE = word_set("gave give gives giving given paid pay pays broke break breaks "
                                 "drop dropped drops fell fall falls")
"""Verbs that end a state only with a particle ("gave up", "gave ... away", "paid off",
"broke up with", "dropped out of", "fell out with"): "gave birth" and "pays rent" do not."""
_LIKING = word_set("like likes liked love loves loved enjoy enjoys enjoyed adore adores adored "
                   "prefer prefers preferred")
_DISLIKING = word_set("dislike dislikes disliked hate hates hated detest detests detested "
                      "loathe loathes loathed")
"""Verbs of liking and disliking (a closed evaluative class): "hates jazz" is read as the
denial of "likes jazz", so "loves jazz" / "hates jazz" contradict and "enjoys hiking" /
"likes hiking" restate."""
_TOLERATE = re.compile(r"^(?:stand|bear|abide|stomach)\s+", re.IGNORECASE)
"""Verbs of tolerating: denied ("can't stand", "cannot bear"), they express disliking."""
_BEGINNING = word_set("moved move moves relocated relocate relocates started start starts "
                      "began begin begins became become becomes switched switch took joined "
                      "join joins adopted adopt adopts bought buy buys now")
"""Lemmas of verbs that begin a state (an onset), and the adverb "now"."""
_IRREALIS = re.compile(r"^(?:(?:is|are)\s+)?(?:plans?|planning|wants?|wanting|hopes?|hoping|"
                      r"intends?|intending|aims?|aiming|wishes|wish|dreams?|dreaming|"
                      r"considering|considers|thinking about|trying|tries|going|would like|"
                      r"expects?|expecting|looking\s+(?:for|into)|searching\s+for|"
                      r"learning|thinking\s+of|exploring|studying(?=\s+to\b)|"
                      r"training(?=\s+to\b)|will)\s+(?:to\s+|of\s+)?", re.IGNORECASE)
"""Verbs of intention, desire, expectation and of seeking (a closed class of modal and
conative verbs: "plans to", "hopes to", "is looking for", "is learning to"): what they govern
has not happened, so an irrealis claim never restates a realised one ("plans to retire" / "has
retired"), and a later realised claim settles it."""

_ONSET = word_set("started start starts began begin begins")
"""Aspectual verbs of onset that take a gerund ("started going"): the gerund is the state."""
_PARTICLE = re.compile(r"^(?:up|off|out|down|away|from)(?:\s+(?:with|of|on))?\s+")
_TRAILING_PARTICLE = re.compile(r"\s+(?:up|off|away)$")
_CLAUSE = re.compile(r"\s*(?:,\s*|\s)(?:because|since|after|although|though|while|so that|"
                     r"and then|but)\b.*$|:.*$", re.IGNORECASE)
"""A subordinate or appended clause (reason, time, concession): set aside, it is not what the
fact claims about its subject ("no longer owns his pizzeria because he sold it")."""
_CESSATION_TAIL = re.compile(r"\s+(?:and|to|for|in order to)\s+.*$", re.IGNORECASE)
"""After a cessation's object: "left Sony to join Nintendo", "quit her job and now ..."."""
_GERUND_TAIL = re.compile(r"\s+(?:and|in order to)\s+.*$", re.IGNORECASE)
_ORIGIN = re.compile(r"^(?:from|out of)\s+.+?\s+(?=to\s)", re.IGNORECASE)
"""The source of an onset ("moved from Sony to Nintendo"): the claim is about the target."""
_QUANTITY_CHANGE = word_set("rose rise rises risen increased increase increases "
                            "decreased decrease decreases fell fall falls dropped climbed grew")
"""Verbs of a change of amount ("rent went up to 1,650"): in a predicate with a number, the
number carries the change, so they do not tell two predicates apart; elsewhere ("fell off her
bike", "goes to church") they are content words."""
_LIGHT = word_set("be is are was were am been being have has had having do does did get gets "
                  "got getting become became has_been go goes going went gone")
"""Light verbs (be, have, do, get, become, go): they carry tense and motion, while the noun or
gerund after them carries the claim ("goes to church", "went camping")."""
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_UNITS_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9}
_COMPOUND = re.compile(r"\b(" + "|".join(_TENS) + r")[- ](" + "|".join(_UNITS_WORDS) + r")\b",
                       re.IGNORECASE)
_NUMBER_WORDS = {"zero": "0", "no": "0", "one": "1", "two": "2", "three": "3", "four": "4",
                 "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
                 "eleven": "11", "twelve": "12", "twenty": "20", "thirty": "30",
                 "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80",
                 "ninety": "90", "hundred": "100"}
_NUMBER = re.compile(r"\$?\d[\d,]*(?:\.\d+)?k?|\b(?:" + "|".join(
    w for w in _NUMBER_WORDS if w != "no") + r")\b", re.IGNORECASE)
_LEADING_DATE = re.compile(
    r"^(?:in|on|since|as of|by)\s+(?:\d{1,2}\s+)?(?:january|february|march|april|may|june|"
    r"july|august|september|october|november|december|\d{4}|spring|summer|autumn|fall|"
    r"winter)\b[\w ]*?,?\s+(?=[A-Z])|^(?:every|each|last|next|this)\s+\w+,?\s+(?=[A-Z])",
    re.IGNORECASE)
_NEG_INSIDE = re.compile(r"\b(?:no longer|never)\b\s*", re.IGNORECASE)
_FALL = word_set("fell fall falls")
_TIME_OF_DAY = re.compile(r"\s*\b(?:in the (?:morning|afternoon|evening)|at (?:night|noon|"
                          r"midnight|dawn|dusk|lunchtime))\b", re.IGNORECASE)
"""A time of day ("in the morning", "at night"): like a date or a frequency, it tells when,
not what."""
_RELATIVE_TIME = re.compile(r"(?<!\blook )(?<!\blooks )(?<!\blooked )(?<!\blooking )"
                            r"(?<!\btake )(?<!\btakes )(?<!\btook )(?<!\bnamed )(?<!\bran )"
                            r"(?<!\bruns )(?<!\basked )(?<!\basks )(?<!\bchased )"
                            r"\b(?:before|after)\s+(?!\w+ing\b)(?:(?:the|a|an|his|her|their|"
                            r"my|our)\s+)?\w+(?=[.!]?$)", re.IGNORECASE)
"""A time relative to an event, ending the sentence ("goes to the gym *before work*", "after
her divorce"): it tells when, so "before work" / "after work" are other times. The objects of
phrasal verbs ("looks after", "takes after", "is named after", "ran after") are not times."""
_PAST_STATE = re.compile(r"^(?:(?:was|were)\s+(?:(?:married|engaged|employed|unemployed|"
                         r"divorced|separated|widowed|based|located|involved|interested)\b|"
                         r"(?!\w+(?:ed|en|wn|ught)\b|born\b|made\b|told\b|sent\b|hit\b|"
                         r"left\b)\w+)|had\s+(?:an?|the|his|her|their|no|\d+|two|three|four|"
                         r"five|several|many|some)\b)", re.IGNORECASE)
"""A past-tense copula or possession heading a state that may have ended ("was married to",
"was a nurse", "had a cat"); passives ("was promoted", "was diagnosed", "was born") are
events, not such states, except the participles that name a state (married, employed, ...)."""


def _past_state(predicate: str) -> bool:
    """Whether ``predicate`` is a state in the past tense (:data:`_PAST_STATE`)."""
    return bool(_PAST_STATE.match(predicate))
_USED_TO = re.compile(r"^used\s+to\s+", re.IGNORECASE)
"""The past habitual ("used to play chess"): held once, not now."""
_PAST = frozenset({"was", "were", "had", "did", "went", "grew", "taught", "worked", "lived"})
"""Past-tense forms that do not end in -ed, before "until" ("was a nurse until 2019")."""
_HAS_NO = re.compile(r"^(has|have|had)\s+no\s+(?!longer\b|one\b)", re.IGNORECASE)
"""Possession denied by the determiner "no" ("has no siblings", "has no savings left")."""
_FORMER = re.compile(r"^(?:is|was)\s+(?:an?\s+)?(?:former\s+|ex-\s*|ex\s+)", re.IGNORECASE)
"""A privative modifier on the predicate noun ("is a former smoker", "is an ex-smoker"): the
state has ended, read like a cessation."""
_REMAINING = re.compile(r"\s+(?:left|remaining|left over)$", re.IGNORECASE)
"""A quantity's remainder ("has no savings left"): not a leaving."""
_WHO = re.compile(r"^(?:has|have)\s+an?\s+(?:(?:younger|older|little|big|best)\s+)?(\w+)\s+"
                  r"(?:who|that)\s+(.+)$", re.IGNORECASE)
_AGE = re.compile(r"\b(?:years?|months?)[- ]old\b")
_UNITS = word_set("dollars dollar euros euro pounds years year aged as from up by into "
                  "out about over off all any anyone anything anybody someone something "
                  "somebody every each himself herself themselves myself yourself")
"""Units of numbers, prepositions, quantifiers/indefinite pronouns and reflexive pronouns
(closed classes) that do not tell two predicates apart ("paid off all her loans" / "has loans")."""
_ADVERBS = re.compile(r"\b(?:currently|still|also|recently|just|really|already|finally|"
                      r"actually)\s+", re.IGNORECASE)


_STARTERS = "|".join(sorted(_ENDING | _ENDING_WITH_PARTICLE | _BEGINNING | _LIKING | _DISLIKING,
                            key=len, reverse=True))
_CONJUNCT = re.compile(
    r"\s*(?:;\s*|,?\s+but\s+|,?\s+and\s+(?:then|also)\s+|,?\s+and\s+(?=(?:now|no longer|never|"
    r"(?:does|did|is|was|has)(?:\s*n[o']t|\s+not)?|\w{3,}ed|" + _STARTERS + r")\s|"
    r"\w+s\s+(?:a|an|the|his|her|their|my|our|its)\s))", re.IGNORECASE)
"""Where a second verb phrase of the same subject begins ("quit her pharmacy job *and now*
teaches yoga", "runs a dance studio *and no longer* works in banking", "took up yoga *and
quit* smoking", "loves his job *but* hates his boss", "...; he also runs a blog"): a semicolon,
"but", or "and" before a negation cue, "now", "also", an auxiliary, a verb in ``-ed``, a verb
that begins, ends, likes or dislikes, or a word in ``-s`` before a determiner ("and runs *a*
blog"). Another word in ``-s`` may be a plural noun ("has dogs and cats at home"), so it does
not start a phrase."""
_PRONOUN_SUBJECT = re.compile(r"^(?:he|she|they|we|i)\s+", re.IGNORECASE)
MAX_PHRASES = 3
"""Verb phrases read per fact (the first and two more): the reconciler compares every phrase
of one fact with every phrase of the other, so the cost grows with their product."""


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
        when: the explicit time as written (lower-cased): a date, a frequency ("twice a
            week"), a time of day; ``""`` when none.
        irrealis: the predicate is governed by a verb of intention or desire ("plans to").
        words: the content words of the predicate as written (lower case, unstemmed), for
            lexical relations (:mod:`.lexical`).
        past: the predicate is a state in the past tense ("was married to Tom", "had a
            cat"): it may no longer hold, so it never restates the present one.
        completed: the ending is a completion ("finished her degree", "graduated from
            college"): the activity ended, and what it earned is held.
    """

    subject: str
    predicate: str
    positive: bool
    change: str
    numbers: frozenset[str]
    terms: frozenset[str]
    when: str = ""
    irrealis: bool = False
    words: frozenset[str] = frozenset()
    past: bool = False
    completed: bool = False


def numbers_in(text: str) -> frozenset[str]:
    """Numbers in ``text`` as digit strings: ``"$3,000"`` -> ``"3000"``, ``"two"`` -> ``"2"``,
    ``"5k"`` -> ``"5000"``, ``"twenty-nine"`` -> ``"29"``."""
    text = _COMPOUND.sub(lambda m: str(_TENS[m.group(1).lower()]
                                       + _UNITS_WORDS[m.group(2).lower()]), text)
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


_IRREGULAR = {"going": "go", "doing": "do", "being": "be", "having": "have"}
_DOUBLED = re.compile(r"([bdgkmnprt])\1$")
"""A consonant doubled before ``-ing`` / ``-ed`` ("running", "planned", "stopped"); ``l``,
``s``, ``z`` and ``f`` are left alone because they double in the base form too ("falling",
"dressed", "buzzing", "stuffed")."""
_REPETITION = re.compile(r"\b(?:once more|once again|again|anew|now)\b", re.IGNORECASE)
"""Adverbs of repetition and of the present ("again", "once more", "now"): a closed class that
marks when a state holds, not what it is ("is running for office again" / "decided to run for
office once more")."""


def stem_term(word: str) -> str:
    """:func:`.slots.stem` with gerunds of two-letter verbs, a final ``-y`` and a consonant
    doubled before ``-ing`` / ``-ed`` folded ("going" -> "go", "injury" / "injured" ->
    "injur", "studies" / "study" -> "stud", "running" / "run" -> "run")."""
    inflected = word.endswith(("ing", "ed"))
    word = stem(_IRREGULAR.get(word, word))
    if inflected and len(word) > 3:
        word = _DOUBLED.sub(r"\1", word)
    return word[:-1] if word.endswith("y") and len(word) > 4 else word


_PROGRESSIVE = re.compile(r"^(?:is|are)\s+(\w+ing)\b", re.IGNORECASE)
_CHANGE_STEMS = frozenset(stem_term(w) for w in _BEGINNING | _ENDING) - {"now"}
"""Stems of the verbs that begin or end a state: in the progressive ("is moving to Oslo", "is
quitting her job") they name an arranged change, which has not happened yet."""


PRIVATIVE = frozenset(stem_term(w) for w in [
    "former", "formerly", "ex", "non", "retired", "previous", "previously", "erstwhile",
    "onetime", "late", "fake", "false", "mock", "faux", "imitation", "artificial", "pretend",
    "wannabe", "aspiring", "almost", "nearly", "lapsed", "would-be", "so-called", "supposed",
    "alleged", "prospective", "interim", "deputy", "vice", "assistant", "honorary", "emeritus",
    "apprentice", "toy"])
"""Privative modifiers and approximators (a closed lexical class: "former", "ex-", "non-",
"retired", "fake", "wannabe", "aspiring", "almost") deny what they modify, and role modifiers
("interim", "deputy", "assistant", "honorary", "toy") make another role or thing; words whose
stem is also a verb's ("acting", "trainee") are left out, since "acts" and "training" would
match them: "is a former
smoker" does not restate "is a smoker", though its terms contain the other's; two facts whose
terms differ by one of them are never duplicates."""


def content_words(predicate: str, stemmed: bool = True) -> list[str]:
    """Content words of a predicate in order (no numbers, stop words, light verbs, units,
    quantifiers, adverbs of repetition, nor verbs of a change of amount beside a number),
    stemmed unless ``stemmed`` is false."""
    text = _REPETITION.sub(" ", _COMPOUND.sub(" ", predicate.lower()))
    amount = _QUANTITY_CHANGE if _NUMBER.search(text) else frozenset()
    text = _AGE.sub(" ", text)  # "34 years old": a unit; "her old car": an adjective
    words = [w for w in _WORD.findall(_NUMBER.sub(" ", text))
             if w not in _STOP and w not in _LIGHT and w not in _NUMBER_WORDS
             and w not in _UNITS and w not in amount]
    return [stem_term(w) for w in words] if stemmed else words


def terms_of(predicate: str) -> frozenset[str]:
    """Stemmed content words of a predicate (no numbers, stop words or light verbs)."""
    return frozenset(content_words(predicate))


def intended(claim: Claim) -> frozenset[str]:
    """Terms of what an irrealis claim intends ("plans to retire at 60" -> ``{"retir"}``);
    the claim's terms when it is not irrealis."""
    if not claim.irrealis:
        return claim.terms
    return terms_of(_IRREALIS.sub("", claim.predicate, count=1))


def _masked(text: str, subject_hint: str | None) -> tuple[str, str] | None:
    """``(subject, predicate)`` of a fact whose subject is not its grammatical subject ("Dance
    is Gina's way to relieve stress"): the subject's mentions are masked out of the sentence."""
    if not subject_hint or text.lower().startswith(subject_hint.lower()):
        return None
    mention = re.compile(rf"\b{re.escape(subject_hint)}(?:'s|s')?\s*", re.IGNORECASE)
    if not mention.search(text):
        return None
    return subject_hint.lower(), mention.sub("", text).strip()


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
    for found in (*_HABITUAL.finditer(text), *_TIME_OF_DAY.finditer(text),
                  *_RELATIVE_TIME.finditer(text)):
        # how often and at what time of day: two facts at other times may both hold
        when = " ".join(filter(None, [when, " ".join(found.group(0).lower().split())]))
    text = _RELATIVE_TIME.sub("", _TIME_OF_DAY.sub("", _HABITUAL.sub("", text))).strip(" ,")
    positive = not _ANYMORE.search(text)
    ended = not positive  # "no longer", "anymore": a state that held has ended
    text = _ANYMORE.sub("", text).strip(" ,")
    split = _masked(text, subject_hint) or split_subject(text, subject_hint)
    if split is None:
        return None
    subject, rest = split
    if rest.startswith(("'s ", "s' ")):
        rest = rest[3:]  # "<subject>'s favorite color is green": the attribute is the predicate
    who = _WHO.match(rest)
    if who and who.group(1).lower() in _RELATIONS:
        subject, rest = f"{subject}'s {who.group(1).lower()}", who.group(2)
    rest = _ADVERBS.sub("", _verb_phrases(rest)[0])  # further verb phrases: conjoined_claims
    clause = _CLAUSE.sub("", rest).strip(" ,")
    # a clause is set aside unless only the verb would be left ("is named after her aunt",
    # "looks after her niece": a bare verb would match anything)
    rest = clause if len(content_words(clause)) > 1 or clause == rest else rest
    rest = _REMAINING.sub("", rest)
    neg = _NEGATION.match(rest)
    if neg:
        positive, rest = False, rest[neg.end():]
        ended = ended or neg.group(0).lower().startswith("no longer")
    has_no = _HAS_NO.match(rest)
    if has_no:
        positive, rest = False, f"{has_no.group(1)} {rest[has_no.end():]}"
    former = _FORMER.match(rest)
    if former and positive:
        positive, rest, ended = False, f"is a {rest[former.end():]}", True
    inside = _NEG_INSIDE.search(rest)
    if inside:
        ended = ended or inside.group(0).lower().startswith("no longer")
        positive, rest = False, _NEG_INSIDE.sub("", rest)
    if not positive and _TOLERATE.match(rest):
        positive, rest = True, f"dislikes {_TOLERATE.sub('', rest)}"  # "can't stand jazz"
    attitude = rest.split(" ", 1)
    if len(attitude) == 2 and attitude[0].lower() in _LIKING | _DISLIKING:
        positive = positive == (attitude[0].lower() in _LIKING)
        past_tense = attitude[0].lower().endswith("ed")  # "loved her job": it may have ended
        rest = f"{'liked' if past_tense else 'likes'} {attitude[1]}"
    used = _USED_TO.match(rest)
    if used and positive:  # "used to volunteer there": a past habit, no longer held
        positive, ended, rest = False, True, rest[used.end():]
    words = rest.split()
    head = words[0].lower() if words else ""
    if when.startswith("until") and positive and (head.endswith("ed") or head in _PAST):
        positive, ended = False, True  # "lived in Paris until 2020": the state has ended
    change = "end" if ended else ""
    if head in ("has", "have", "had", "was", "were", "got") and len(words) > 1:
        verb = words[1].lower()  # "has quit", "has moved", "was dropped from", "got fired"
        if verb in _ENDING or verb in _BEGINNING or verb in _ENDING_WITH_PARTICLE:
            head, rest = verb, " ".join(words[1:])
        elif head in ("has", "have", "had"):
            head = verb
    tail = rest.split(" ", 1)[1] if " " in rest else ""
    ends = head in _ENDING or (head in _ENDING_WITH_PARTICLE and (
        _PARTICLE.match(tail) or _TRAILING_PARTICLE.search(_CESSATION_TAIL.sub("", tail))))
    if head in _FALL and not tail.lower().startswith("out"):
        ends = False  # "fell off her bike" is an accident; only "fell out with" ends
    if ends and not _PARTICLE.sub("", tail).strip():
        ends = False  # "has retired": no object, the verb is the state
    completed = ends and head in _COMPLETING
    if ends:
        change, positive = "end", False
        obj = _PARTICLE.sub("", tail)
        gerund = re.match(r"^\w+ing\b", obj)  # "stopped going to church": "to" is not a purpose
        rest = (_GERUND_TAIL if gerund else _CESSATION_TAIL).sub("", obj).strip()
        rest = _TRAILING_PARTICLE.sub("", rest)
    elif head in _BEGINNING:
        change = "begin"
        if head == "now":
            rest = tail
        elif head in _ONSET and re.match(r"^\w+ing\b", tail):
            rest = tail  # "started going to the gym": the state is "going to the gym"
        else:
            rest = f"{rest.split(' ', 1)[0]} {_ORIGIN.sub('', tail)}".strip()
    rest = rest.strip(" ,")
    if not rest:
        return None
    intention = _IRREALIS.match(rest)
    irrealis = bool(intention) and not intention.group(0).lower().startswith("going")
    arranged = _PROGRESSIVE.match(rest)
    if arranged and stem_term(arranged.group(1).lower()) in _CHANGE_STEMS:
        irrealis = True  # "is moving to Oslo", "is selling her car": arranged, not done
    past = _past_state(rest) and not ended
    return Claim(subject, rest, positive, change, numbers_in(rest), terms_of(rest), when,
                 irrealis, frozenset(content_words(rest, stemmed=False)), past, completed)


def _verb_phrases(rest: str) -> list[str]:
    """The conjoined verb phrases of a predicate; a lone verb sharing the next one's object
    ("owns and runs a bakery") is not a phrase of its own."""
    parts = [p for p in _CONJUNCT.split(rest.strip()) if p and p.strip()]
    if not parts or len(parts[0].split()) < 2:
        return [rest]
    if len(parts) > MAX_PHRASES:  # the rest stays in the last phrase, not dropped
        parts = [*parts[:MAX_PHRASES - 1], " and ".join(parts[MAX_PHRASES - 1:])]
    return parts


def conjoined_claims(text: str, subject_hint: str | None = None) -> list[Claim]:
    """The claims of a fact's further verb phrases ("Amara quit her pharmacy job and now
    teaches yoga" -> the claim "Amara now teaches yoga"); empty when it has one.

    :func:`parse_claim` reads the first verb phrase and sets the rest aside; these are the
    rest, each read with the fact's subject.
    """
    split = split_subject(clean(text), subject_hint)
    if split is None:
        return []
    subject, rest = split
    parts = _verb_phrases(rest)
    out = []
    for part in parts[1:]:
        part = _PRONOUN_SUBJECT.sub("", part.strip())  # "...; he also runs a blog"
        claim = parse_claim(f"{subject} {part}", subject)
        if claim is not None and claim.terms:
            out.append(claim)
    return out
