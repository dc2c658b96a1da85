"""The speaker's claims said inside a sentence about something else.

A speaker often tells what they did or have in a clause that is not the sentence's main one:
"Look at these old maps I found in the attic", "It reminds me of a cabin we rented in Maine",
"These are my hiking boots". The main clause is about the thing shown or pointed at (kind
``other`` in :mod:`.parse`), so it gives no fact; the claim is in the relative clause or in
the possessive. :func:`embedded_clauses` reads both from the dependency parse and writes them
as the speaker's own clause, for the learned decision (:mod:`.select`) to keep or drop like
any other:

- a relative clause whose subject is "I" or "we" and whose object is the noun it describes
  (a gap: no object of its own, or the relative pronoun as object) becomes "I <verb> <noun>
  <rest>": "these old maps I found in the attic" gives "I found some old maps in the attic"
  (the spoken indefinite "these" written "some", :func:`.reference.indefinite`), "the clinic
  I'm applying to" gives "I'm applying to the clinic" (the stranded preposition or particle
  takes the noun back). Relative clauses of place, time, reason or manner ("nights where I
  felt at peace", "the summer we drove to Maine", "the reason we moved") have no gap to fill
  and are left alone, as are a relative pronoun after its preposition ("the house in which I
  grew up"), a negated noun ("not the ending I expected") and nouns of pictures ("a photo I
  took at the lake"): a caption, not a claim, and the content clause of "it is a shame, a
  relief, a pity" ("It's a shame that I lost": what the shame is, not a thing lost). The noun
  moves without a coordinated noun or another clause about it ("the bowls I made and the
  vase" gives "I made the bowls");
- a sentence that presents the speaker's thing with "be" and a pointing word ("These are my
  hiking boots", "This is my favorite spot, a bench by the river") becomes "I have ...", in
  the present and affirmative only ("This was my first car" tells of a car once owned, "These
  aren't my boots" of none), and not for a time, a former thing or a bare "one" ("This is my
  first time in Japan", "That's my old neighborhood", "This is my favorite one"), nor when a
  relative clause of the speaker's says it ("These are my kids who I adore").

Only sentences none of whose clauses is already the speaker's are read ("I loved the cake I
made" says it in its main clause). Relative clauses: Huddleston & Pullum, *The Cambridge
Grammar of the English Language* (2002), ch. 12; the presentational "this is": ch. 17.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .parse import Clause, words_of
from .reference import a_or_an, article, indefinite
from .sentences import word_set

_SPEAKER = {"i": "self", "we": "group"}
_RELATIVE = word_set("that which who whom")
_FILLED = ("dobj", "attr", "ccomp", "xcomp", "oprd")
"""Dependents that fill the object place: with one the relative clause has no gap."""
_PICTURES = word_set("pic pics photo photos picture pictures shot shots snap snaps snapshot "
                     "selfie selfies video videos clip clips peek look")
"""Nouns of a picture shown: "a pic I took" captions it."""
_POINTING = word_set("this these that those")
_TIMES = word_set(
    "time times day days night nights week weeks weekend month months year years summer winter "
    "spring autumn fall season moment moments morning evening")
_DEICTIC_TIME = word_set("last next today tonight yesterday tomorrow")
_ADVERBIAL = _TIMES | word_set("reason reasons way ways place places")
"""Nouns that head relative clauses of time, place, reason and manner ("the summer we drove to
Maine", "the reason we moved"): the clause has no object gap for them to fill (Huddleston &
Pullum 2002, ch. 12 §3.5)."""
_CONTENT = word_set("shame pity bummer relief miracle wonder surprise shock blessing luck fact "
                    "chance news bonus")
"""Nouns that take a content clause after "it is" ("It's a shame that I lost", "It was a relief
that we made it"): the "that" clause says what the shame is, it is no relative clause with a
gap (Huddleston & Pullum 2002, ch. 11 §7 and ch. 16 §8, extraposition)."""
_FORMER = word_set("first last next final former old previous")
"""Modifiers that make "this is my ..." a time or a past, not a possession ("my first time in
Japan", "my old neighborhood")."""
_ASIDE = ("relcl", "acl", "appos", "conj", "cc", "punct", "neg")
"""Dependents of a noun left out when it moves into the speaker's clause: another clause about
it, a coordinated noun, a negation ("not the ending I expected")."""
_PRESENT_BE = word_set("is 's are 're")
_OWN = {"my": "I", "our": "we"}
_SPEAKERS = ("self", "group", "own", "none")


def _relative(verb: Any) -> list[Any] | None:
    """The tokens of "I <verb> <noun> <rest>" for a relative clause ``verb`` of the speaker
    with its object gap, or ``None``."""
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    noun = verb.head
    if (subject is None or subject.lower_ not in _SPEAKER or noun.pos_ != "NOUN"
            or noun.lower_ in _PICTURES | _ADVERBIAL or noun.ent_type_ in ("DATE", "TIME")
            or any(c.dep_ == "neg" for c in noun.children)
            or noun.lower_ in _CONTENT and noun.dep_ == "attr"):
        return None
    before = [t for t in verb.subtree if t.i < verb.i]
    relatives = [t for t in before if t.lower_ in _RELATIVE]
    if any(t.tag_ == "WRB" for t in before) or any(
            t.dep_ not in ("dobj", "pobj") or t.dep_ == "pobj" and t.head.i < subject.i
            for t in relatives):
        return None  # "nights where I felt at peace", "a shame that I lost", "in which I"
    gap = _gap(verb, relatives)
    if gap is None:
        return None
    left_out = {t.i for t in relatives} | {t.i for t in subject.subtree} | {
        t.i for c in verb.children if c.dep_ in ("conj", "cc", "punct") for t in c.subtree}
    inside = {t.i for t in verb.subtree}
    aside = {t.i for c in noun.children if c.dep_ in _ASIDE for t in c.subtree}
    phrase = [t for t in noun.subtree if t.i not in inside and t.i not in aside]
    while phrase and phrase[-1].is_punct:
        phrase.pop()
    lead = [t for t in before if t.i not in left_out]
    upto = [t for t in verb.subtree if verb.i <= t.i <= gap.i and t.i not in left_out]
    rest = [t for t in verb.subtree if t.i > gap.i and t.i not in left_out]
    stranded = next((k for k, t in enumerate(rest) if t.head == gap and (
        t.dep_ == "prt" or t.pos_ == "ADP") and not any(  # "in someday": an adverb, no object
            c.dep_ == "pobj" and c.pos_ != "ADV" and c.i not in left_out
            and not _time_adverbial(c)  # "the market we stumbled on this morning"
            for c in t.children)),
        None)
    if stranded is not None:  # "the agencies I'm looking into": "looking into the agencies",
        # "the project I'm working on": "working on the project" (a particle as well)
        return [*subject.subtree, *lead, *upto, *rest[:stranded + 1], *phrase,
                *rest[stranded + 1:]]
    return [*subject.subtree, *lead, *upto, *phrase, *rest]


def _time_adverbial(noun: Any) -> bool:
    """A time said as a noun phrase opening with a determiner or a word of time ("this
    morning", "last week", "the morning of 14 March 2024") that the parse made the object of
    the preposition before it ("the market we stumbled on this morning"); a date of numbers
    and month names ("a book I read in 2022", "on 21 October 2023") is the object of its own
    preposition."""
    first = noun.left_edge
    return noun.ent_type_ in ("DATE", "TIME") and (
        first.pos_ == "DET" or first.lower_ in _DEICTIC_TIME)


def _gap(verb: Any, relatives: Sequence[Any]) -> Any | None:
    """The verb whose object place the described noun fills: ``verb`` when nothing fills
    it, else the infinitive it governs ("the hills I had to climb"), else ``None``."""
    if not any(c.dep_ in _FILLED and c not in relatives for c in verb.children):
        return verb
    infinitives = [c for c in verb.children if c.dep_ == "xcomp"]
    if (len(infinitives) == 1 and not any(c.dep_ in _FILLED and c not in relatives
                                          for c in verb.children if c.dep_ != "xcomp")
            and not any(c.dep_ in _FILLED and c not in relatives
                        for c in infinitives[0].children)):
        return infinitives[0]
    return None


def _presented(sentence: Any) -> tuple[str, list[Any]] | None:
    """("I"/"we", the noun phrase and what follows it) of a sentence presenting the
    speaker's thing ("These are my hiking boots"), or ``None``."""
    verb = sentence.root
    if verb.lower_ not in _PRESENT_BE or any(c.dep_ == "neg" for c in verb.children):
        return None  # "These aren't my boots"
    pointer = next((c for c in verb.children if c.lower_ in _POINTING and c.i < verb.i
                    and c.dep_ in ("nsubj", "advmod", "expl")), None)
    noun = next((c for c in verb.children if c.dep_ in ("attr", "nsubj") and c.i > verb.i
                 and c.pos_ == "NOUN" and c.lower_ not in _PICTURES), None)
    owner = noun and next((c for c in noun.children
                           if c.dep_ == "poss" and c.lower_ in _OWN), None)
    if (pointer is None or noun is None or owner is None or noun.lower_ in _TIMES | {"one"}
            or any(c.lower_ in _FORMER for c in noun.children) or any(  # "my kids who I
                c.dep_ == "relcl" and any(g.dep_ == "nsubj" and g.lower_ in _SPEAKER  # adore":
                                          for g in c.children)  # the relative clause says it
                for c in noun.children)):
        return None
    aside = {t.i for c in noun.children if c.dep_ in ("relcl", "conj", "cc") for t in c.subtree}
    tokens = [t for t in noun.subtree if t != owner and t.i not in aside]
    while tokens and tokens[-1].is_punct:
        tokens.pop()
    for more in (c for c in verb.children if c.i > noun.i and c.dep_ in ("attr", "appos")):
        if (comma := sentence.doc[more.left_edge.i - 1]).text == ",":
            tokens.append(comma)  # "my favorite spot, a bench by the river"
        tokens.extend(more.subtree)
    return _OWN[owner.lower_], tokens


def _article(tokens: Sequence[Any]) -> str:
    """"a "/"an " before a singular noun phrase, "" before a plural one."""
    head = next((t for t in tokens if t.dep_ in ("attr", "nsubj")), None)
    if head is None or head.tag_ == "NNS":
        return ""
    return f"{a_or_an(tokens[0].text)} "


def _clause(text: str, kind: str, verb: str, tokens: Sequence[Any], sentence: Any,
            negated: bool = False, have: bool = False) -> Clause:
    tags = {t.lower_: t.tag_ for t in reversed(tokens)}  # the first occurrence
    kept = {t.i for t in tokens}  # reordered: "I found <the maps> in the attic"
    if have:
        tags["have"] = "VBP"  # "I have ...": "Kai has ..."
    return Clause(
        text=text, kind=kind, verb=verb, negated=negated,
        entities=[e.label_ for e in sentence.ents
                  if all(i in kept for i in range(e.start, e.end))],
        question=sentence.text.rstrip().endswith("?"), sentence=sentence.text.strip(),
        nouns=sum(t.pos_ in ("NOUN", "PROPN", "NUM") and t.ent_type_ not in ("DATE", "TIME")
                  for t in tokens),
        tags=tags)


def embedded_clauses(doc: Any, found: Sequence[Clause]) -> list[Clause]:
    """The speaker's clauses said inside other clauses of a parsed sentence (see the module
    docstring), for the sentences of ``doc`` none of whose clauses in ``found`` (from
    :func:`.parse.clauses`) is the speaker's.

    Args:
        doc: a spaCy ``Doc`` (:func:`.parse.parse`).
        found: the clauses :func:`.parse.clauses` read from ``doc``.

    Returns:
        New clauses, in order; each has kind ``self`` or ``group``.
    """
    owned = {c.sentence for c in found if c.kind in _SPEAKERS}
    result: list[Clause] = []
    for sentence in doc.sents:
        if sentence.text.strip() in owned:
            continue
        for verb in sentence:
            if verb.dep_ == "relcl" and verb.pos_ in ("VERB", "AUX") and (
                    tokens := _relative(verb)):
                kind = _SPEAKER[next(c for c in verb.children if c.dep_ == "nsubj").lower_]
                aux = next((c.tag_ for c in verb.children if c.dep_ == "aux"), verb.tag_)
                text = words_of(tokens)
                opening = verb.head.left_edge  # "The impact we made": "we made the impact"
                if opening.i == sentence.start and opening.pos_ != "PROPN" and not (
                        opening.ent_type_):  # "Italian food I cooked" keeps "Italian"
                    said = article(opening) if indefinite(opening) else opening.text
                    text = text.replace(f" {said} ", f" {said.lower()} ", 1)
                result.append(_clause(
                    text, kind, aux, tokens, sentence,
                    any(c.dep_ == "neg" for c in verb.children)))
        if presented := _presented(sentence):
            subject, tokens = presented
            text = f"{subject} have {_article(tokens)}{words_of(tokens)}"
            result.append(_clause(text, "self" if subject == "I" else "group", "VBP",
                                  tokens, sentence, have=True))
    return result
