"""Fact extraction: the clauses of user turns worth a fact, rewritten to stand alone.

Each sentence of a user turn that can be the speaker's claim (one with "I", "my", "we"..., or
opening with the speaker left out: "Gonna try pottery", "Been busy", a verb in the past as in
a diary: "Started a pottery class last week"; a short answer is read with the question
before it: "Since I was 17" after "How long have you been painting?", :mod:`.answers`; one
opening with the name of a thing the speaker named is read as "my cat Miso ...", :mod:`.named`) is
cleaned (leading interjections, labels and vocatives), its relative dates resolved
(:mod:`agent_memory.text.dates`), and parsed into clauses (:mod:`.parse`). A learned decision
(:mod:`.select`) gives each clause the probability that it is worth a fact, scaled down for a
side remark of its turn (:func:`salience`); the clauses scoring >= :data:`FACT_THRESHOLD` are
kept (at most :data:`FACTS_PER_TURN` per turn), an "it" or
"this <noun>" in each is replaced by what it stands for in the talk before when that is clear
(:mod:`.antecedents`; before the choice for a clause that is no candidate without it: "but
now I love it"), and each is rewritten in the third person (:mod:`.person`): "I live in
Boston and work as a pharmacist" said by Kai gives "Kai lives in Boston." and "Kai works as a
pharmacist."; "I tried a climbing gym yesterday and the walls were huge" said by Kai on 8 May
2023 gives "Kai tried a climbing gym on 7 May 2023."

"we" is the group the turn names ("my teammates and I" -> "John and their teammates"), else the
speaker's family while it is in the talk (:func:`turn_speakers`), else the speaker alone.

Only turns with role ``user`` are read: the people the memory is about (in a two-person
conversation such as LoCoMo both speakers are users, and each fact's subject is the speaker who
disclosed it). Assistant, tool and system turns never give facts, so an advisor's "Noted, I
will send email summaries" is not a fact about anyone. Questions, clauses whose subject is
someone or something else ("It was so fun"), clauses addressing the listener ("I'm so proud of
you") and clauses with no noun outside a date give none either.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

import numpy as np

from ...models import Role, Turn, normalize_text
from ...text.dates import ResolvedText, resolve_dates
from ..base import FactDraft, FactExtraction
from .answers import answered_sentences
from .antecedents import GO_WORDS, Context, resolve_ellipsis, resolve_references
from .embedded import embedded_clauses
from .lexicon import past_form
from .named import named_things, owned
from .parse import Clause, clauses, group_of, parse
from .person import (
    SAME_PAST,
    WE_WORDS,
    Speaker,
    family_named,
    household_of,
    parse_pronouns,
    to_third_person,
    unnamed_group,
)
from .person import SELF_WORDS as _SELF_WORDS
from .person import YOU_WORDS as _YOU_WORDS
from .select import candidate, embed_texts, worth
from .sentences import content_terms, entities, split_sentences, word_set, words

Embed = Callable[[list[str]], np.ndarray]
FACT_THRESHOLD = 0.28
"""Least score (:func:`salience`) for a clause to become a fact; chosen with
:data:`CENTRALITY` on the tuning conversations of LoCoMo dev (BENCHMARKS.md): with the
selector trained on the written chats too, the lowest threshold whose matched precision there
is no lower than the earlier selector's at 0.25."""
FACTS_PER_TURN = 2
"""At most this many facts per turn, the highest scores first: one per thing worth keeping (a
self-introduction giving a fuller name, "I'm Dana Okafor", is kept beside them)."""
CENTRALITY = 0.55
"""Cosine between a clause and its whole turn (local embeddings) from which the clause is the
turn's main point and keeps its full probability (:func:`salience`)."""

_INTERJECTION = re.compile(
    r"^(?:(?:yeah|yes|yep|yup|nope|yay|whoa|woah|oh|wow|well|so|haha+|hah|lol|omg|hey|hi|hello|aw+|"
    r"um+|hmm+|honestly|"
    r"actually|ah+|ok|okay|sure|absolutely|totally|true|definitely|nah|man|gosh|ugh|anyway|"
    r"anyways|btw|fyi|by the way|also|and|but|plus|oh man|oh no|ha|then|noted|as for me|"
    r"what can i say|congrat\w*(?: on [\w' ]{1,30}?(?=,))?|"
    r"thanks(?: (?:so|very) much| a (?:lot|ton|bunch))?(?: for [\w' ]{1,30}?(?=,))?(?=,)|"
    r"thank you(?: (?:so|very) much)?(?: for [\w' ]{1,30}?(?=,))?(?=,)|"
    r"besides that|(?:great|good|big|exciting) news|in other news|on (?:another|a \w+) note|"
    r"speaking of (?:which|that|[\w' ]{1,30}?(?=,)))\b[\s,!.\u2026:-]*)+",
    re.IGNORECASE,
)
_DASH = re.compile(r"\s*[\u2013\u2014]\s*|\s+-+\s+|(?<=\w)-+\s+")
"""A dash between words: it parts two thoughts ("I won my first tournament - so exciting!")
the way a full stop does."""
_LABEL = re.compile(r"^[A-Za-z]+(?: [A-Za-z]+){0,2}:\s+(?=\S)")
"""A leading label such as "Quick update: " or "Note: "."""
_SUBJECTLESS = re.compile(
    r"^(?:(?P<lead>gonna|going to|planning (?:to|on)|thinking (?:of|about)|hoping to|"
    r"trying to|looking forward to|heading|off to|still \w+ing|(?:so\s+|really\s+)?(?:glad|happy|"
    r"excited|thrilled|stoked|proud|grateful|thankful|lucky|sorry|sad|busy))"
    r"|(?P<just>just \w+ed|just got|just went|just finished)"
    r"|(?P<been>(?:always |never |just |really )?been))\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:maybe|might|perhaps|probably|possibly|kinda|sort of|kind of|i think|i guess|"
    r"not sure|i feel like|hopefully)\b",
    re.IGNORECASE,
)
HEDGED_CONFIDENCE = 0.65
"""Highest confidence of a fact whose clause hedges ("I think", "maybe", "might"): below the
0.7 that session reflection keeps."""
_LIFE_EVENT = re.compile(
    r"\b(?:married|marry|engaged|wedding|divorce\w*|pregnan\w*|baby|born|adopt\w*|passed away|"
    r"died|funeral|moved|moving|new job|promot\w*|graduat\w*|diagnos\w*|surgery|retir\w*|"
    r"transition\w*|hired|fired|quit|accident|bought a (?:house|home|car)|lost my|"
    r"started (?:a|my)|opened (?:a|my)|launched)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
CATEGORY_KEYWORDS: dict[str, tuple[str, ...]] = {
    "identity": ("transgender", "trans", "gay", "lesbian", "bisexual", "queer", "lgbtq*",
                 "nonbinary", "identity", "religio*", "christian", "muslim", "jewish", "atheist",
                 "pronouns", "years old", "heritage", "culture", "nationality", "immigra*"),
    "health": ("health*", "doctor", "hospital", "sick", "ill", "injur*", "therap*", "diet",
               "pain", "surgery", "anxiety", "depress*", "stress*", "medicat*", "diagnos*",
               "allerg*", "sleep", "workout", "gym", "mental"),
    "family": ("kid", "kids", "children", "child", "son", "daughter", "husband", "wife",
               "partner", "family", "mom", "dad", "mother", "father", "parents", "sister",
               "brother", "baby", "grandma", "grandpa", "married", "wedding", "pregnan*", "dog",
               "cat", "pet"),
    "work": ("job", "work*", "career", "boss", "office", "company", "colleague*", "coworker*",
             "project", "client*", "business", "promot*", "interview", "hired", "fired",
             "shift", "manager", "startup"),
    "finance": ("money", "budget", "save", "saving", "savings", "invest*", "retirement", "loan",
                "mortgage", "salary", "debt", "stock*", "income", "rent", "afford", "expens*",
                "paid", "pay"),
    "education": ("school", "college", "university", "degree", "study", "studying", "studied",
                  "class", "classes", "course", "edu", "education", "graduat*", "exam",
                  "teacher"),
    "plan": ("plan*", "gonna", "going to", "will", "i'll", "we'll", "want to", "wants to",
             "wanna", "hope to", "hopes to", "hoping", "would like to", "'d like to",
             "thinking of", "goal", "dream", "future", "someday", "next", "tomorrow", "soon",
             "looking forward", "intend*", "decided"),
    "location": ("live", "lived", "living", "moved", "moving", "city", "country", "hometown",
                 "house", "apartment", "neighborhood", "neighbourhood", "is from", "am from",
                 "are from", "originally from", "comes from", "grew up", "trip", "travel*",
                 "visit*", "abroad"),
    "hobby": ("paint*", "guitar", "piano", "music", "read", "reading", "book*", "running",
              "run", "hik*", "camping", "swim*", "potter*", "danc*", "photograph*", "game",
              "games", "gaming", "cook*", "bake", "baking", "garden*", "art", "draw*", "sing*",
              "write", "writing", "poetry", "yoga", "sport*", "soccer", "football", "basketball",
              "tennis", "knit*", "volunteer*", "instrument", "concert", "band"),
    "event": ("went", "attended", "visited", "yesterday", "last", "ago", "happened", "event",
              "party", "festival", "ceremony", "conference", "meeting", "met", "celebrat*",
              "race", "parade", "show"),
    "preference": ("love*", "like", "likes", "enjoy*", "favorite", "favourite", "prefer*",
                   "hate", "fan", "into", "passionate", "keen", "adore"),
}
"""The transparent keyword map of :func:`categorize`: whole words, ``prefix*`` stems and
two-word phrases, per category."""
CATEGORY_PRIORITY = (
    "identity", "health", "family", "work", "finance", "education", "plan", "event",
    "location", "hobby", "preference",
)
"""Tie-break order of :func:`categorize`: the more specific and durable category first."""
_HIGH_CATEGORIES = frozenset({"identity", "health", "family", "work", "finance", "plan",
                              "education"})


def speaker_name(turn: Turn) -> str:
    """The name facts are attributed to: ``turn.speaker``, else "The user"/"The assistant"."""
    if turn.speaker and turn.speaker.strip():
        return turn.speaker.strip()
    return "The user" if turn.role == Role.USER else "The assistant"


def keyword_hits(tokens: Sequence[str], keywords: Sequence[str]) -> int:
    """How often ``keywords`` occur in ``tokens`` (lower-case words): whole words,
    ``prefix*`` stems and phrases of several words (``"by 20*"``: any word after "by"
    that starts with 20)."""
    lowered = " " + " ".join(tokens) + " "
    return sum(lowered.count(" " + " ".join(words(k.rstrip("*"))) + ("" if k[-1] == "*" else " "))
               if " " in k or "(" in k
               else sum(t.startswith(k[:-1]) for t in tokens) if k.endswith("*")
               else tokens.count(k) for k in keywords)


def categorize(text: str) -> str:
    """Category of a fact from :data:`CATEGORY_KEYWORDS` (most hits, :func:`keyword_hits`;
    ties broken by :data:`CATEGORY_PRIORITY`), ``"other"`` when no keyword matches."""
    tokens = words(text)
    hits = {c: keyword_hits(tokens, CATEGORY_KEYWORDS[c]) for c in CATEGORY_PRIORITY}
    best = max(CATEGORY_PRIORITY, key=lambda c: (hits[c], -CATEGORY_PRIORITY.index(c)))
    return best if hits[best] else "other"


_STAGE_DIRECTION = re.compile(r"^\s*\[[a-z][^\[\]]*\](?!\()|\[[a-z][^\[\]]*\]\s*$")
"""A transcript's bracketed stage direction opening or closing a turn, not speech: "[laughs]",
"[shares a photo: ...]" (lower case, not a link's "[text](url)"; a bracket inside a sentence,
"I work at [name withheld] as a nurse", stays)."""
_EDGE_SYMBOLS = frozenset(("So", "Sk", "Mn", "Cf"))
"""Unicode categories of what opens or closes a sentence without being a word of it: emoji,
their modifiers, variation selectors and joiners."""


def spoken(content: str) -> str:
    """A turn's ``content`` without its opening or closing stage direction
    (:data:`_STAGE_DIRECTION`)."""
    return _STAGE_DIRECTION.sub("", content).strip()


def _trim_symbols(text: str) -> str:
    """``text`` without emoji (and other symbols) or spaces at either end; "39°C" keeps its
    degree sign."""
    start, end = 0, len(text)
    while start < end and (text[start].isspace()
                           or unicodedata.category(text[start]) in _EDGE_SYMBOLS):
        start += 1
    while end > start and (text[end - 1].isspace()
                           or unicodedata.category(text[end - 1]) in _EDGE_SYMBOLS):
        end -= 1
    return text[start:end]


def clean_sentence(sentence: str, names: frozenset[str]) -> str:
    """Strip leading interjections and vocatives ("Yeah, Mel, I ...") and normalise quotes."""
    text = sentence.replace("\u2019", "'").replace("\u2018", "'").strip()
    for _ in range(3):
        before = text
        text = _INTERJECTION.sub("", text).lstrip()
        text = _LABEL.sub("", text, count=1)
        head, sep, rest = text.partition(",")
        vocative = head.strip().lower()
        if sep and len(vocative) > 1 and any(n.startswith(vocative) for n in names):
            text = rest.lstrip()
        if text == before:
            break
    return text[:1].upper() + text[1:]


def is_disclosure(text: str) -> bool:
    """True when ``text`` is a self-disclosing statement worth a fact (see module docstring)."""
    tokens = words(text)
    if text.endswith("?") or len(tokens) < 4:
        return False
    self_count = sum(1 for t in tokens if t in _SELF_WORDS)
    you_count = sum(1 for t in tokens if t in _YOU_WORDS)
    if self_count == 0 and _SUBJECTLESS.match(text):
        self_count = 1  # "Gonna try ...", "Just got back ...": the speaker is the subject
    if self_count == 0 or you_count >= self_count:
        return False
    return len(content_terms(text)) >= 2


def score_importance(text: str, category: str, dated: bool) -> int:
    """Importance 1-10 of a fact, from a transparent heuristic.

    Start at 4; +3 for a life event (married, moved, new job, graduated, diagnosed, ...);
    +1 for a durable category (identity, health, family, work, finance, education, plan);
    +1 when a date was stated or resolved; +1 for a number; +1 for a named entity;
    -1 when hedged ("maybe", "I think"); -1 for fewer than 7 words. Clamped to 1-10.
    """
    score = (4 + 3 * bool(_LIFE_EVENT.search(text)) + (category in _HIGH_CATEGORIES) + dated
             + bool(_NUMBER.search(text)) + bool(entities(text)) - bool(_HEDGE.search(text))
             - (len(words(text)) < 7))
    return max(1, min(10, score))


def _add_subject(text: str) -> str:
    """Give a subjectless opening "I" as subject ("Gonna try" -> "I am going to try",
    "Just got back" -> "I just got back", "Been busy" -> "I have been busy"); the rewriting
    then names the speaker."""
    match = _SUBJECTLESS.match(text)
    if not match:
        return text
    opening = match.group(0).lower()
    opening = "going to" if opening == "gonna" else opening
    lead = "I am" if match.group("lead") else "I" if match.group("just") else "I have"
    return f"{lead} {opening}{text[match.end():]}"


def finish_sentence(text: str) -> str:
    """``text`` with its trailing ``!``, ``.``, ``…`` and spaces replaced by one full stop
    (``""`` stays ``""``; a question keeps its question mark)."""
    text = text.rstrip().rstrip("!.\u2026 ").rstrip()
    return text if not text or text.endswith("?") else f"{text}."


_GONNA = re.compile(r"\b(is|are|was|were)( not|n't)? gonna\b", re.IGNORECASE)
"""The spoken "gonna" after a form of "be": written out ("Jon is going to keep going")."""
_CAUSE = re.compile(r"(?i)(?<![\w'])(?:'cause|'cos|cuz|coz)(?![\w'])")
"""The spoken "'cause": written out ("... a studio because they love dancing")."""


def salience(probability: float, cosine: float | None) -> float:
    """Score 0-1 of a clause for a fact: the selector's probability that it is worth one,
    scaled down when the clause is a side remark of its turn: times ``cosine / CENTRALITY``
    (clipped to 0-1), where ``cosine`` is between the embeddings of the clause and of the whole
    turn (``None``: no embeddings, the probability alone).

    A person who notes down a conversation writes what each turn is mainly about; a clause far
    from its turn's centre ("I saw the game too" in a turn about a new job) is kept only when
    the selector is sure of it. Sentence-to-centroid similarity as the salience of a sentence is
    the centroid-based summariser's (Radev, Jing, Styś & Tam, "Centroid-based summarization of
    multiple documents", *Information Processing & Management* 40(6), 2004).
    """
    if cosine is None:
        return probability
    return probability * min(1.0, max(0.0, cosine) / CENTRALITY)


def _centrality(candidates: Sequence[tuple[Turn, object, Clause]], embed: Embed | None
                ) -> tuple[np.ndarray | None, list[float | None]]:
    """The clauses' embeddings and each clause's cosine with its whole turn (``None`` each
    when the local model cannot load)."""
    vectors = embed_texts([c.text for _, _, c in candidates], embed)
    turns = {turn.id: turn for turn, _, _ in candidates}
    whole = None if vectors is None else embed_texts(
        [spoken(t.content) for t in turns.values()], embed)
    if vectors is None or whole is None:
        return vectors, [None] * len(candidates)
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    whole = whole / np.maximum(np.linalg.norm(whole, axis=1, keepdims=True), 1e-12)
    row = {turn_id: k for k, turn_id in enumerate(turns)}
    return vectors, [float(v @ whole[row[turn.id]])
                     for v, (turn, _, _) in zip(unit, candidates, strict=True)]


_ACTING = ("dobj", "xcomp", "ccomp", "prt")
"""Dependents by which an opening verb shows an act of the speaker's ("Took the kids to the
coast", "Started a pottery class", "Got back from Rome")."""
_GOING = word_set("to from into back home")


def _acting_opener(doc: Any) -> bool:
    """A sentence with no first-person word that opens with its head verb, in the past or a
    gerund, acting on something or going somewhere ("Started a pottery class last week",
    "Went to Lisbon", "Finishing up a mural"), with no finite verb after a gerund: the speaker
    left out as in a diary. Not a verb whose left-out subject is "it" ("Looked like a fun
    time", "Happened at the concert"), a participle ("Based in Ohio", "Bored at work") or a
    gerund subject ("Going to the beach sounds fun", "Searching for a studio's a tough job")."""
    if not len(doc) or doc[0].pos_ not in ("VERB", "AUX"):
        return False
    verb = doc[0]
    acts = any(c.dep_ in _ACTING or c.dep_ == "prep" and c.lower_ in _GOING
               for c in verb.children)
    if verb.tag_ == "VBG":
        return verb.dep_ == "ROOT" and acts and not any(
            t.tag_ in ("VBD", "VBP", "VBZ", "MD") or t.lower_ == "'s" and (
                t.i + 1 < len(doc) and doc[t.i + 1].tag_ == "DT") for t in doc)
    return acts and not any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children)


def _ownerless(clause: Clause) -> bool:
    """A subjectless clause headed by no verb that the speaker is not the subject of: not a
    known subjectless opening (:data:`_SUBJECTLESS`: "So excited for the trip", "Gonna ...")
    and no "I" the parse missed ("I color-code ..."): "Nearly as funny as when I rode a camel"
    and "Woah, that pic's from ..." say how something is, not what the speaker did."""
    return (clause.kind == "none" and not clause.verb.startswith(("VB", "MD"))
            and words(clause.text)[:1] != ["i"] and not _SUBJECTLESS.match(clause.text))


def _rewrite(clause: Clause, speaker: Speaker, past: bool = False) -> str:
    """The clause in the third person, the speaker named, as one sentence; ``past``: the
    clause's own date is before its turn, so a verb whose past is its base form is past ("I
    quit smoking last year" -> "Kai quit smoking in 2023", not "quits")."""
    text = clause.text
    tags = {w: "VBD" if past and t in ("VBP", "VB") and w in SAME_PAST else t
            for w, t in clause.tags.items()}
    if clause.kind == "none" and words(text)[:1] != ["i"]:  # "I" the parse did not read
        given = _add_subject(text)
        lead = "I am" if clause.verb == "VBG" else "I"  # "Hoping my screenplay gets noticed"
        text = given if given != text else f"{lead} {text[0].lower()}{text[1:]}"
    text = _GONNA.sub(r"\1\2 going to", to_third_person(text, speaker, tags))
    text = _CAUSE.sub("because", text)
    return finish_sentence(text[:1].upper() + text[1:])


_INTRODUCTION = re.compile(
    r"^(?:I'm|I am|my name is|my name's)\s+(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3})$",
    re.IGNORECASE)


def _introduction(clause: Clause, speaker: Speaker) -> str | None:
    """The fact a self-introduction gives ("I'm Dana Okafor" said by Dana: "Dana's full name
    is Dana Okafor."; "I'm Dee" said by Deborah: "Deborah goes by Dee."; "I'm Kofi" said by a
    user with no name on record: "The user's name is Kofi."), ``""`` when it gives nothing the
    speaker's name does not ("I'm Dana"), ``None`` when ``clause`` is none."""
    found = _INTRODUCTION.match(clause.text)
    if found is None or not all(w[:1].isupper() and clause.tags.get(w.lower()) == "NNP"
                                for w in found["name"].split()):
        return None  # "I'm Irish", "I'm Fine"
    given = found["name"]
    known = {w.lower() for w in speaker.name.split()}
    if {w.lower() for w in given.split()} <= known:
        return ""
    if speaker.name.split()[0].lower() in given.lower().split():
        return f"{speaker.name}'s full name is {given}."
    if speaker.name.startswith("The "):  # a role, not a name: "The user"
        return f"{speaker.name}'s name is {given}."
    return f"{speaker.name} goes by {given}."


@dataclass
class _Candidates:
    """The clauses of a run of turns that may become facts, with what the choice needs."""

    items: list[tuple[Turn, ResolvedText, Clause, int]]  # (turn, its sentence with dates
    # resolved, the clause, the sentence's number in its turn)
    who: dict[str, Speaker]  # turn id -> its speaker as the rewrite names them
    asked: dict[tuple[str, str], str]  # (turn id, sentence) -> a turn cited beside it
    said: dict[str, list[str]]  # turn id -> its sentences
    memo: dict[str, Any]  # sentence -> parse, for what "it" stands for


def _candidates(turns: Sequence[Turn], names: frozenset[str], speakers: dict[str, Speaker],
                own: frozenset[str] | None = None) -> _Candidates:
    """The candidate clauses of the user turns whose ids are in ``own`` (default all of
    ``turns``); the others are read as the talk around them only."""
    pending = []  # (turn, sentence with dates resolved, after a dash), in order
    said: dict[str, list[str]] = {}  # turn id -> its sentences
    where: list[int] = []  # the number of each pending sentence in its turn
    opened: set[int] = set()  # pending sentences read only for the verb opening them
    asked: dict[tuple[str, str], str] = {}  # (turn id, a short answer's claim or a sentence
    # about a named thing) -> the question's turn or the turn that named the thing
    for turn in (t for t in turns if t.role == Role.USER):
        said[turn.id] = split_sentences(spoken(turn.content))
    answers = answered_sentences(  # "Since I was 17" after "How long have you ...?"
        turns, {t.id: said.get(t.id) or split_sentences(spoken(t.content)) for t in turns},
        names, lambda sentence: clean_sentence(sentence, names))
    things = named_things(said, {t.id: speaker_name(t) for t in turns}, names)  # "my cat Miso"
    order = {t.id: k for k, t in enumerate(turns)}
    for turn in (t for t in turns if t.role == Role.USER and (own is None or t.id in own)):
        for n, k, raw in ((n, k, p) for n, s in enumerate(said[turn.id])
                          for k, p in enumerate(_DASH.split(s))):
            sentence = clean_sentence(_trim_symbols(raw), names)
            first = words(sentence)[:1]
            mine = None if _SELF_WORDS.intersection(words(sentence)) else owned(
                sentence, things.get(speaker_name(turn), {}))  # "Miso died" -> "My cat Miso
            if mine is not None and order[mine[1]] > order[turn.id]:  # died", citing the turn
                mine = None  # that named the cat too; named later: not yet known
            if mine is not None:
                sentence = mine[0]
            if sentence and (  # a question is parsed too: "Did I tell you I adopted a dog?"
                    _SELF_WORDS.intersection(words(sentence)) or _SUBJECTLESS.match(sentence)):
                pending.append((turn, resolve_dates(sentence, turn.created_at), k > 0))
                where.append(n)
                if mine is not None and mine[1] != turn.id:
                    asked[(turn.id, pending[-1][1].text)] = mine[1]
            elif sentence and first and (past_form(first[0]) or first[0].endswith("ing")):
                opened.add(len(pending))  # "Started a class.", "Researching agencies.": the
                # speaker's only if that verb heads the sentence and acts (_acting_opener)
                pending.append((turn, resolve_dates(sentence, turn.created_at), k > 0))
                where.append(n)
            if k == 0 and turn.id in answers and answers[turn.id][0] == n:
                _, claim, question = answers[turn.id]
                pending.append((turn, resolve_dates(claim, turn.created_at), False))
                where.append(n)
                asked[(turn.id, pending[-1][1].text)] = question  # cited beside the answer
    docs = parse([r.text for _, r, _ in pending])
    kept = [i for i, doc in enumerate(docs) if i not in opened or _acting_opener(doc)]
    pending, where, docs = ([seq[i] for i in kept] for seq in (pending, where, docs))
    groups: dict[str, str] = {}
    for (turn, _, _), doc in zip(pending, docs, strict=True):
        if group := group_of(doc):
            groups.setdefault(turn.id, group)
    who = turn_speakers(turns, speakers, groups)
    position = {t.id: i for i, t in enumerate(turns)}
    memo: dict[str, Any] = {}  # sentence -> parse, for what "it" stands for
    candidates = [  # no subject supplied after a dash: "My sister - the one in Boston - had a baby"
        (turn, resolved, clause, n)
        for (turn, resolved, aside), n, doc, found in zip(pending, where, docs,
                                                          clauses(docs, names), strict=True)
        for clause in (_resolved(c, turns, position[turn.id], said, n, resolved.text, memo)
                       if _pointing_only(c) else c
                       for c in [*found, *embedded_clauses(doc, found)])
        if candidate(clause) and not (aside and clause.kind == "none") and not _ownerless(clause)
        and not unnamed_group(clause.text, clause.sentence, who[turn.id])
        and _introduction(clause, who[turn.id]) != ""]
    return _Candidates(candidates, who, asked, said, memo)


def candidate_clauses(turns: Sequence[Turn]) -> list[tuple[str, Clause]]:
    """``(turn id, clause)`` of every clause of the user turns in ``turns`` that the learned
    decision weighs (:func:`.select.worth`), in order: the clauses :func:`extract_facts`
    chooses its facts from, as it reads them (``bench/train_clause_selector.py`` labels
    these).

    Raises:
        ConfigError: spaCy or its English model is not installed.
    """
    found = _candidates(turns, _names(turns), speakers_of(turns))
    return [(turn.id, clause) for turn, _, clause, _ in found.items]


def _extract(turns: Sequence[Turn], names: frozenset[str], speakers: dict[str, Speaker],
             embed: Embed | None = None, own: frozenset[str] | None = None) -> list[FactDraft]:
    """The facts of the turns whose ids are in ``own`` (default all of ``turns``); the others
    are read as the talk around them only, never parsed for candidates."""
    found = _candidates(turns, names, speakers, own)
    candidates, who, asked, said, memo = (found.items, found.who, found.asked, found.said,
                                          found.memo)
    position = {t.id: i for i, t in enumerate(turns)}
    vectors, cosines = _centrality([c[:3] for c in candidates], embed)
    probabilities = worth([c for _, _, c, _ in candidates], embed, vectors)
    chosen: dict[str, list[tuple[float, int]]] = {}
    named: dict[str, list[tuple[float, int]]] = {}  # self-introductions: kept beside the rest
    for index, (p, cosine) in enumerate(zip(probabilities, cosines, strict=True)):
        turn, _, clause, _ = candidates[index]
        if _introduction(clause, who[turn.id]):
            named.setdefault(turn.id, []).append((1.0, index))
        elif (score := salience(p, cosine)) >= FACT_THRESHOLD:
            chosen.setdefault(turn.id, []).append((score, index))
    facts: list[FactDraft] = []
    for turn in turns:
        best = sorted(chosen.get(turn.id, []), reverse=True)[:FACTS_PER_TURN] + named.get(
            turn.id, [])
        for _, index in sorted(best, key=lambda pair: pair[1]):
            p = probabilities[index]
            _, resolved, clause, n = candidates[index]
            clause = _resolved(clause, turns, position[turn.id], said, n, resolved.text, memo)
            day = next((m.date for m in resolved.mentions if m.date and re.sub(  # the clause's own
                r"(?i)^(?:on|in) ", "", m.replacement) in clause.text), None)  # ("... in 2020")
            frame = None if day is not None else _frame(resolved, clause, turn)
            if frame is not None:
                day = frame[0]
            text = _introduction(clause, who[turn.id]) or _rewrite(
                clause, who[turn.id], past=day is not None and day < turn.created_at.date())
            if frame is not None:  # the time first, as the speaker's "Last month I ..."
                text = f"{frame[1][:1].upper()}{frame[1][1:]} {text}"
            category = categorize(clause.text)
            question = asked.get((turn.id, resolved.text))
            facts.append(FactDraft(
                text=text, subject=speaker_name(turn), category=category,
                evidence=[turn.id, question] if question else [turn.id],
                confidence=round(min(0.5 + 0.45 * p, HEDGED_CONFIDENCE)
                                 if _HEDGE.search(clause.text) else 0.5 + 0.45 * p, 2),
                importance=score_importance(text, category, day is not None),
                occurred_at=day.isoformat() if day else None))
    return facts


_OWN_TIME = re.compile(
    r"(?i)\b(?:used to|never|ever|then|later|after|afterwards?|since|before|again|once|"
    r"already|still|always|when|while|until)\b")
"""Words by which a clause tells a time of its own against its sentence's date."""
_FRAME_BEFORE = re.compile(
    r"(?i)\b(?:since|until|till|by|for|from|after|before|between|through|during|than|of|"
    r"every|each|last|next)\s*$")
"""A word before a date that makes it part of a phrase of its own ("since 2020", "by May"):
such a date is not the time of the sentence's other clauses."""


def _frame(resolved: ResolvedText, clause: Clause, turn: Turn) -> tuple[date, str] | None:
    """The date of a past clause that names none, taken from the clause it is coordinated
    with, which names its sentence's one past date before it ("I cycled to the coast last
    week and broke a spoke on the way back": the second clause happened the same week; "Last
    month I sprained my wrist and had to quit climbing"), with the phrase to put first ("the
    week before 14 March 2024", "on Friday 8 March 2024", "in February 2024").

    ``None`` when the clause has a subject of its own ("... and then I moved to Berlin",
    "... and my sister was born there"), is not in the simple past, tells a time of its own
    against the date ("had bought", "used to", "never", "then", "after that") or comes before
    the date, or when the sentence has no such date or more than one."""
    dated = [m for m in resolved.mentions if m.date is not None]
    if (not clause.shared or clause.verb not in ("VBD", "VBN") or len(dated) != 1
            or dated[0].date >= turn.created_at.date()
            or _OWN_TIME.search(clause.text)
            or "had" in clause.tags and "VBN" in clause.tags.values()):
        return None
    mention = dated[0]
    at = resolved.text.find(mention.replacement)
    tail = " ".join(clause.text.split()[-3:])
    if (at < 0 or _FRAME_BEFORE.search(resolved.text[:at])
            or resolved.text.find(tail, at + len(mention.replacement)) < 0):
        return None
    phrase = mention.replacement[:1].lower() + mention.replacement[1:]
    if not re.match(r"(?:on|in|the|a|an|over)\b", phrase):
        phrase = f"{'on' if mention.precision == 'day' else 'in'} {phrase}"
    return mention.date, phrase


def _pointing_only(clause: Clause) -> bool:
    """Whether ``clause`` is no candidate only for want of words its pronoun stands for: the
    speaker's statement ("now I love it"), not a question, not to the listener."""
    return (clause.anaphora > 0 and clause.kind != "other" and not clause.question
            and not candidate(clause) and not _YOU_WORDS.intersection(words(clause.text)))


def _resolved(clause: Clause, turns: Sequence[Turn], index: int,
              said: Mapping[str, list[str]], number: int, sentence: str,
              memo: dict[str, Any] | None = None) -> Clause:
    """``clause`` of sentence ``number`` of ``turns[index]`` (``sentence``: its text as
    parsed) with its word pointing outside it replaced by what it stands for
    (:func:`.antecedents.resolve_references`), and a bare "go" given the activity just named
    (:func:`.antecedents.resolve_ellipsis`). Done for a kept clause, and before the choice
    for one that is no candidate as it stands: "now I love it" after "I used to hate
    cilantro but" (one content word) is read as "now I love cilantro", a claim the selector
    can weigh."""
    if not clause.anaphora and not GO_WORDS.intersection(words(clause.text)):
        return clause
    context = _context(turns, index, said, number, clause, sentence)
    text = resolve_ellipsis(resolve_references(clause.text, context, memo), context, memo)
    return replace(clause, text=text)


def _context(turns: Sequence[Turn], index: int, said: Mapping[str, list[str]],
             number: int, clause: Clause | None = None,
             sentence: str | None = None) -> list[Context]:
    """What was said before sentence ``number`` of ``turns[index]``, oldest first: the other
    speaker's turn right before it, then the turn's own earlier sentences, then the words of
    ``clause``'s sentence (``sentence``, else the parse's sentence, which may start at the
    "but") before it when an "and"/"but" joins them (a parallel context)."""
    turn = turns[index]
    before: list[Context] = []
    if index and speaker_name(previous := turns[index - 1]) != speaker_name(turn):
        before = [Context(text, own=False)
                  for text in said.get(previous.id) or split_sentences(spoken(previous.content))]
    before += [Context(text, own=True) for text in said[turn.id][:number]]
    whole = sentence or (clause.sentence if clause is not None else "")
    if clause is not None and clause.text and (at := whole.find(clause.text)) > 0:
        head = whole[:at].rstrip(" ,")
        if re.search(r"(?i)\b(?:and|but)(?:\s+(?:now|then|today|later|these days))?$", head):
            before.append(Context(head, own=True, parallel=True))
    return before


def speakers_of(turns: Sequence[Turn]) -> dict[str, Speaker]:
    """How to refer to each speaker of ``turns``: name, pronouns (the first turn with
    ``metadata["pronouns"]``) and household (the first "my husband", "my kids", ...; another
    speaker of the thread by name when introduced as the partner: "my partner Sam")."""
    pronouns: dict[str, str] = {}
    households: dict[str, str] = {}
    names = {speaker_name(t) for t in turns if t.role == Role.USER}
    for turn in turns:
        name = speaker_name(turn)
        if found := parse_pronouns(turn.metadata.get("pronouns")):
            pronouns.setdefault(name, found)
        if household := household_of(turn.content, names - {name}):
            households.setdefault(name, household)
    for name, partner in list(households.items()):
        if partner in names:  # "my partner Sam": Sam's "we" is Sam and the speaker too
            households.setdefault(partner, name)
    return {
        name: Speaker(name, pronouns.get(name), households.get(name))
        for name in dict.fromkeys(speaker_name(t) for t in turns)
    }


FAMILY_WINDOW = 8
"""Turns (of either speaker) for which a speaker's family, once named, stays who their "we" is
(:func:`turn_speakers`)."""


def turn_speakers(turns: Sequence[Turn], speakers: Mapping[str, Speaker] | None = None,
                  groups: Mapping[str, str] | None = None) -> dict[str, Speaker]:
    """Turn id -> how to refer to its speaker, with who "we" is in that turn.

    "we" is the group the turn itself names ("my teammates and I": ``groups``, turn id ->
    noun, from :func:`.parse.group_of`), else the speaker's household (:func:`speakers_of`)
    while their family is in the talk: named by them ("my kids") or asked after by the other
    speaker ("how are your kids?") within the last :data:`FAMILY_WINDOW` turns, or, for the
    whole thread, the other speaker a speaker introduced as their partner ("my partner Sam":
    Dana's "we" is "Dana and Sam", Sam's "Sam and Dana"). Otherwise no
    household: "we" of a team or of people at large ("we had a real battle against another
    team", "we should fight for better schools") is not read as the speaker's family.

    Args:
        turns: the turns, in order.
        speakers: from :func:`speakers_of` (computed when omitted).
        groups: turn id -> the group its text names.
    """
    speakers = speakers_of(turns) if speakers is None else speakers
    named: dict[str, int] = {}
    result: dict[str, Speaker] = {}
    for index, turn in enumerate(turns):
        name = speaker_name(turn)
        asked = index > 0 and speaker_name(turns[index - 1]) != name and family_named(
            turns[index - 1].content, "your")
        if asked or family_named(turn.content, "my|our|the"):
            named[name] = index
        recent = index - named.get(name, -FAMILY_WINDOW - 1) <= FAMILY_WINDOW
        group = (groups or {}).get(turn.id)
        if recent and not group and WE_WORDS.intersection(words(turn.content)):
            named[name] = index  # "we" of the family again: the family is still the topic
        known = speakers[name].household
        present = known is not None and known[:1].isupper()  # the partner in the room
        household = group or (known if recent or present else None)
        result[turn.id] = replace(speakers[name], household=household)
    return result


def _names(turns: Sequence[Turn]) -> frozenset[str]:
    """The speakers' names, whole and first names, lower-cased."""
    return frozenset(part.lower() for turn in turns if turn.speaker
                     for part in (turn.speaker, turn.speaker.split()[0]))


def extract_facts(turns: Sequence[Turn], embed: Embed | None = None,
                  context: Sequence[Turn] = ()) -> FactExtraction:
    """Facts from the clauses of the user turns in ``turns`` worth a fact, exact duplicates
    removed (see the module docstring).

    Args:
        turns: the turns, in order.
        embed: embeds clause texts with all-MiniLM-L6-v2 for the selector (default the
            process's shared local embedder, :func:`.select.shared_embedder`).
        context: the turns of the thread just before ``turns``, in order: read as the talk
            before (the question a short reply answers, a thing named, what "it" stands for;
            a fact may cite one of them after its own turn), never the source of a fact.

    Returns:
        A :class:`FactExtraction` with facts in turn order; a fact repeated verbatim (after
        lower-casing and whitespace collapse) is kept once, citing its first turn.

    Raises:
        ConfigError: spaCy or its English model is not installed.
    """
    read = [*context, *turns]
    names = _names(read)
    unique: dict[str, FactDraft] = {}
    for fact in _extract(read, names, speakers_of(read), embed,
                         frozenset(turn.id for turn in turns)):
        unique.setdefault(normalize_text(fact.text), fact)
    return FactExtraction(facts=list(unique.values()))
