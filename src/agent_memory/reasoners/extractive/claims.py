"""Fact sentences read as claims (:class:`Claim`): the structural features of offline
reconciliation. Polarity is read from "no longer", "has no", "former", "used to" and a
cessation ("quit smoking"; a denied one goes on: "won't quit", "never stopped"; finishing one
more thing ends nothing: "finished another painting"); word classes are :mod:`.lexicon`'s,
their weight is learned (:mod:`.reconcile`). Shallow predicate-argument reading: Jurafsky
and Martin, *Speech and Language Processing* (3rd ed. draft), ch. 20.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ...text.dates import WRITTEN_TIME, resolve_dates
from ...text.numbers import numbers_in
from . import lexicon as lx

_ANCHOR = date(2000, 1, 1)
"""The reference day both facts' times are read against when compared."""

_SUBJECT = re.compile(r"^(?:(?i:the user)\b|[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)")
_PARTICLE = re.compile(r"^(?:up|off|out|down|away|from|back)(?:\s+(?:with|of|on))?\s+")
_TAIL = re.compile(r"\s+(?:(?i:and|for|in order to|because)|(?i:to)(?!\s+(?:(?i:the|an?|his|her|"
                   r"their|my|our|its)\b|[A-Z\d])))\s+.*$")
"""What follows the object of an ending verb and is no part of what ended: a second clause or
a purpose ("quit his job to travel"), not a destination ("his trip to Sydney")."""
_CLAUSE = re.compile(r"\s*(?:,\s*|\s)(?:because|although|though|while|so that)\b.*$|:.*$",
                     re.IGNORECASE)
_PAST_STATE = re.compile(r"^(?:was|were)\s+(?!born\b)|^had\s+(?:an?|the|his|her|their|\d+)\b|"
                         r"^(?-i:[a-z])\w*ed\b", re.IGNORECASE)
"""A state in the past: "was", "had a", or a verb in "-ed" ("owned", "lived"); a name in
"-ed" leading the predicate ("Ted is 5", "Alfred lives in Graz") is no verb."""
_PROGRESSIVE = re.compile(r"^(?:is|are)\s+(\w+ing)\b", re.IGNORECASE)
_NOW = re.compile(r"\s*(?<!until )(?<!by )(?<!and )\bnow\b(?!\s+that\b)", re.IGNORECASE)
"""The adverb "now" inside a predicate ("is now the manager", "takes an hour now"): the state
it marks began lately, as "moved" or "started" say."""
_CONTRAST = re.compile(r",\s*(?:(?:and|but)\s+)?not\s+((?:[\w'-]+\s*){1,3})$", re.IGNORECASE)
"""A contrastive denial closing a predicate ("are fraternal twins, not identical"): the
claim holds without it and denies its words."""
_CHANGE_STEMS = frozenset(lx.stem(w) for w in lx.BEGINNING | lx.ENDING) - {"now"}
_ONSET = re.compile(
    r"^(?:(?:up|over|out|in|on)\s+\S"
    r"|(?:an?|the|his|her|their|my|our|[\w-]+'s)\s+"
    r"(?:(?!(?:to|for|at|with|from|on|in)\b)[\w-]+\s+){0,3}(?:job|position|post|role)\b)",
    re.IGNORECASE)
"""What makes "took" an onset: a particle ("took up running") or a position taken ("took a
staff interpreter job"), not an outing ("took the kids to the zoo")."""
_COMPLETING = frozenset(("finish", "finished", "finishes", "complete", "completed", "completes"))
_ANOTHER = re.compile(r"^(?:up\s+)?(?:another|an?|one more)\s", re.IGNORECASE)
"""An object that is one more thing made ("finished another painting", "completed a quilt"):
an accomplishment, not the end of what the person does (Vendler 1957, "Verbs and times")."""


@dataclass(frozen=True)
class Claim:
    """What one fact asserts, in comparable form (see the module docstring).

    Attributes:
        subject: whom it is about, lower-cased ("ana", "ana's sister").
        predicate: the affirmative predicate, subject masked ("lives in Lisbon").
        positive: False when the fact denies the predicate or ends the state.
        change: ``"end"``, ``"begin"`` or ``""``.
        numbers: the numbers, as digit strings.
        terms: stemmed content words of the predicate.
        when: the explicit time or frequency as written (lower case), ``""`` when none.
        irrealis: intended or arranged, not done ("plans to sell", "is moving to").
        past: a state in the past tense ("was married", "owned a house").
        head: the stem of the predicate's first content word ("liv" for "lives in Lisbon").
        words: the content words of the predicate as written (lower case), for WordNet.
        qualifiers: the qualifier words in the predicate (:data:`.lexicon.QUALIFIERS`).
        done: a completed event (a verb in the simple past or present perfect: "paid off",
            "has saved"), not a state.
        context: stems of the content words within :data:`WINDOW` words of a number: what
            the number counts ("saved" / "far" for "has saved $28,000 so far").
        denied: stems of the words a closing contrast denies ("identical" for "are fraternal
            twins, not identical").
        gone: the subject's own life ended ("died", "passed away", "was put down"): every
            present state of the subject ends with it (:func:`ended_by_death`).
    """

    subject: str
    predicate: str
    positive: bool
    change: str
    numbers: frozenset[str]
    terms: frozenset[str]
    when: str = ""
    irrealis: bool = False
    past: bool = False
    head: str = ""
    words: tuple[str, ...] = ()
    qualifiers: frozenset[str] = frozenset()
    done: bool = False
    context: frozenset[str] = frozenset()
    denied: frozenset[str] = frozenset()
    gone: bool = False


_GONE = re.compile(r"^(?:(?:[a-z]+\s+)?[A-Z][\w'-]*\s+)?(?:(?:has|have|had|was|were|got)\s+)?"
                   r"(?:died|passed\s+away|put\s+down|put\s+to\s+sleep|euthani[sz]ed)"
                   r"(?:\s+(?:peacefully|suddenly|unexpectedly|at\s+home|in\s+(?:her|his|"
                   r"their|its)\s+sleep))?(?:\s+(?:yesterday|today|last\s+\w+|this\s+\w+))?"
                   r"\s*$")
"""A predicate that tells the subject's death and nothing else (its date is already cut
off: "Gaston passed away", "Miso died peacefully"; with the name, and its noun, a subject
leaves in the predicate: "Miso died" of "Dana's cat", "hamster Pip died" of "Evren"). Words
after the verb make it something else: "died laughing", "put down roots", "was put down for
a nap"."""
_LEAD_NAME = re.compile(r"^(?:[a-z]+\s+)?[A-Z][\w'-]*(?=\s)")


def _person_and_kin(subject: str) -> tuple[str, str]:
    """``("bartek", "wife")`` for ``"bartek's wife"``; ``("maren", "")`` for ``"maren"``."""
    person, _, kin = subject.partition("'s ")
    return person, kin


def _lead(claim: Claim) -> str | None:
    """The name, with its noun, leading the predicate ("Miso", "hamster Pip"), or ``None``."""
    return m.group(0) if (m := _LEAD_NAME.match(claim.predicate)) else None


_MORTAL = lx.KIN | lx.PETS
"""Who can die in a memory: kin and close people, and pets."""
_LASTING = re.compile(r"^(?:is|are|was|were)\s+(?:from|named|called|buried|dead|originally|"
                      r"[A-Z])|^'s\s+name\b|\bname\s+is\b")
"""What stays true of the dead: where they came from, their name, their nationality ("is
Irish"), where they lie."""


def _dead_one(claim: Claim, lead: str | None) -> bool:
    """Whether the one the claim is about can die and is named enough to be one being: a
    named pet or relative ("Dana's cat" with "Miso", "hamster Pip"), or a relative a person
    has one of ("Dana's dad"); never the person themself, whose own death no memory is told,
    nor a thing ("Dana's Tesla died")."""
    kin = _person_and_kin(claim.subject)[1]
    noun = lead.split()[0] if lead and lead[:1].islower() else ""
    if kin in lx.ONE_OF_A_KIND:
        return True
    return bool(lead) and (kin in _MORTAL or noun in _MORTAL)


def ended_by_death(older: Claim, newer: Claim) -> bool:
    """Whether ``newer`` (said later) tells that the one ``older`` is about died while
    ``older`` is a present state of them: "Dana's cat" / "Miso is 14" then "Miso died";
    "Ferdinand's mother" / "lives in a care home in Graz" then "passed away". Death ends the
    states of the one who died, and their plans, whatever the words (their predicates often
    share none), but not what happened before it ("adopted Miso in 2010", "was a carpenter")
    nor what stays true of the dead ("is from Poland", "is Irish"). Both claims must name the
    same one: the same subject, and the same name (with its noun) leading the predicate; a
    relative left unnamed only when one has one of them ("Dana's dad"; "Dana's cousin died"
    ends nothing). Only a pet or a relative dies here, never the person themself ("I died
    laughing") nor a thing ("my phone died")."""
    lead = [_lead(older), _lead(newer)]
    if not (newer.gone and not older.gone and older.subject == newer.subject
            and lead[0] == lead[1] and _dead_one(newer, lead[1])):
        return False
    if lead[0] is None and (older.done or older.past):  # with a name leading, the verb
        return False  # after it is read below, with what stays true of the dead
    rest = older.predicate[len(lead[0] or ""):].strip()
    if _LASTING.search(rest):
        return False
    verb = rest.split()[:1]
    return not (verb and _simple_past(verb[0].lower()))


def disliked_then_ended(older: Claim, newer: Claim) -> bool:
    """Whether ``older`` is a dislike ("hates running", "can't stand jazz": "likes ..."
    denied) and ``newer`` the end of doing something ("has stopped running", "quit smoking"):
    such a pair never contradicts, since stopping what one dislikes leaves the dislike true.
    """
    return (older.subject == newer.subject and not older.positive and not older.change
            and older.predicate.startswith("likes ") and newer.change == "end"
            and not newer.predicate.startswith("likes "))  # "no longer hates sushi" does end


_PREGNANT = re.compile(
    r"\b(?:is|are)\s+(?:(?:(?:\w+|\d+)\s+(?:months?|weeks?)|very|heavily|currently|now|"
    r"again)\s+)?pregnant\b|\b(?:is|are)\s+expecting(?:\s+(?:a|an|her|their|his|our))?"
    r"(?:\s+(?:first|second|third|fourth|new))?\s+(?:baby|babies|child|twins|triplets)"
    r"(?=\s*$|\s+(?:in|on|by|this|next|due|soon)\b)|\b(?:is|are)\s+expecting\s*$")
"""A pregnancy: "is pregnant", "is five months pregnant", "is expecting their first baby",
"is expecting" alone; not "is trying to get pregnant", "is expecting a promotion" or "is
expecting her son home"."""
_BORN = re.compile(r"\b(?:was|were)\s+born\b")
_GAVE_BIRTH = re.compile(
    r"\bgave\s+birth\b|\bhad\s+(?:a\s+|her\s+|their\s+)?(?:baby(?:\s+(?:boy|girl))?|twins|"
    r"son|daughter)(?=\s*$|\s+(?:in|on|at|last|this|called|named)\b|,)")
"""A birth told of the mother: "gave birth to a boy", "had a baby girl" (not "had a baby
shower")."""
_BECAME = re.compile(r"\bbecame\s+an?\s+(\w+)(?=\s*$|\s+(?:in|on|when|last|this|again)\b)")
_ENGAGED = re.compile(r"^is\s+engaged\s+to\b")
_MARRIED = re.compile(r"^(?:and\s+[A-Z][\w'-]*\s+)?(?:got\s+married|married|wed)\b")
"""A wedding of the subject, told as what they did: "married Klara", "and Bea got married"
(not "plans to get married", "went to a wedding where her cousins got married")."""


def _kin_of_birth(claim: Claim) -> str | None:
    """Whose child a birth is, as the kin ``"parent"``, ``"sibling"`` or ``"grandparent"`` of
    the claim's person sees it, or ``"self:<kin>"`` when the claim's subject gave birth;
    ``None`` when the claim tells no birth."""
    kin = _person_and_kin(claim.subject)[1]
    text = claim.predicate.lower()
    if "'s " in text or "adopt" in text:
        return None  # "her brother's son was born", "became a mother when she adopted Ava"
    if (became := _BECAME.search(text)) and not kin:
        return next((k for k, words in lx.BECAME.items() if became.group(1) in words), None)
    if _GAVE_BIRTH.search(text):
        return f"self:{kin}"
    if not (born := _BORN.search(text)):
        return None
    words = [kin] if kin else [w.strip(",.") for w in text[:born.start()].split()]
    for word in words:
        if word in lx.CHILDREN:
            return "parent"
        if word in lx.NEPHEWS:
            return "sibling"
        if word in lx.GRANDCHILDREN:
            return "grandparent"
    return None


def ended_by_birth(older: Claim, newer: Claim) -> bool:
    """Whether ``newer`` tells the birth that ends the pregnancy ``older`` states, for one
    person's memory: "Bartek's wife Ewa is pregnant" then "Bartek's son Kuba was born" or
    "Bartek became a father"; "Maren is five months pregnant" then "Maren gave birth to a
    boy"; a sister's pregnancy then a niece or nephew; a daughter's then a grandchild. The
    two claims may have different subjects (the mother, the baby) but the same person; whose
    baby it is must fit who was pregnant (a cousin's twins end no wife's pregnancy)."""
    person, kin = _person_and_kin(older.subject)
    if (person != _person_and_kin(newer.subject)[0] or not older.positive or older.done
            or older.past or not _PREGNANT.search(older.predicate.lower())):
        return False
    birth = _kin_of_birth(newer)
    if birth is None:
        return False
    if birth.startswith("self:"):  # the mother gave birth: the same one who was pregnant
        return birth == f"self:{kin}" and (_lead(older) == _lead(newer) or not kin
                                           or kin in lx.ONE_OF_A_KIND)
    whose = ("parent" if not kin or kin in lx.PARTNERS else "sibling" if kin in lx.SIBLINGS
             else "grandparent" if kin in lx.OFFSPRING else None)
    return birth == whose


def ended_by_wedding(older: Claim, newer: Claim) -> bool:
    """Whether ``newer`` tells the wedding that ends the engagement ``older`` states: "is
    engaged to Klara" then "married Klara in June 2024" (same subject; when both name the
    partner, the same name)."""
    if (older.subject != newer.subject or not older.positive or not newer.positive
            or older.done or newer.irrealis or not _ENGAGED.match(older.predicate)
            or not _MARRIED.match(newer.predicate)):
        return False
    names = [set(re.findall(r"\b[A-Z][a-z]+\b", c.predicate)) for c in (older, newer)]
    return not (names[0] and names[1]) or bool(names[0] & names[1])


def ended_by_life_event(older: Claim, newer: Claim) -> str | None:
    """What in ``newer`` ends the state ``older`` states, whatever else the two say: ``"the
    subject died"`` (:func:`ended_by_death`), ``"the baby was born"``
    (:func:`ended_by_birth`), ``"the wedding took place"`` (:func:`ended_by_wedding`), or
    ``None``."""
    if ended_by_death(older, newer):
        return "the subject died"
    if ended_by_birth(older, newer):
        return "the baby was born"
    if ended_by_wedding(older, newer):
        return "the wedding took place"
    return None


def _simple_past(word: str) -> bool:
    """Whether ``word`` is a verb's simple past ("was", "taught", "raised"; LemmInflect's
    lemmas and inflections, imported on use: it loads spaCy's extensions)."""
    if word in ("was", "were", "had", "did") or lx.past_form(word):
        return True
    from lemminflect import getInflection, getLemma

    return any(word in getInflection(lemma, "VBD") and word != lemma
               for lemma in getLemma(word, upos="VERB"))


WINDOW = 3
"""Words on each side of a number that say what it counts."""


def is_done(words: list[str]) -> bool:
    """Whether a predicate's words open with a verb in the simple past or present perfect."""
    if len(words) > 1 and words[0] in ("has", "have", "had"):
        words = words[1:]
    return bool(words) and lx.past_form(words[0])


def number_context(predicate: str) -> frozenset[str]:
    """Stemmed content words within :data:`WINDOW` words of a number in ``predicate``."""
    words = lx.WORD.findall(lx.NUMBER.sub(" 0num ", predicate.lower()))
    return frozenset(
        lx.stem(w) for k, w in enumerate(words)
        if w != "0num" and w not in lx.STOP and w not in lx.LIGHT and w not in lx.UNITS
        and "0num" in words[max(0, k - WINDOW): k + WINDOW + 1])


def _when(phrase: str) -> str:
    """A time phrase compared by the days it names ("on 4 May" = "on May 4"), else as written
    (lower case)."""
    days = [m.date.isoformat() for m in resolve_dates(phrase, _ANCHOR).mentions if m.date]
    return " ".join(days) if days else " ".join(phrase.lower().split())


def clean(text: str) -> str:
    """One line, no final punctuation, straight apostrophes."""
    return " ".join(text.strip().split()).rstrip(".!;").replace("\u2019", "'")


def content_words(predicate: str, stemmed: bool = True) -> list[str]:
    """Content words of a predicate in order (no numbers, stop words, light verbs, units),
    stemmed unless ``stemmed`` is false."""
    text = lx.NUMBER.sub(" ", predicate.lower())
    words = [w for w in lx.WORD.findall(text)
             if w not in lx.STOP and w not in lx.LIGHT and w not in lx.UNITS]
    return [lx.stem(w) for w in words] if stemmed else words


_TOGETHER = re.compile(r"^\s*and\s+(?:her|his|their)\s+([\w-]+)(?:\s+([\w-]+))?")
"""A relation coordinated with the subject ("and her husband", "and his best friend")."""


def split_subject(text: str, hint: str | None) -> tuple[str, str] | None:
    """``(subject, predicate)``, following possessives of relations ("Ana's sister"); a
    relation coordinated with the subject is left out ("Ana and her husband moved": Ana
    moved); a subject named elsewhere in the sentence is masked ("Dance is Gina's way to
    relax")."""
    if hint and text.lower().startswith(hint.lower()):
        subject, rest = text[: len(hint)], text[len(hint):]
    elif hint and re.search(rf"\b{re.escape(hint)}\b", text, re.IGNORECASE):
        mention = re.compile(rf"\b{re.escape(hint)}(?:'s|s')?\s*", re.IGNORECASE)
        return hint.lower(), mention.sub("", text).strip()
    elif match := _SUBJECT.match(text):
        subject, rest = match.group(0), text[match.end():]
    else:
        return None
    subject = subject.strip()
    if subject.endswith(("'s", "s'")) and rest.startswith(" "):
        subject, rest = subject[:-2], subject[-2:] + rest
    while poss := re.match(r"^(?:'s|s')\s+(?:(?:younger|older|little|big|best|new|old)\s+)?"
                           r"(\w+(?:-in-law)?)(?![\w-])(.*)$", rest):
        if poss.group(1).lower().removesuffix("-in-law") not in lx.RELATIONS:
            break
        subject, rest = f"{subject}'s {poss.group(1)}", poss.group(2)
    if together := _TOGETHER.match(rest):  # "Priya and her husband want": Priya's claim
        first, second = together.group(1), together.group(2)
        relation = (first if first.lower() in lx.RELATIONS else
                    f"{first} {second}" if second and second.lower() in lx.RELATIONS else None)
        if relation:
            rest = rest[together.start(1) + len(relation):]
    rest = rest.strip()
    if rest.startswith(("'s ", "s' ")):
        rest = rest[3:]  # "Ana's favorite color is green": the attribute is the predicate
    return subject.lower(), rest


def parse_claim(text: str, subject_hint: str | None = None) -> Claim | None:
    """Read a fact sentence as a :class:`Claim`, or ``None`` (a question, or no subject).

    Args:
        text: the fact, e.g. "Ana no longer lives in Boston."
        subject_hint: the fact's ``subject`` field, when known.

    Example:
        ``parse_claim("Gus quit smoking.")``: subject ``gus``, predicate ``smoking``,
        positive False, change ``"end"``.
    """
    text = clean(text)
    if not text or text.endswith("?"):
        return None
    whens = [_when(m.group(0)) for m in WRITTEN_TIME.finditer(text)]  # "the week before ..."
    text = re.sub(r"^(?:just\s+)?,?\s*", "", " ".join(WRITTEN_TIME.sub(" ", text).split()),
                  flags=re.IGNORECASE).strip(" ,")
    text = text[:1].upper() + text[1:]
    text = lx.LEADING_DATE.sub("", text)
    whens += [_when(m.group(0)) for pattern in (lx.DATE_TAIL, lx.HABITUAL)
              for m in pattern.finditer(text)]
    text = lx.HABITUAL.sub("", lx.DATE_TAIL.sub("", text)).strip(" ,")
    positive = not lx.ANYMORE.search(text)
    ended = not positive
    split = split_subject(lx.ANYMORE.sub("", text).strip(" ,"), subject_hint)
    if split is None:
        return None
    subject, rest = split
    lead = ""  # "Dana's sister" / "Ivy quit her job": the verb is read after the name, which
    if "'s " in subject and (named := _LEAD_NAME.match(rest)) and rest[named.end():].strip() and (
            named.group(0)[:1].isupper() or named.group(0).split()[0] in _MORTAL):
        lead, rest = named.group(0), rest[named.end():].strip()  # stays in the predicate; not
        # a verb and its object ("quit Google", "hates Italian food")
    rest = _CLAUSE.sub("", rest).strip(" ,") or rest
    denied: frozenset[str] = frozenset()
    if contrast := _CONTRAST.search(rest):
        denied = frozenset(content_words(contrast.group(1)))
        rest = rest[:contrast.start()].strip()
    rest = re.sub(r"^(?:(?:currently|still|also|recently|just|really|already|finally)\s+)+",
                  "", rest, flags=re.IGNORECASE)
    negated = False
    for pattern in (lx.NEGATION, lx.NEG_INSIDE):
        if found := pattern.search(rest) if pattern is lx.NEG_INSIDE else pattern.match(rest):
            positive, negated = False, True
            ended = ended or found.group(0).lower().startswith("no longer")
            rest = (rest[:found.start()] + rest[found.end():]).strip()
    done = is_done(rest.lower().split())
    context = number_context(rest)
    if found := lx.HAS_NO.match(rest):
        positive, rest = False, f"{found.group(1)} {rest[found.end():]}"
    if (found := lx.FORMER.match(rest)) and positive:
        positive, ended, rest = False, True, f"is a {rest[found.end():]}"
    if (found := lx.USED_TO.match(rest)) and positive:
        positive, ended, rest = False, True, rest[found.end():]
    if not positive and lx.TOLERATE.match(rest):
        positive, rest = True, f"dislikes {lx.TOLERATE.sub('', rest)}"  # "can't stand jazz"
    if found := lx.BACK_FROM.match(rest):
        rest = f"returned from {rest[found.end():]}"
    verb, _, tail = rest.partition(" ")
    if verb.lower() in lx.LIKING | lx.DISLIKING and tail:
        positive = positive == (verb.lower() in lx.LIKING)  # "hates jazz" denies "likes jazz"
        rest = f"likes {tail}"
    words = rest.split()
    head = words[0].lower() if words else ""
    if head in ("has", "have", "had", "was", "were", "got") and len(words) > 1:
        if words[1].lower() in lx.ENDING | lx.BEGINNING | lx.ENDING_WITH_PARTICLE or (
                head in ("has", "have", "had") and words[1].lower() in lx.BEGINNING_WITH_PARTICLE):
            # "has quit", "has moved", "got fired", "has taken up" (not "was taken in by")
            rest = " ".join(words[1:])
        head = words[1].lower()
    tail = rest.split(" ", 1)[1] if " " in rest else ""
    change = "end" if ended else ""
    ends = head in lx.ENDING or (head in lx.ENDING_WITH_PARTICLE and bool(_PARTICLE.match(tail)))
    if ends and negated and not ended:  # "won't quit", "never stopped": it goes on
        ends, positive, rest = False, True, _PARTICLE.sub("", tail).strip() or rest
    elif ends and head in _COMPLETING and _ANOTHER.match(tail):
        ends = False  # "finished another painting": one more made, nothing ended
    if ends and _PARTICLE.sub("", tail).strip():  # "has retired" alone is the state
        change, positive = "end", False
        rest = _PARTICLE.sub("", tail)
        if not lx.INTENTION_NOUN.search(rest.split(" to ", 1)[0]):  # "her plan to swim"
            rest = _TAIL.sub("", rest)
        rest = rest.strip()
    elif head in lx.BEGINNING or head in lx.BEGINNING_WITH_PARTICLE and _ONSET.match(tail):
        change = "begin"
        rest = tail if head == "now" else rest
    elif _NOW.search(rest):
        change, rest = "begin", _NOW.sub("", rest)
    rest = rest.strip(" ,")
    if not rest:
        return None
    arranged = _PROGRESSIVE.match(rest)  # "is moving to": arranged, not done
    irrealis = bool(lx.IRREALIS.match(rest)) or bool(
        arranged and lx.stem(arranged.group(1).lower()) in _CHANGE_STEMS)
    plain = content_words(rest, stemmed=False)
    lowered = {w.lower() for w in lx.WORD.findall(rest.lower())}
    predicate = f"{lead} {rest}" if lead else rest
    return Claim(subject, predicate, positive, change, numbers_in(rest),
                 frozenset(content_words(predicate)), " ".join(whens), irrealis,
                 bool(_PAST_STATE.match(rest)) and not change,
                 lx.stem(plain[0]) if plain else "", tuple(plain),
                 frozenset(lowered & lx.QUALIFIERS | (lowered & lx.PRIVATIVE)), done, context,
                 denied, bool(positive and _GONE.match(rest)))
