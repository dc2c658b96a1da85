"""The LLM reasoner's fact extraction; :class:`~.openai.OpenAIReasoner` delegates here.

- **Context**: turns that do not fit in one request (``context_tokens``, with a quarter of it
  kept for the answer) are sent in several (:mod:`.chunking`); their facts are concatenated
  in turn order.
- **Earlier turns**: the turns the pipeline sends as context (the talk before a window, the
  turns that named a thing the window calls by name alone) are shown before the conversation
  in an ``<earlier>`` fence, within a quarter of the material budget and only what they take
  (:func:`earlier_turns`); so is the talk before each request after the first when the turns
  need several. A fact may cite them beside its own turn; one citing only them is given the
  turn it is drawn from (:func:`drawn_from`) or dropped. Turns with no context that fit one
  request are sent as before, with no fence.
- **Named things**: a fact opening with the name of a thing its speaker named ("Miso died on
  Sunday." after "my cat Miso") is written with the owner and cites the naming turn too
  (:func:`with_owners`), as the offline reasoner writes it; a turn telling news of such a
  thing that no fact cites is asked again with the narrower prompt (:func:`named_news`).
- **A line's opening is no claim**: a part with no verb and no number that copies the opening
  of a sentence of its turn with the speaker's name first ("Dana sad news.") is dropped
  (:func:`copied_openings`).
- **Evidence**: cited ids not among the request's turns are dropped; a fact left citing none
  is refused and repaired (:func:`~.structured.complete_structured`).
- **Dates**: relative dates the model left in a fact ("yesterday", "last week", "next
  month") are resolved against the time of the fact's first cited turn, as the offline
  reasoner does (:func:`agent_memory.text.dates.resolve_dates`); a day the fact names becomes its
  ``occurred_at`` when the model gave none. A fact of a past event the model wrote with no
  time, from a sentence that names one, gets it back (:func:`restore_time`: "I paid off
  $5,000 yesterday" -> "Priya paid off $5,000 of her student loan on 1 June 2025.", where a
  1.5B model wrote no date).
- **Person**: a fact the model left in the first person ("We now think we need $60,000 for
  the deposit") is rewritten in the third person for the speaker of its first cited turn, as
  the offline reasoner writes its facts (:func:`~.extractive.person.to_third_person`: "Priya
  and her husband now think they need ..."), and its ``subject`` is that speaker when the
  model gave none.
- **Form**: the role label the prompt shows after a speaker's name ("Priya (user) is 34") is
  taken out of a fact, and a fact ends with a full stop.
- **Notes, not lines**: small models copy lines of the conversation as facts ("Dana:
  Thanks, Omar! ...", "You're doing great with the garden!"). A speaker label opening a fact is
  taken off; the sentences that are lines rather than notes (a question, words to the
  listener, a greeting or thanks, a line ending by addressing a speaker, a photo shared) are
  dropped (:func:`as_notes`, :func:`spoken_line`); and after the rewrite and the split below,
  a fact naming none of the conversation's speakers ("So excited for the move!") is
  dropped (:func:`names_a_speaker`). Of LoCoMo dev's 1,210 reference observations, 8 would
  fail these checks (six are photos shared, two say "you" of people at large).
- **One claim per fact**: a fact the model wrote as several sentences ("Priya paid off $5,000
  of the loan. Priya has $7,000 left.") or as one sentence of several claims ("Kai lives in
  Boston and works as a pharmacist", :func:`claim_sentences`) becomes one fact per claim,
  each with the same evidence (:func:`atomic`), so that reconciliation can retire the old
  balance (or residence) by the new one alone; a part opening with "he" or "she" is given
  the fact's subject.
- **Missed disclosures**: small models sometimes answer ``{"facts": []}`` for turns full of
  self-disclosures ("I'm 34 and I work as a nurse"), only a fact from a planted
  instruction, or a vague fact that drops what the turn states ("Priya updated her budget
  for the house" for "Our budget for the house is now $480,000"), or a report that the
  turn was talked about ("Priya discussed her preference for email summaries"). The clear
  self-disclosures (:func:`self_disclosures`) the answer missed (:func:`uncovered`: all of
  them when no fact cites one, else those only reported as talked about and those stating a
  number that no fact keeps, narrowed to the statements holding it) are asked once more with
  the narrower prompt of :func:`~.prompts.disclosure_messages` (only those turns, one
  question), and the facts of both answers are kept.
- **Exact over vague**: a fact with no number gives way to a fact that keeps a number its
  turn (or a neighbouring one: small models cite the turn next to the right one) states, the
  two naming a common thing (:func:`superseded_out`: "Priya updated her deposit target"
  beside "Priya thinks she needs $60,000 for the deposit").
"""

from __future__ import annotations

import calendar
import datetime as dt
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._threads import run_in_worker
from ..models import Turn
from ..text.dates import PAST_TENSE, DateMention, resolve_dates
from ..text.injection import injection_reason
from ..text.numbers import numbers_in
from ..text.talk import conversation_report
from ..tokens import count_tokens
from . import chunking, prompts
from .base import FactDraft, FactExtraction
from .extractive.facts import turn_speakers
from .extractive.named import named_things, owned
from .extractive.parse import parse
from .extractive.person import YOU_WORDS, Speaker, to_third_person
from .extractive.sentences import content_terms, split_sentences, words
from .structured import OutputRejected, schema_text

if TYPE_CHECKING:
    from .openai import OpenAIReasoner

log = logging.getLogger(__name__)

_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|im|my|me|we|we're|we've|our|us)\b",
                           re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9$%']+")

MIN_DISCLOSURE_WORDS = 5
"""Fewest words a first-person statement needs to count as a clear self-disclosure."""


def self_disclosures(turns: Sequence[Turn]) -> list[Turn]:
    """The turns that clearly say something about their speaker: said by a person (not an
    assistant, tool or system turn), in the first person, at least
    :data:`MIN_DISCLOSURE_WORDS` words outside questions, and not addressed to the memory or
    the model (:func:`~agent_memory.text.injection.injection_reason`)."""
    found = []
    for turn in turns:
        if turn.role.value != "user" or injection_reason(turn.content):
            continue
        statements = [s for s in re.split(r"(?<=[.!?])\s+", turn.content.strip())
                      if s and not s.rstrip().endswith("?")]
        if any(_FIRST_PERSON.search(s) and len(_WORD.findall(s)) >= MIN_DISCLOSURE_WORDS
               for s in statements):
            found.append(turn)
    return found


def assistant_speakers(turns: Sequence[Turn]) -> frozenset[str]:
    """The names of the speakers who say only assistant turns in ``turns`` ("Advisor"), when
    a named speaker says user turns: the other side of the conversation, as the grounding
    check's roster (:class:`agent_memory.grounding.support.SpeakerRoster`) reads it. Read
    over the turns of one request and the talk shown before them, where the grounding check
    reads the whole window: a speaker who says user turns only outside the request counts
    here as an assistant, and its turn may be asked once more for nothing."""
    sides: dict[str, set[str]] = {}
    for turn in turns:
        if turn.speaker:
            sides.setdefault(turn.speaker, set()).add(turn.role.value)
    if not any("user" in roles for roles in sides.values()):
        return frozenset()
    return frozenset(name for name, roles in sides.items() if roles == {"assistant"})


def absolute_dates(fact: FactDraft, turn: Turn) -> FactDraft:
    """``fact`` with the relative dates of its text resolved against ``turn``'s time (the
    turn it cites first) and, when it had none, the ``occurred_at`` of a day it names."""
    resolved = resolve_dates(fact.text, turn.created_at)
    day = next((m.date for m in resolved.mentions if m.date and m.precision == "day"), None)
    occurred = iso_date(fact.occurred_at) or (day.isoformat() if day else None)
    return fact.model_copy(update={"text": resolved.text, "occurred_at": occurred})


MIN_SHARED_TERMS = 2
"""Content terms a fact must share with a sentence of its turn to be read as drawn from it."""
_CALENDAR = frozenset((*calendar.day_name, *calendar.month_name[1:]))
_TIME_OPENERS = frozenset(("on", "in", "the", "at", "during", "around", "about", "early",
                           "late", "last", "this", "a", *(n.lower() for n in _CALENDAR)))
"""First words of a resolved time that make a phrase of its own at the end of a sentence (a
day or month name too: "Friday 30 May 2025" is given "on")."""


def dropped_time(text: str, turn: Turn) -> DateMention | None:
    """The relative time a small model left out of a fact about a past event: the one time
    ("yesterday", "last week") of the sentence of ``turn`` the fact is drawn from (the one
    sharing the most content terms, at least :data:`MIN_SHARED_TERMS`), resolved against the
    turn's time and not after it, when that time belongs to the fact's own verb: the verb it
    hangs on in the sentence's parse is the fact's main verb (the same past form), and no
    other verb of the sentence is ("I paid off $5,000 yesterday" for "Priya paid off
    $5,000"; not "I was born in Ohio and moved last year" for "Priya was born in Ohio", nor
    "Yesterday I said I was going to sell my car" for "Priya was going to sell her car").
    ``None`` when the fact names a time already, is not in the past tense (its main verb or
    auxiliary by the parse: "Priya has $7,000 left" is not), or no time qualifies. Parses
    (spaCy): call it off the event loop."""
    if resolve_dates(text, turn.created_at).mentions or not PAST_TENSE.search(text):
        return None
    terms = set(content_terms(text))
    scored = [(len(terms & set(content_terms(s))), s)
              for s in split_sentences(turn.content) if not s.rstrip().endswith("?")]
    shared, source = max(scored, default=(0, ""), key=lambda pair: pair[0])
    if shared < MIN_SHARED_TERMS or [n for n, _ in scored].count(shared) > 1:
        return None
    resolved = resolve_dates(source[:1].lower() + source[1:], turn.created_at)
    said = [m for m in resolved.mentions if m.date is not None and m.replacement != m.phrase
            and m.date <= turn.created_at.date()]
    if len(said) != 1 or said[0].replacement.split()[0].lower() not in _TIME_OPENERS:
        return None  # a bare "2024" from "since last year" would need its preposition
    fact, sentence = parse([text, resolved.text])
    if any(e.label_ in ("DATE", "TIME") for e in fact.ents):
        return None  # "in May 2024": the fact keeps a time of its own
    root = next(iter(fact.sents)).root
    if not (root.tag_ == "VBD" or any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD"
                                      for c in root.children)):
        return None
    at = resolved.text.find(said[0].replacement)
    token = next((t for t in sentence if t.idx >= at), None)
    while token is not None and token.pos_ not in ("VERB", "AUX") and token.head is not token:
        token = token.head
    same = [t for t in sentence if t.pos_ in ("VERB", "AUX") and t.lower_ == root.lower_]
    return said[0] if token is not None and same == [token] else None



def _phrase(mention: DateMention) -> str:
    """The resolved time as a phrase to close a sentence: a bare day named takes "on"
    ("Friday 30 May 2025" -> "on Friday 30 May 2025"), an opening capital is lowered unless
    it names a day or a month ("The week before ..." -> "the week before ...")."""
    phrase = mention.replacement
    first = phrase.split()[0] if phrase else ""
    if first in _CALENDAR and mention.precision == "day":
        return f"on {phrase}"
    return phrase if first in _CALENDAR else phrase[:1].lower() + phrase[1:]


def restore_time(fact: FactDraft, turn: Turn) -> FactDraft:
    """``fact`` with the time the model left out put back at its end (:func:`dropped_time`:
    "I paid off $5,000 of the loan yesterday" -> "Priya paid off $5,000 of her student loan
    on 1 June 2025."), and a day as its ``occurred_at`` when it had none; else unchanged.
    Parses: call it off the event loop."""
    if turn.role.value != "user" or (dropped := dropped_time(fact.text, turn)) is None:
        return fact
    text = f"{fact.text.rstrip().rstrip('.!')} {_phrase(dropped)}."
    day = dropped.date.isoformat() if dropped.date and dropped.precision == "day" else None
    return fact.model_copy(update={"text": text,
                                   "occurred_at": iso_date(fact.occurred_at) or day})


_ROLE_LABEL = re.compile(r"\s*\((?:user|assistant|system|tool)\)", re.IGNORECASE)


def tidy(fact: FactDraft) -> FactDraft:
    """``fact`` without the role labels of the prompt's speaker lines ("Priya (user)" ->
    "Priya") and ending with a full stop."""
    text = _ROLE_LABEL.sub("", fact.text).strip()
    if text and text[-1] not in ".!?":
        text += "."
    subject = _ROLE_LABEL.sub("", fact.subject).strip() if fact.subject else fact.subject
    return fact.model_copy(update={"text": text, "subject": subject or None})


def third_person(fact: FactDraft, turn: Turn, speaker: Speaker) -> FactDraft:
    """``fact`` in the third person when its text speaks in the first (I, my, we, our, ...;
    "US" in capitals is the country), for ``speaker``, who said ``turn`` (the turn it cites
    first), verbs agreeing by the parse's tags ("we need" -> "she needs"); its ``subject``
    becomes the speaker's name when it had none. Facts citing an assistant, tool or system
    turn, and facts already in the third person, are returned unchanged. Parses (spaCy):
    call it off the event loop."""
    if turn.role.value != "user" or not any(
            m.group(0) != "US" for m in _FIRST_PERSON.finditer(fact.text)):
        return fact
    [doc] = parse([fact.text])
    tags = {t.lower_: t.tag_ for t in reversed(doc)}  # a word's first occurrence wins
    return fact.model_copy(update={"text": to_third_person(fact.text, speaker, tags),
                                   "subject": fact.subject or speaker.name})


def third_persons(facts: Sequence[FactDraft], turns: Sequence[Turn]) -> list[FactDraft]:
    """:func:`third_person` for each of ``facts`` (their evidence already among ``turns``)."""
    by_id = {turn.id: turn for turn in turns}
    speakers = turn_speakers(turns)
    return [third_person(f, by_id[f.evidence[0]], speakers[f.evidence[0]]) for f in facts]


_SELF_STANDING = re.compile(r"^(?:[A-Z][\w'-]*|[Hh]e|[Ss]he)\b(?!\s+(?:too|also)\b)")
"""A sentence that can stand as a fact: it opens with a name (or a capitalized word), or with
"he" or "she", which the fact's subject replaces."""
_PRONOUN = re.compile(r"^(?:[Hh]e|[Ss]he)\b")
_NOT_A_SUBJECT = frozenset(("It", "This", "That", "These", "Those", "They", "There", "Here",
                            "And", "But", "So", "Then", "Also"))
_BACK_REFERENCE = re.compile(r"\b(?:it|its|them|there)\b", re.IGNORECASE)
MIN_CLAIM_WORDS = 3
"""Fewest words a sentence needs to become a fact of its own."""


def claim_sentences(sentence: str, subject: str | None) -> list[str]:
    """``sentence`` (one sentence in the third person about ``subject``) as one sentence per
    claim, by its dependency parse: verbs coordinated with the main verb and no subject of
    their own get the main verb's subject ("Kai lives in Boston and works as a pharmacist" ->
    "Kai lives in Boston." and "Kai works as a pharmacist."), unless they refer back ("moved
    to Portland and loves it"), and a clause spliced on with a comma is a sentence when both
    clauses have ``subject`` (or "he", "she") as their subject ("Priya gets nervous when
    markets drop, she ..."; spaCy reads the first as a complement of the later verb).
    Coordinated objects ("has a dog and a cat") and verbs below the main one ("wants to buy a
    house and start a family") stay together. Parses (spaCy): call it off the event loop.

    Raises:
        ConfigError: spaCy or its English model is not installed.
    """
    own = {w.lower() for w in (subject or "").split()} | {"he", "she"}
    [doc] = parse([sentence])
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None:
        return [sentence]
    pieces: list[list[Any]] = []
    keep = [t for t in doc if not t.is_punct or t.i != len(doc) - 1]
    spliced = [c for c in root.children if c.dep_ == "ccomp" and c.i < root.i
               and _subject_is(c, own) and _subject_is(root, own)
               and any(t.text == "," for t in doc[c.right_edge.i + 1: root.i])]
    if spliced:
        first = set(spliced[0].subtree)
        pieces.append([t for t in keep if t in first])
        keep = [t for t in keep if t not in first and t.i > spliced[0].right_edge.i + 1]
    subject = [t for c in root.children if c.dep_ in ("nsubj", "nsubjpass") for t in c.subtree]
    joined = [w for w in root.children if w.dep_ == "conj" and w.pos_ in ("VERB", "AUX")
              and not any(d.dep_.startswith("nsubj") for d in w.children)
              and not any(_BACK_REFERENCE.fullmatch(t.text) for t in w.subtree)]
    if subject and joined:
        cut = {t for w in joined for t in w.subtree}
        cut |= {t for t in root.children if t.dep_ == "cc" or (t.text == "," and t.i > root.i)}
        pieces.append([t for t in keep if t not in cut])
        pieces += [subject + list(w.subtree) for w in joined]
    else:
        pieces.append(keep)
    if len(pieces) < 2:
        return [sentence]
    out = []
    for tokens in pieces:
        text = "".join(t.text_with_ws for t in tokens).strip(" ,")
        out.append(text[:1].upper() + text[1:] + ("" if text.endswith((".", "!")) else "."))
    return out


def _subject_is(verb: Any, names: set[str]) -> bool:
    """Whether ``verb``'s subject is one of ``names`` (lower case)."""
    return any(d.dep_ in ("nsubj", "nsubjpass") and d.lower_ in names for d in verb.children)


def atomic(fact: FactDraft) -> list[FactDraft]:
    """``fact`` as one fact per claim, each citing the same turns: one per sentence, and one
    per claim of a sentence (:func:`claim_sentences`), when every part stands on its own: at
    least :data:`MIN_CLAIM_WORDS` words, opening with a name or with "he"/"she" (replaced by
    the fact's ``subject``), and no later part referring back ("It is rainy", "They like it
    there": :func:`_refers_back`): such a fact is kept whole. Each part keeps the fact's
    ``occurred_at``, except that when some parts state its year and others do not, only those
    that state it keep it ("Priya gets nervous when markets drop, she sold everything in 2020"
    dates the sale, not the nerves). Parses (spaCy): call it off the event loop."""
    sentences = [part for sentence in split_sentences(fact.text)
                 for part in claim_sentences(sentence, fact.subject)]
    if len(sentences) < 2:
        return [fact]
    for sentence in sentences:
        first = sentence.split()[0].strip(",") if sentence.split() else ""
        if (len(_WORD.findall(sentence)) < MIN_CLAIM_WORDS or first in _NOT_A_SUBJECT
                or not _SELF_STANDING.match(sentence)
                or (_PRONOUN.match(sentence) and not fact.subject)):
            return [fact]
    if any(_refers_back(sentence) for sentence in sentences[1:]):
        return [fact]
    year = (iso_date(fact.occurred_at) or "")[:4]
    dated = {i for i, sentence in enumerate(sentences) if year and year in sentence}
    parts = []
    for i, sentence in enumerate(sentences):
        text = _PRONOUN.sub(fact.subject or "", sentence, count=1)
        occurred = None if dated and i not in dated else fact.occurred_at
        parts.append(fact.model_copy(update={"text": text, "occurred_at": occurred}))
    return parts


def _refers_back(sentence: str) -> bool:
    """Whether ``sentence`` has "it", "them" or "there" with no noun before it in the
    sentence to refer to ("She loves it there"; not "She sold everything in 2020 and
    regretted it")."""
    if not _BACK_REFERENCE.search(sentence):
        return False
    [doc] = parse([sentence])
    for token in doc:
        if _BACK_REFERENCE.fullmatch(token.text):
            return not any(t.pos_ in ("NOUN", "PROPN", "NUM") or t.lower_.endswith("thing")
                           for t in doc[1:token.i])
    return False


def iso_date(value: str | None) -> str | None:
    """``value`` as ``YYYY-MM-DD`` when it starts with an ISO date, else ``None``."""
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value.strip()[:10]).isoformat()
    except ValueError:
        return None


def uncovered(disclosures: Sequence[Turn], facts: Sequence[FactDraft],
              assistants: Iterable[str] = ()) -> list[Turn]:
    """The self-disclosure turns the answer missed: all of them when no fact cites any, else
    those that state a number (:func:`agent_memory.text.numbers.numbers_in`: amounts, ages,
    percentages; dates left out on both sides) that no fact keeps ("Our budget is
    now $480,000" is not covered by "Priya updated her budget for the house", nor "I paid off
    $5,000 ... I have $7,000 left" by the payment alone). Such a turn is returned with only
    its first-person statements that hold a missing number, when there are any ("I have
    $7,000 left": a 1.5B model asked about the whole turn again gave the payment again), else
    whole ("Only 2% right now."). A fact that
    keeps the number but cites the neighbouring turn covers it: the grounding check repairs
    such citations. A fact that only reports the talk ("Priya discussed her preference for
    email summaries", or "... with her advisor" when the advisor is one of ``assistants``, the
    names of the assistant-side speakers; :func:`agent_memory.text.talk.conversation_report`,
    by which the grounding check refuses it) covers nothing: its turn is asked again whole."""
    names = tuple(assistants)
    talked = {i for f in facts if conversation_report(f.text, names) for i in f.evidence}
    facts = [f for f in facts if not conversation_report(f.text, names)]
    if not any(t.id in f.evidence for t in disclosures for f in facts):
        return list(disclosures)  # also none at all
    when = disclosures[0].created_at  # facts hold absolute dates: any reference will do
    kept = frozenset().union(*(numbers_in(_undated(f.text, when)) for f in facts))
    out = []
    for turn in disclosures:
        if turn.id in talked and not any(turn.id in f.evidence for f in facts):
            out.append(turn)  # only reported as talked about
            continue
        if not numbers_in(_undated(turn.content, turn.created_at)) - kept:
            continue
        # only the statements that hold the missing numbers, when they stand on their own
        said = [s for s in split_sentences(turn.content)
                if numbers_in(_undated(s, turn.created_at)) - kept and _FIRST_PERSON.search(s)
                and len(_WORD.findall(s)) >= MIN_DISCLOSURE_WORDS]
        out.append(turn.model_copy(update={"content": " ".join(said)}) if said else turn)
    return out


def _undated(text: str, when: dt.datetime) -> str:
    """``text`` without its dates, relative ones resolved against ``when`` first: the numbers
    left are amounts, ages and counts. A turn's "in about three years" and its fact's "around
    2028" both leave nothing, nor do "yesterday" and "on 14 April 2025"."""
    resolved = resolve_dates(text, when)
    out = resolved.text
    for mention in resolved.mentions:
        out = out.replace(mention.replacement, " ")
    return out


CONTEXT_SHARE = 4
"""At most this share of a fact request's material budget goes to the earlier turns shown as
context (a quarter: 450 tokens at a 4,096-token window, room for the 8 turns before a window
of most chats and the turns that named a thing); only what they take is kept from the
turns."""
TAIL_SHARE = 8
"""The share of the material budget kept, when the turns need several requests, for the
talk before each request after the first (an eighth: 225 tokens at 4,096, the few turns a
reply may answer)."""


NEAREST_TURNS = 2
"""The turns right before a request that go first into its earlier talk: the question a
short reply answers."""


def earlier_turns(before: Sequence[Turn], first: Turn, budget: int) -> list[Turn]:
    """The turns of ``before`` (oldest first) to show as earlier talk for a request whose
    first turn is ``first``, within ``budget`` tokens, oldest first. They go in by rank, a
    turn that does not fit left out and the next tried:

    1. the :data:`NEAREST_TURNS` turns right before ``first`` (of its thread, seq by seq);
    2. the turns from further back (of other threads, or further back in the thread): the
       pipeline sends those that named a thing the turns call by name alone ("my cat Miso"
       for "Miso died"), the latest first;
    3. the rest of the turns right before ``first``, the latest first.

    A turn listed twice is shown once."""
    unique = list({t.id: t for t in before}.values())
    run: list[Turn] = []  # the turns right before ``first``, latest first
    for turn in reversed(unique):
        after = run[-1] if run else first
        if turn.thread_id != first.thread_id or turn.seq < 0 or turn.seq != after.seq - 1:
            break
        run.append(turn)
    near = {t.id for t in run}
    ranked = [*run[:NEAREST_TURNS], *(t for t in reversed(unique) if t.id not in near),
              *run[NEAREST_TURNS:]]
    kept: set[str] = set()
    used = 0
    for turn in ranked:
        size = chunking.turn_tokens(turn)
        if used + size <= budget:
            kept.add(turn.id)
            used += size
    return [t for t in unique if t.id in kept]


async def extract_facts(r: OpenAIReasoner, turns: Sequence[Turn],
                        context: Sequence[Turn] = ()) -> FactExtraction:
    """The facts of ``turns`` (see the module docstring); ``context``: the turns before them,
    oldest first, shown as earlier talk (:func:`earlier_turns`).

    Raises:
        MalformedOutputError: invalid output after ``max_repairs`` repairs.
        ReasonerError: the endpoint failed.
    """
    if not turns:
        return FactExtraction()
    own = {t.id for t in turns}
    context = [t for t in context if t.id not in own]  # a turn is shown once, as a turn
    assistants = assistant_speakers([*context, *turns])
    schema = schema_text(FactExtraction)
    fixed = chunking.message_tokens(prompts.fact_messages([], schema))
    budget = chunking.material_budget(
        r.context_tokens, fixed, r.context_tokens // chunking.FACT_ANSWER_SHARE)
    note = count_tokens(prompts.EARLIER_NOTE) + 8  # the note, its fence lines and breaks
    most = budget // CONTEXT_SHARE - note
    chosen = earlier_turns(context, turns[0], most) if context else []
    reserve = note + sum(map(chunking.turn_tokens, chosen)) if chosen else 0  # for the talk
    parts = chunking.pack_turns(turns, budget - reserve)
    if len(parts) > 1:  # each request after the first is shown the talk before it too
        reserve = max(reserve, note + min(most, budget // TAIL_SHARE))
        parts = chunking.pack_turns(turns, budget - reserve)
    if reserve and budget - reserve < chunking.MIN_MATERIAL_TOKENS:
        reserve = 0  # a window too small for earlier talk: the turns alone, as before
        parts = chunking.pack_turns(turns, budget)
    facts: list[FactDraft] = []
    start = 0
    for part in parts:
        earlier = earlier_turns([*context, *turns[:start]], part[0],
                                reserve - note) if reserve else []
        start += len(part)
        found = (await _extract_part(
            r, part, prompts.fact_messages(part, schema, earlier), earlier)).facts
        kept = await run_in_worker(_written, found, part, earlier)  # what is left of them
        missed = uncovered(self_disclosures(part), kept, assistants)
        missed += [t for t in await run_in_worker(named_news, part, earlier)
                   if not any(t.id in f.evidence for f in kept)
                   and t.id not in {m.id for m in missed}]
        if missed:  # the vague facts of the first answer give way to exact ones of both
            found = [*found, *(await _extract_part(
                r, missed, prompts.disclosure_messages(missed, schema))).facts]
            kept = await run_in_worker(_written, found, part, earlier)
        facts += kept
    return FactExtraction(facts=facts)


def superseded_out(facts: Sequence[FactDraft], turns: Sequence[Turn]) -> list[FactDraft]:
    """``facts`` without those another states more exactly: a fact with no number whose cited
    turn, or a user turn up to two positions away (small models cite the turn next to the
    right one; the grounding check repairs such citations later), states a number that
    another fact citing that turn keeps, the two naming a common thing (a noun of the parse,
    the speakers' names aside): "Priya updated her deposit target" goes beside "Priya thinks
    she needs $60,000 for the deposit" for "We now think we need $60,000 for the deposit".
    Only a number the turn itself states counts, and never one of a planted instruction
    (:func:`~agent_memory.text.injection.injection_reason`), so a planted fact removes
    nothing; a fact with no number near stays ("Anika was born in January, so her education
    matters"). Parses (spaCy): call it off the event loop."""
    stated = {t.id: frozenset() if injection_reason(t.content) else numbers_in(t.content)
              for t in turns}
    names = sorted({w.lower() for t in turns if t.speaker for w in t.speaker.split()})
    position = {t.id: k for k, t in enumerate(turns)}
    things = [set(content_terms(" ".join(t.text for t in doc if t.pos_ in ("NOUN", "PROPN")),
                                names)) for doc in parse([f.text for f in facts])]
    exact = [(set(f.evidence), numbers_in(f.text), nouns)
             for f, nouns in zip(facts, things, strict=True) if numbers_in(f.text)]

    def near(turn_id: str) -> list[str]:
        k = position.get(turn_id)
        return [turn_id] if k is None else [turn_id, *(
            t.id for t in turns[max(0, k - 2):k + 3] if t.role.value == "user" and t.id != turn_id)]

    return [f for f, nouns in zip(facts, things, strict=True) if numbers_in(f.text) or not any(
        i in ids and numbers & stated.get(i, frozenset()) and held & nouns
        for cited in f.evidence for i in near(cited) for ids, numbers, held in exact)]


_GREETING = re.compile(r"^\W*(?:thanks|thank you|thx|hi|hey|hello|bye|goodbye|wow|aw+|omg|"
                       r"congrats|congratulations|good luck|cheers)\b", re.IGNORECASE)
_PHOTO = re.compile(r"\b(?:shares?|shared|sharing|here's|here is)\s+(?:a|an|the|this|some|one)?"
                    r"\s*(?:photo|pic|picture|photograph|image|snap)s?\b", re.IGNORECASE)
_VOCATIVE = re.compile(r",\s*(?P<name>[A-Z][a-z]+)\W*$")


def spoken_line(sentence: str, names: Sequence[str]) -> bool:
    """Whether ``sentence`` of a model's fact is a line of the conversation rather than a
    note about a person (issue 19's chatter): a question, words to the listener ("you",
    "your": "You're doing great with the garden"), a greeting or thanks ("Thanks, Omar!"),
    a line ending by addressing a speaker ("That's lovely, Om!"; ``names``: the speakers'
    names, lower case, a short form counting), or a photo shared ("Dana shared a photo of
    her balcony"): a caption is no claim about the person."""
    vocative = _VOCATIVE.search(sentence)
    addressed = vocative["name"].lower() if vocative and len(vocative["name"]) >= 3 else None
    return (sentence.rstrip().endswith("?") or bool(YOU_WORDS.intersection(words(sentence)))
            or bool(_GREETING.match(sentence)) or bool(_PHOTO.search(sentence))
            or addressed is not None and any(n.startswith(addressed) for n in names))


_SPEAKER_LABEL = re.compile(r"^\s*(?P<name>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?):\s+(?=\S)")
"""A transcript line's speaker label opening a fact ("Dana: Thanks, Omar! ...")."""


def as_notes(facts: Sequence[FactDraft], turns: Sequence[Turn]) -> list[FactDraft]:
    """``facts`` as notes about people: a speaker label opening a fact ("Dana: ...", a
    transcript line copied) taken off, the sentences that are lines of the conversation
    (:func:`spoken_line`) dropped, and a fact left with no sentence dropped."""
    names = sorted({w.lower() for t in turns if t.speaker
                    for w in (t.speaker, *t.speaker.split())})
    out = []
    for fact in facts:
        text = _SPEAKER_LABEL.sub("", fact.text, count=1)
        kept = [s for s in split_sentences(text) if not spoken_line(s, names)]
        if kept:
            out.append(fact.model_copy(update={"text": " ".join(kept)}))
    return out


def _names_a_user(turns: Sequence[Turn]) -> Callable[[str], bool]:
    """The test of :func:`names_a_speaker` for ``turns``, their names read once: a fact text
    names one of the user side's speakers (full or first name); always true when a user turn
    has no speaker name (or there is none)."""
    users = [t for t in turns if t.role.value == "user"]
    if not users or any(not t.speaker for t in users):
        return lambda text: True
    names = sorted({w for t in users for w in (t.speaker or "", *(t.speaker or "").split())
                    if w}, key=len, reverse=True)
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")
    return lambda text: pattern.search(text) is not None


def names_a_speaker(fact: FactDraft, turns: Sequence[Turn]) -> bool:
    """Whether ``fact`` names one of the people whose turns (role ``user``) it may be about (a
    first name counts): a note with no one named ("Rest is so important", "So excited for
    the move!") is about no one. Always true when a user turn has no speaker name: an unnamed
    user's facts are written "The user ..." or with no name."""
    return _names_a_user(turns)(fact.text)


def _named(turns: Sequence[Turn], earlier: Sequence[Turn]
           ) -> tuple[list[Turn], dict[str, int], dict[str, dict[str, tuple[str, str]]]]:
    """The user turns of ``earlier`` and ``turns`` with a speaker, in order; turn id -> its
    position among them; and the things each speaker named in them
    (:func:`~.extractive.named.named_things`). Parses: call it off the event loop."""
    read = [t for t in [*earlier, *turns] if t.role.value == "user" and t.speaker]
    speakers = frozenset(w.lower() for t in read for w in (t.speaker or "", *(
        t.speaker or "").split()) if w)
    things = named_things({t.id: split_sentences(t.content) for t in read},
                          {t.id: t.speaker or "" for t in read}, speakers) if read else {}
    return read, {t.id: k for k, t in enumerate(read)}, things


def _owner_of(text: str, turn: Turn, order: dict[str, int],
              things: dict[str, dict[str, tuple[str, str]]]) -> tuple[str, str] | None:
    """``text`` (a sentence of ``turn``, or a fact citing it first) written with the owner's
    word before the name it opens with, and the naming turn's id (:func:`.named.owned`),
    when ``turn``'s speaker named that thing no later than ``turn``; else ``None``."""
    mine = owned(text, things.get(turn.speaker or "", {}))
    return mine if mine is not None and order[mine[1]] <= order[turn.id] else None


def _news_names(turn: Turn, order: dict[str, int],
                things: dict[str, dict[str, tuple[str, str]]]) -> set[str]:
    """The names of things its speaker named no later than ``turn`` that open one of
    ``turn``'s sentences as its subject ("Miso died on Sunday.")."""
    return {words(s)[0].removesuffix("'s") for s in split_sentences(turn.content)
            if _owner_of(s, turn, order, things)}


def named_news(turns: Sequence[Turn], earlier: Sequence[Turn] = ()) -> list[Turn]:
    """The user turns of ``turns`` with a sentence opening with the name of a thing their
    speaker named no later ("Sad news. Miso died on Sunday." after "my cat Miso is 14"):
    news about the speaker's own, though in no first person, so no :func:`self_disclosures`;
    an answer with no fact citing one asks it again. A turn addressed to the memory or the
    model (:func:`~agent_memory.text.injection.injection_reason`) is none. Parses: call it
    off the event loop."""
    _, order, things = _named(turns, earlier)
    return [t for t in turns if t.id in order and not injection_reason(t.content)
            and _news_names(t, order, things)]


def with_owners(facts: Sequence[FactDraft], turns: Sequence[Turn],
                earlier: Sequence[Turn] = ()) -> list[FactDraft]:
    """``facts`` that open with the name of a thing the speaker of their first cited turn
    named, in ``earlier`` or ``turns`` no later than that turn (a pet, a relative: "my cat
    Miso", :func:`~.extractive.named.named_things`), and name no speaker, written with the
    owner ("Miso died on Sunday." -> "Dana's cat Miso died on Sunday.") and citing the naming
    turn after their own, where the noun is said (the grounding check looks for it there),
    the speaker as their subject, as the offline reasoner writes them, when that turn too
    opens a sentence with the name ("Miso died on Sunday."; not "I heard Max from accounting
    quit" for a son named Max); the other facts unchanged. A small model writes the name as
    the speaker said it. Parses (spaCy): call it off the event loop."""
    named = _names_a_user(turns)
    if all(named(f.text) for f in facts):
        return list(facts)
    read, order, things = _named(turns, earlier)
    out = []
    for fact in facts:
        own = read[order[fact.evidence[0]]] if fact.evidence[0] in order else None
        mine = None if own is None or named(fact.text) else _owner_of(
            fact.text, own, order, things)
        if own is None or mine is None or words(fact.text)[0].removesuffix(
                "'s") not in _news_names(own, order, things):  # the turn opens with it too
            out.append(fact)
            continue
        text = f"{own.speaker}'s {mine[0].removeprefix('My ')}"
        evidence = [*fact.evidence, *([mine[1]] if mine[1] not in fact.evidence else [])]
        out.append(fact.model_copy(update={"text": text, "evidence": evidence,
                                           "subject": own.speaker}))  # not "Miso"
    return out


def copied_openings(parts: Sequence[FactDraft], turns: Sequence[Turn]) -> list[bool]:
    """Whether each of ``parts`` (facts of one claim, citing turns of ``turns`` first) is a
    copy of the opening of a sentence of its cited turn with a speaker's name put first, and
    states nothing: no verb or auxiliary by its parse, no number, and its words, the
    speakers' names aside, open a sentence of that turn ("Dana sad news." for "Sad news.
    Miso died on Sunday."). A fact with no verb that states something is not one ("Priya's
    budget: $480,000.", "Priya, 34, a nurse", "Omar fosters kittens" with the verb
    read as a noun). Parses (spaCy): call it off the event loop."""
    by_id = {t.id: t for t in turns}
    names = {w.lower() for t in turns if t.speaker for w in t.speaker.split()}
    out = []
    for part, doc in zip(parts, parse([p.text for p in parts]), strict=True):
        said = [w for w in (w.removesuffix("'s") for w in words(part.text)) if w not in names]
        turn = by_id.get(part.evidence[0])
        out.append(bool(said) and turn is not None and not numbers_in(part.text)
                   and not any(t.pos_ in ("VERB", "AUX") for t in doc)
                   and any(words(s)[:len(said)] == said for s in split_sentences(turn.content)))
    return out


def _written(facts: Sequence[FactDraft], turns: Sequence[Turn],
             earlier: Sequence[Turn] = ()) -> list[FactDraft]:
    """``facts`` without the vague ones another states exactly (:func:`superseded_out`), as
    notes (:func:`as_notes`), in the third person (:func:`third_persons`), one claim each
    (:func:`atomic`), a named thing given its owner (:func:`with_owners`), each naming a
    speaker (:func:`names_a_speaker`) and no copy of a line's opening
    (:func:`copied_openings`), with a time the model left out put back
    (:func:`restore_time`); parses: call it off the event loop."""
    named = _names_a_user(turns)  # the names read once for all the facts
    by_id = {turn.id: turn for turn in turns}
    notes = third_persons(as_notes(superseded_out(facts, turns), turns), turns)
    parts = [one for one in with_owners([one for fact in notes for one in atomic(fact)],
                                        turns, earlier) if named(one.text)]
    return [restore_time(one, by_id[one.evidence[0]])
            for one, copied in zip(parts, copied_openings(parts, turns), strict=True)
            if not copied]


async def _extract_part(r: OpenAIReasoner, turns: Sequence[Turn],
                        messages: list[dict[str, str]],
                        earlier: Sequence[Turn] = ()) -> FactExtraction:
    """One request: ``turns`` (and the ``earlier`` turns shown before them) fit the context
    window. A fact's evidence is its cited ids among ``turns``, then those among ``earlier``.
    A fact citing only earlier turns is given the turn of ``turns`` it is drawn from
    (:func:`drawn_from`: "Dana's cat Miso died on Sunday" citing "My cat Miso is 14" is
    drawn from "Miso died on Sunday"), else dropped: no fact comes from earlier turns
    alone."""
    by_id = {turn.id: turn for turn in turns}
    before = {turn.id: turn for turn in earlier}

    def check(result: FactExtraction) -> FactExtraction:
        facts: list[FactDraft] = []
        uncited: list[str] = []
        for i, fact in enumerate(result.facts):
            cited = _keep_known(fact.evidence, by_id)
            if not cited and _keep_known(fact.evidence, before):
                if (source := drawn_from(fact.text, turns)) is None:
                    log.debug("fact citing only earlier turns dropped: %r", fact.text)
                    continue
                cited = [source.id]
            if not cited:
                uncited.append(f"- facts.{i} ({fact.text[:60]!r}) cites {fact.evidence}")
                continue
            turn = by_id[cited[0]]
            cited += [e for e in _keep_known(fact.evidence, before) if e not in cited]
            fact = absolute_dates(tidy(fact.model_copy(update={"evidence": cited})), turn)
            facts.append(fact)
        if uncited:
            raise OutputRejected(
                "these facts cite no turn id shown in the conversation (use the ids in "
                "square brackets at the start of each line):\n" + "\n".join(uncited)
            )
        return FactExtraction(facts=facts)

    return await r.structured(messages, FactExtraction, check)


def drawn_from(text: str, turns: Sequence[Turn]) -> Turn | None:
    """The turn of ``turns`` said by a person that a fact's ``text`` shares the most content
    terms with, at least :data:`MIN_SHARED_TERMS` (the speakers' names aside); ``None`` when
    none does, or two share the most."""
    names = {w.lower() for t in turns if t.speaker for w in t.speaker.split()}
    terms = set(content_terms(text, names))
    shared = sorted(((len(terms & set(content_terms(t.content, names))), k)
                     for k, t in enumerate(turns) if t.role.value == "user"), reverse=True)
    if not shared or shared[0][0] < MIN_SHARED_TERMS or (
            len(shared) > 1 and shared[1][0] == shared[0][0]):
        return None
    return turns[shared[0][1]]


def _keep_known(ids: Sequence[str], known: dict[str, Turn]) -> list[str]:
    """``ids`` that are in ``known``, first occurrence order, brackets and spaces stripped."""
    out: list[str] = []
    for raw in ids:
        clean = raw.strip().strip("[]").strip()
        if clean in known and clean not in out:
            out.append(clean)
    return out
