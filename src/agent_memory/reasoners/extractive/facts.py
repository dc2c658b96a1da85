"""Self-disclosure fact extraction with third-person rewriting.

A fact is one sentence in which the speaker tells something about themself, their family,
work, plans or likes ("I", "I'm", "my", "we", "our", "me", ...), rewritten to stand alone:
"I went to a LGBTQ support group yesterday" said by Caroline on 8 May 2023 becomes
"Caroline went to a LGBTQ support group on 7 May 2023."

Left out: questions, greetings, bare reactions ("I'm so happy for you!"), sentences aimed at the
listener more than at the speaker, and sentences with fewer than four words or two content
terms. Turns from tools and the system are ignored.

Rewriting (the rest of the sentence is kept verbatim): I/me -> the speaker's name, with verb
agreement on the next verb ("I am" -> "is", "I have" -> "has", "I love" -> "loves", "I was"
stays), I'm/I've/I'd/I'll -> "is"/"has"/"would" or "had"/"will", my/mine -> "Name's",
myself -> "themself"; we/us -> "Name and family" when the sentence mentions family, else
"Name and others" (later: they/them), our/ours -> "Name's" (later: their/theirs). Always naming
the speaker for I/me/my avoids pronouns that could point at someone else in the sentence.
Relative dates are resolved first (:mod:`.dates`). Subjectless openings ("Gonna continue my
edu") get the speaker as subject ("Caroline is going to continue Caroline's edu").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...models import Role, Turn, normalize_text
from ..base import FactDraft, FactExtraction
from .dates import resolve_dates
from .sentences import content_terms, entities, split_sentences, word_set, words

_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|\s+|.", re.DOTALL)
_INTERJECTION = re.compile(
    r"^(?:(?:yeah|yes|yep|yup|nope|yay|whoa|oh|wow|well|so|haha+|hah|lol|omg|hey|aw+|um+|hmm+|"
    r"honestly|"
    r"actually|ah+|ok|okay|sure|absolutely|totally|true|definitely|nah|man|gosh|ugh|anyway|"
    r"anyways|btw|by the way|also|and|but|plus|oh man|oh no|ha)\b[\s,!.\u2026-]*)+",
    re.IGNORECASE,
)
_SUBJECTLESS = re.compile(
    r"^(?:(?P<lead>gonna|going to|planning (?:to|on)|thinking (?:of|about)|hoping to|"
    r"trying to|looking forward to|heading|off to|still \w+ing)"
    r"|(?P<just>just \w+ed|just got|just went|just finished)"
    r"|(?P<been>been))\b",
    re.IGNORECASE,
)
_REACTION = re.compile(
    r"^(?:i|we)\s+(?:(?:really|totally|just|so|completely)\s+)?(?:hope you|wish you|bet|"
    r"agree|know what you|know how you|understand|hear you|can't wait to (?:see|hear)|"
    r"appreciate (?:it|that|you|your)|(?:am|'m) (?:so |really |very )?"
    r"(?:glad|happy|sorry|proud|excited|thrilled|thankful|grateful) (?:for|of|to hear|you|that you))",
    re.IGNORECASE,
)
_SELF_WORDS = word_set(
    "i i'm i've i'd i'll my me mine we we're we've we'd we'll our ours us"
)
_YOU_WORDS = word_set("you you're you've you'd you'll your yours yourself")
_FAMILY_WORDS = re.compile(
    r"\b(?:kids?|children|child|son|daughter|husband|wife|partner|family|mom|dad|mother|"
    r"father|parents|sister|brother|baby|grandma|grandpa|fiance|fiancee|boyfriend|girlfriend)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:maybe|might|perhaps|probably|possibly|kinda|sort of|kind of|i think|i guess|"
    r"not sure|i feel like|hopefully)\b",
    re.IGNORECASE,
)
_VAGUE_START = re.compile(r"^(?:it|that|this|they|he|she|there)\b", re.IGNORECASE)
_LIFE_EVENT = re.compile(
    r"\b(?:married|marry|engaged|wedding|divorce\w*|pregnan\w*|baby|born|adopt\w*|passed away|"
    r"died|funeral|moved|moving|new job|promot\w*|graduat\w*|diagnos\w*|surgery|retir\w*|"
    r"transition\w*|hired|fired|quit|accident|bought a (?:house|home|car)|lost my|"
    r"started (?:a|my)|opened (?:a|my)|launched)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
_ADVERBS = word_set(
    """really just also always usually still never often sometimes actually totally
    definitely kinda finally even only recently honestly truly absolutely mostly already
    currently seriously personally literally generally rarely barely hardly certainly
    probably once now then too def sooo so"""
)
_THIRD_SINGULAR = {
    "am": "is", "have": "has", "do": "does", "go": "goes", "haven't": "hasn't",
    "don't": "doesn't", "are": "is", "were": "was", "weren't": "wasn't", "aren't": "isn't",
}
_KEEP_VERB = word_set(
    """can could will would should might must may shall can't couldn't won't wouldn't
    shouldn't didn't wasn't was did had got went saw made took came felt found told said thought
    knew began brought bought caught taught fought built sent spent left kept slept met read led
    held heard lost meant paid sat stood understood won wore drove rode wrote spoke broke chose
    woke gave ate fell grew threw drew flew ran sang drank swam hung struck stuck dug shot lit
    hid quit cut hit hurt let put set shut became forgot rose sold been gotta wanna gonna
    and or but as to in at for with the a an of on if than that who which when while myself
    too not also"""
)
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
    "plan": ("plan*", "gonna", "going to", "will", "i'll", "we'll", "want to", "wanna",
             "hope to", "hoping", "thinking of", "goal", "dream", "future", "someday", "next",
             "tomorrow", "soon", "looking forward", "intend*", "decided"),
    "location": ("live", "lived", "living", "moved", "moving", "city", "country", "hometown",
                 "house", "apartment", "neighborhood", "neighbourhood", "from", "trip",
                 "travel*", "visit*", "abroad"),
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
_EXACT: dict[str, str] = {}
_PREFIXES: list[tuple[str, str]] = []
_PHRASES: dict[str, str] = {}
for _category, _keywords in CATEGORY_KEYWORDS.items():
    for _keyword in _keywords:
        if " " in _keyword:
            _PHRASES[_keyword] = _category
        elif _keyword.endswith("*"):
            _PREFIXES.append((_keyword[:-1], _category))
        else:
            _EXACT.setdefault(_keyword, _category)
_PREFIX_TUPLE = tuple(p for p, _ in _PREFIXES)
_PHRASE_PATTERN = re.compile(r"\b(?:" + "|".join(map(re.escape, _PHRASES)) + r")\b")
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


def categorize(text: str) -> str:
    """Category of a fact from :data:`CATEGORY_KEYWORDS` (most hits; ties broken by
    :data:`CATEGORY_PRIORITY`), ``"other"`` when no keyword matches."""
    hits: dict[str, int] = {}
    for word in words(text):
        category = _EXACT.get(word)
        if category is None and word.startswith(_PREFIX_TUPLE):
            category = next(c for p, c in _PREFIXES if word.startswith(p))
        if category is not None:
            hits[category] = hits.get(category, 0) + 1
    for match in _PHRASE_PATTERN.finditer(text.lower()):
        category = _PHRASES[match.group(0)]
        hits[category] = hits.get(category, 0) + 1
    if not hits:
        return "other"
    return max(CATEGORY_PRIORITY, key=lambda c: (hits.get(c, 0), -CATEGORY_PRIORITY.index(c)))


def _s_form(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _next_word(tokens: list[str], index: int) -> int | None:
    """Index of the next word token after ``index`` when only whitespace lies between."""
    j = index + 1
    while j < len(tokens) and tokens[j].isspace():
        j += 1
    if j < len(tokens) and tokens[j][0].isalpha():
        return j
    return None


def _agree(tokens: list[str], subject: int) -> None:
    """Put the verb after a rewritten "I" (now a third-person singular name) in agreement."""
    j = _next_word(tokens, subject)
    while j is not None:
        low = tokens[j].lower()
        if low in ("kind", "sort"):
            k = _next_word(tokens, j)
            if k is not None and tokens[k].lower() == "of":
                j = _next_word(tokens, k)
                continue
        if low in _ADVERBS or (low.endswith("ly") and len(low) > 4):
            j = _next_word(tokens, j)
            continue
        break
    if j is None:
        return
    verb = tokens[j]
    low = verb.lower()
    if low in _THIRD_SINGULAR:
        tokens[j] = _THIRD_SINGULAR[low]
    elif low in _KEEP_VERB or low.endswith("ed") or "'" in low or verb[0].isupper():
        return
    else:
        tokens[j] = _s_form(low)


def to_third_person(sentence: str, name: str) -> str:
    """Rewrite a first-person ``sentence`` about ``name`` in the third person.

    See the module docstring for the rules. ``name`` is used as written ("Caroline",
    "The user"; "the user" inside a sentence).
    """
    lower_name = name[0].lower() + name[1:] if name.startswith("The ") else name
    group = f"{name} and family" if _FAMILY_WORDS.search(sentence) else f"{name} and others"
    lower_group = f"{lower_name}{group[len(name):]}"
    tokens = _TOKEN.findall(sentence)
    group_named = False
    for i, token in enumerate(tokens):
        low = token.lower()
        if low not in _SELF_WORDS and low not in ("myself", "ourselves"):
            continue
        if token == "US":  # the country
            continue
        at_start = all(t.isspace() or not t[0].isalnum() for t in tokens[:i])
        person = name if at_start else lower_name
        if low in ("i", "me"):
            tokens[i] = person
            if low == "i":
                _agree(tokens, i)
            continue
        if low in ("i'm", "i've", "i'd", "i'll"):
            tail = {"i'm": "is", "i've": "has", "i'll": "will"}.get(low)
            if tail is None:
                nxt = _next_word(tokens, i)
                participle = nxt is not None and tokens[nxt].lower() in (
                    "been", "had", "done", "gone", "never", "already", "seen")
                tail = "had" if participle else "would"
            tokens[i] = f"{person} {tail}"
            continue
        if low in ("my", "mine"):
            tokens[i] = f"{person}'s"
            continue
        if low == "myself":
            tokens[i] = "themself"
            continue
        if low == "ourselves":
            tokens[i] = "themselves"
            continue
        if low in ("our", "ours"):
            tokens[i] = f"{person}'s" if not group_named else ("their" if low == "our" else "theirs")
            if at_start and group_named:
                tokens[i] = tokens[i].capitalize()
            continue
        # we / us and their contractions: a group, named once
        base, _, contraction = low.partition("'")
        if group_named:
            word = "they" if base == "we" else "them"
            word = word.capitalize() if at_start else word
        else:
            word = group if at_start else lower_group
            group_named = True
        tail = {"re": " are", "ve": " have", "ll": " will", "d": " would"}.get(contraction, "")
        tokens[i] = word + tail
    return "".join(tokens)


def _clean(sentence: str, names: frozenset[str]) -> str:
    """Strip leading interjections and vocatives ("Yeah, Mel, I ...") and normalise quotes."""
    text = sentence.replace("\u2019", "'").replace("\u2018", "'").strip()
    for _ in range(3):
        before = text
        text = _INTERJECTION.sub("", text).lstrip()
        head, sep, rest = text.partition(",")
        vocative = head.strip().lower()
        if sep and len(vocative) > 1 and any(n.startswith(vocative) for n in names):
            text = rest.lstrip()
        if text == before:
            break
    if text:
        text = text[0].upper() + text[1:]
    return text


def _is_disclosure(text: str) -> bool:
    """True when ``text`` is a self-disclosing statement worth a fact (see module docstring)."""
    if text.endswith("?") or _REACTION.search(text):
        return False
    tokens = words(text)
    if len(tokens) < 4:
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
    score = 4
    if _LIFE_EVENT.search(text):
        score += 3
    if category in _HIGH_CATEGORIES:
        score += 1
    if dated:
        score += 1
    if _NUMBER.search(text):
        score += 1
    if entities(text):
        score += 1
    if _HEDGE.search(text):
        score -= 1
    if len(words(text)) < 7:
        score -= 1
    return max(1, min(10, score))


def score_confidence(original: str, role: Role, dated: bool) -> float:
    """Confidence 0-1 that the rewritten sentence is a true fact about the speaker.

    Start at 0.7; +0.1 when the sentence opens with I/I'm/My (a direct self-disclosure);
    +0.05 when dated; -0.15 when hedged; -0.1 when only "we/our/us" refer to the speaker;
    -0.1 when it opens with a vague pronoun (it, that, they, ...); -0.1 for assistant turns.
    Clamped to [0.3, 0.95].
    """
    tokens = words(original)
    score = 0.7
    if tokens and tokens[0] in ("i", "i'm", "i've", "i'd", "i'll", "my"):
        score += 0.1
    if dated:
        score += 0.05
    if _HEDGE.search(original):
        score -= 0.15
    if not any(t in ("i", "i'm", "i've", "i'd", "i'll", "my", "me", "mine") for t in tokens):
        score -= 0.1
    if _VAGUE_START.search(original):
        score -= 0.1
    if role == Role.ASSISTANT:
        score -= 0.1
    return round(max(0.3, min(0.95, score)), 2)


def _add_subject(text: str, name: str) -> str:
    """Give a subjectless opening the speaker as subject ("Gonna try" -> "Name is going to try",
    "Just got back" -> "Name just got back", "Been busy" -> "Name has been busy")."""
    match = _SUBJECTLESS.match(text)
    if not match:
        return text
    opening = match.group(0).lower()
    if match.group("lead"):
        opening = "going to" if opening == "gonna" else opening
        return f"{name} is {opening}{text[match.end():]}"
    if match.group("just"):
        return f"{name} {opening}{text[match.end():]}"
    return f"{name} has {opening}{text[match.end():]}"


def _finish(text: str) -> str:
    text = text.rstrip().rstrip("!.\u2026 ").rstrip()
    return f"{text}." if text else text


def facts_from_turn(turn: Turn, names: frozenset[str] = frozenset()) -> list[FactDraft]:
    """The facts disclosed in one turn (possibly none).

    Args:
        turn: a user or assistant turn; tool and system turns give no facts.
        names: lower-cased names of the people in the conversation (vocatives are stripped).

    Returns:
        One :class:`FactDraft` per self-disclosing sentence, in sentence order.
    """
    if turn.role not in (Role.USER, Role.ASSISTANT):
        return []
    name = speaker_name(turn)
    facts: list[FactDraft] = []
    for raw in split_sentences(turn.content):
        sentence = _clean(raw, names)
        if not sentence or not _is_disclosure(sentence):
            continue
        resolved = resolve_dates(sentence, turn.created_at)
        text = resolved.text
        text = _add_subject(text, name)
        text = _finish(to_third_person(text, name))
        dated = resolved.date is not None
        category = categorize(sentence)
        facts.append(
            FactDraft(
                text=text,
                subject=name,
                category=category,
                confidence=score_confidence(sentence, turn.role, dated),
                importance=score_importance(text, category, dated),
                evidence=[turn.id],
                occurred_at=resolved.date.isoformat() if resolved.date else None,
            )
        )
    return facts


def extract_facts(turns: Sequence[Turn]) -> FactExtraction:
    """Facts from self-disclosing sentences of ``turns``, exact duplicates removed.

    Returns:
        A :class:`FactExtraction` with facts in turn order; a fact repeated verbatim (after
        lower-casing and whitespace collapse) is kept once, citing its first turn.
    """
    names = frozenset(
        part.lower()
        for turn in turns if turn.speaker
        for part in (turn.speaker, turn.speaker.split()[0])
    )
    seen: set[str] = set()
    facts: list[FactDraft] = []
    for turn in turns:
        for fact in facts_from_turn(turn, names):
            key = normalize_text(fact.text)
            if key not in seen:
                seen.add(key)
                facts.append(fact)
    return FactExtraction(facts=facts)
