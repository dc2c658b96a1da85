"""First-person speech rewritten in the third person, for facts and summaries.

:func:`to_third_person` rewrites what a speaker said about themself so that it stands alone:
"My husband and I want to buy our first home" said by Priya (pronouns "she") becomes
"Priya and her husband want to buy their first home". The rules, token by token (the rest
of the sentence is kept verbatim):

- The first reference to the speaker names them (I/me -> "Priya", my/mine -> "Priya's"); later
  references use their pronouns when known (:class:`Speaker`, from the turn's
  ``metadata["pronouns"]``, e.g. "she/her"), else singular "they"/"them"/"their"/"themself"
  ("Joanna recalls that when they gave their first talk, they were so anxious ..."; "I was"
  agrees as "they were"). "they"/"them" needs the speaker's previous mention to be a subject
  and no plural noun or pronoun between (the parse's tags decide); otherwise, and without
  tags, the name is repeated ("neighbours who are as keen on gardening as Joanna is",
  "Caroline's aunt gave Caroline"). A sentence that names the speaker already counts as the first
  reference ("Priya thinks I need" -> "Priya thinks she needs", as a model half-rewrites a
  fact).
- Verb agreement after a rewritten "I" ("I am" -> "is", "I love" -> "loves", "I was" stays),
  except in a compound subject ("my husband and I want" keeps "want"). With the sentence's
  part-of-speech tags (``tags``, from the parse) a present-tense verb (``VBP``/``VB``) takes
  its -s form and any other tag stays, so "we need" becomes "Priya needs" although "need"
  ends like a past form; without tags a word list and the -ed ending decide. A verb after an
  inverted auxiliary ("What can I say") and a past form ("roasted"; "hurt" beside a past
  verb) stay.
- "my <noun phrase> and I" becomes "<name> and <possessive> <noun phrase>" ("Priya and her
  husband"; "their" when the pronouns are unknown), and later we/us/our refer to that group.
- A clause coordinated with the sentence's own subject drops the repeated subject
  ("I'm 34 and I work as a nurse" -> "Priya is 34 and works as a nurse").
- we/us: the speaker's household when known ("Priya and her husband", :class:`Speaker`), else
  "Priya and family" when the sentence names the speaker's own family ("we took my kids
  camping"; not "we went camping with my kids"), else the speaker alone ("we went
  camping" -> "Priya went camping"; a later "we" takes their pronoun when known: "We think we
  need" -> "Priya thinks she needs"); once a group is named (or "X and I" was seen) later
  we/us/our become they/them/their.

:func:`address_listener` replaces "you"/"your" in a two-person conversation with the
listener's name, so an advisor's "it is the best return available to you" can be reported.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from .lexicon import BE as _BE
from .sentences import word_set, words

_TOKEN = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*|\s+|.", re.DOTALL)
SELF_WORDS = word_set("i i'm i've i'd i'll my me mine we we're we've we'd we'll our ours us")
"""Words by which a speaker refers to themself (lower-cased)."""
YOU_WORDS = word_set("you you're you've you'd you'll your yours yourself")
"""Words by which a speaker addresses the listener (lower-cased)."""
_FAMILY_WORDS = re.compile(
    r"\b(?:my|our)\s+(?:[\w-]+\s+)?(?:kids?|children|child|sons?|daughters?|husband|wife|"
    r"partner|family|fam|mom|dad|mother|father|parents|sisters?|brothers?|baby|grandma|grandpa|"
    r"fianc[eé]e?|boyfriend|girlfriend)\b", re.IGNORECASE)
"""The speaker's own family named in a sentence ("my kids", "our little family"): the "we"
it may mean ("save a family from a fire" names none)."""
_COLLECTIVE = re.compile(r"\b(?:together|both|each ?other|one another|all of us|(?:we|us) all|"
                         r"as a team|teammates|join(?:s|ed|ing)? forces)\b", re.IGNORECASE)
"""Words that make "we" more than the speaker: a reciprocal or collective predicate."""
_ASSEMBLE = re.compile(r"\bput(?:s|ting)?\s+together\b", re.IGNORECASE)
""""put together": to assemble ("we're putting together a show"), no collective ("we put up
the tent together" is one)."""
_PROPOSAL = re.compile(r"(?:[\w']+,?\s+){0,2}?we\s+(?:should|shall|ought\s+to)\s+(?!have\b)[a-z]",
                       re.IGNORECASE)
"""A clause opening with a proposal to the listener ("we should plan a hike soon", "maybe we
ought to try it"): its "we" takes them in. Not a regret ("we should have left earlier"), an
agreeing reply ("Yeah we should, I ...") nor "we could", which as often tells what the speaker
could do ("we could see the coast")."""
WE_WORDS = word_set("we we're we've we'll we'd us our")
"""Words by which a speaker speaks for a group they are in (lower-cased)."""
_HOUSEHOLD = re.compile(
    r"\bmy (husband|wife|partner|fianc[eé]e?|boyfriend|girlfriend|family|kids|children)\b",
    re.IGNORECASE,
)
_ADVERBS = word_set(
    """really just also always usually still never often sometimes actually totally
    definitely kinda finally even only recently honestly truly absolutely mostly already
    currently seriously personally literally generally rarely barely hardly certainly
    probably once now then too def sooo so no longer"""
)
"""Adverbs between "I" and its verb ("I really love", "I no longer live")."""
_FLOATING = word_set("all both each")
"""Floating quantifiers between a subject and its verb ("we all know")."""
_NEVER_VERBS = frozenset(("DT", "PDT", "IN", "CC", "JJR", "JJS", "PRP", "PRP$", "WDT", "UH"))
"""Tags of words that are never the verb to put in agreement (adverbs, ``RB*``, are skipped
before it; an adjective right after "I" is a verb the tagger misread: "I cherish")."""
_THIRD_SINGULAR = {
    "am": "is", "have": "has", "do": "does", "go": "goes", "haven't": "hasn't",
    "don't": "doesn't", "are": "is", "were": "was", "weren't": "wasn't", "aren't": "isn't",
    "gotta": "has to", "wanna": "wants to", "gonna": "is going to",
}
SAME_PAST = word_set("quit cut hit hurt let put set shut read cost spread bet burst cast")
"""Verbs whose past is their base form ("I quit"): past only beside another past verb or a
past date (:func:`.facts.extract_facts`), or when one of :data:`EVENT_PAST`."""
EVENT_PAST = word_set("quit hurt hit burst")
"""Of :data:`SAME_PAST`, the verbs whose present with "I" tells a habit ("I hit the gym every
day"): with no auxiliary and no word of a habit in the sentence they are past ("I quit smoking
and I feel great", "I hurt my knee")."""
_KEEP_VERB = word_set(
    """can could will would should might must may shall can't couldn't won't wouldn't
    shouldn't didn't wasn't was did had got went saw made took came felt found told said thought
    knew began brought bought caught taught fought built sent spent left kept slept met read led
    held heard lost meant paid sat stood understood won wore drove rode wrote spoke broke chose
    woke gave ate fell grew threw drew flew ran sang drank swam hung struck stuck dug shot lit
    hid quit cut hit hurt let put set shut became forgot rose sold been
    and or but as to in at for with the a an of on if than that who which when while myself
    too not also"""
)
_INVERTING = word_set("can could will would should shall may might must do does did")
"""Auxiliaries before "I" in an inverted clause ("What can I say"): the verb after "I" stays."""
PRONOUNS: dict[str, tuple[str, str, str, str, str]] = {
    "she": ("she", "her", "her", "hers", "herself"),
    "he": ("he", "him", "his", "his", "himself"),
}
"""Subject, object, possessive, possessive pronoun and reflexive forms per pronoun set."""


@dataclass(frozen=True, slots=True)
class Speaker:
    """Who a first-person sentence is about.

    Attributes:
        name: as written in the output ("Priya", "The user"; "the user" inside a sentence).
        pronoun: ``"she"`` or ``"he"`` when known (:func:`parse_pronouns`), else ``None``
            (singular "they", or the name again where "they" would be unclear).
        household: the partner or family the speaker means by "we" ("husband"), when known.
    """

    name: str
    pronoun: str | None = None
    household: str | None = None


def parse_pronouns(value: object) -> str | None:
    """``"she"`` / ``"he"`` from a pronouns field ("she/her", "He", "he/him"), else ``None``."""
    if not isinstance(value, str):
        return None
    first = value.strip().lower().split("/")[0].strip()
    return first if first in PRONOUNS else None


def household_of(text: str, present: Collection[str] = ()) -> str | None:
    """The partner or family noun in "my husband", "my kids", ... (lower-cased), if any; the
    name of one of the ``present`` speakers when the text introduces them so ("my partner Sam
    is joining today" -> ``"Sam"``)."""
    match = _HOUSEHOLD.search(text)
    if match is None:
        return None
    following = text[match.end():].split(maxsplit=1)
    name = following[0].strip(",.!?;:") if following else ""
    return name if name in present else match.group(1).lower()


def family_named(text: str, owner: str = "my|our") -> bool:
    """Whether ``text`` names the family of ``owner`` (a regex of possessives): the speaker's
    own by default ("my kids", "our little family"), the listener's with ``"your"``."""
    return bool(re.search(_FAMILY_WORDS.pattern.replace("my|our", owner), text, re.IGNORECASE))


def unnamed_group(clause: str, sentence: str, speaker: Speaker) -> bool:
    """Whether ``clause`` (of ``sentence``) says "we" of a group the rewrite cannot name: its
    sentence has a collective predicate ("we both have similar interests", "we were
    teammates", "we keep helping each other out"; not "putting together a show")
    or the clause opens with a proposal to the listener ("we should plan a hike soon"), and
    neither the speaker's household is known nor their family named. The speaker alone would
    misreport it ("Joanna both has ...", "Omar should plan a hike"); "and others" says
    nothing."""
    return (not speaker.household
            and bool(_COLLECTIVE.search(_ASSEMBLE.sub(" ", sentence)) or _PROPOSAL.match(clause))
            and not _FAMILY_WORDS.search(sentence)
            and bool(WE_WORDS.intersection(words(clause))))


def _s_form(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _next_word(tokens: list[str], index: int, step: int = 1) -> int | None:
    """Index of the next word token after ``index`` (before it when ``step`` is -1) when only
    whitespace lies between."""
    j = index + step
    while 0 <= j < len(tokens) and (not tokens[j] or tokens[j].isspace()):
        j += step
    return j if 0 <= j < len(tokens) and tokens[j][0].isalpha() else None


def _self_after(tokens: list[str], index: int) -> int | None:
    """Index of the "I" closing "my <one to three words> and I" from ``index`` (the "my"),
    else ``None``."""
    j, seen = _next_word(tokens, index), 0
    while j is not None and seen < 4:
        low = tokens[j].lower()
        if low == "and":
            k = _next_word(tokens, j)
            found = k is not None and tokens[k].lower() in ("i", "i've", "i'd", "i'll")
            return k if found and seen else None
        if low in SELF_WORDS or low in YOU_WORDS:
            return None
        j, seen = _next_word(tokens, j), seen + 1
    return None


def _phrase_end(tokens: list[str], index: int) -> int:
    """Index just past the words that follow ``index`` up to the next "and"."""
    end, j = index + 1, _next_word(tokens, index)
    while j is not None and tokens[j].lower() != "and":
        end, j = j + 1, _next_word(tokens, j)
    return end


def _agree(tokens: list[str], subject: int, tags: Mapping[str, str] | None = None) -> None:
    """Put the verb after a rewritten "I" (now a third-person singular) in agreement.

    ``tags`` (lower-cased word -> Penn tag) decides when it tags the word as a verb: ``VBP``/
    ``VB`` agree, other verb tags stay; otherwise :data:`_KEEP_VERB` and the -ed ending do."""
    j = _next_word(tokens, subject)
    while j is not None:
        low = tokens[j].lower()
        if low in ("kind", "sort"):
            k = _next_word(tokens, j)
            if k is not None and tokens[k].lower() == "of":
                j = _next_word(tokens, k)
                continue
        tagged = tags.get(low, "") if tags else ""
        if low in _ADVERBS or (low.endswith("ly") and len(low) > 4) \
                or tagged.startswith("RB") or low in _FLOATING:
            j = _next_word(tokens, j)
            continue
        break
    if j is None:
        return
    verb = tokens[j]
    low = verb.lower()
    tag = tags.get(low) if tags else None
    if tag in _NEVER_VERBS and low not in _THIRD_SINGULAR:
        return  # "we all", "I maybe": no verb follows the subject directly
    if tag is not None and not tag.startswith(("VB", "MD")):
        tag = None  # a verb the tagger read as a noun: the word list decides
    if low in _THIRD_SINGULAR:
        tokens[j] = _THIRD_SINGULAR[low]
    elif tag is not None and "'" not in low and not verb[0].isupper():
        past = low.endswith("ed") and not low.endswith("eed") or low in _KEEP_VERB and (
            low not in SAME_PAST or any(t == "VBD" for t in tags.values())
        )  # "roasted", "I swam" (tagged VBP), "when I hurt" beside a past verb
        if tag in ("VBP", "VB") and not past:
            tokens[j] = _s_form(low)
    elif low in _KEEP_VERB or low.endswith("ed") or "'" in low or verb[0].isupper():
        return
    else:
        tokens[j] = _s_form(low)


_PLURAL_BE = {"am": "are", "was": "were"}
"""A verb after "I" that changes for a plural subject ("I was" -> "they were")."""
_PLURAL_WORDS = word_set("they them people others everyone folks")


def _agree_plural(tokens: list[str], subject: int) -> None:
    """Put the verb after a rewritten "I" (now singular "they") in agreement: "am" -> "are",
    "was" -> "were"; every other form after "I" already fits "they"."""
    j = _next_word(tokens, subject)
    while j is not None and (tokens[j].lower() in _ADVERBS or tokens[j].lower() in _FLOATING):
        j = _next_word(tokens, j)
    if j is not None and tokens[j].lower() in _PLURAL_BE:
        tokens[j] = _PLURAL_BE[tokens[j].lower()]


def _clear_they(tokens: list[str], since: int, until: int,
                tags: Mapping[str, str] | None, ours: set[int]) -> bool:
    """Whether singular "they" for the speaker at ``until`` reads unambiguously: the words
    since the speaker's last mention (``since``; ``ours``: indices this rewrite wrote, the
    speaker's own "their" among them) hold no plural noun or plural pronoun that
    "they"/"them" could be taken for ("meeting neighbours who are as keen as they
    are"), judged by the parse's tags (``None``: never clear, the name is repeated). The
    mention before is the speaker as a subject: after "Caroline's aunt gave", "them" would read
    as other people."""
    if tags is None:
        return False
    return not any(tags.get(t.lower()) in ("NNS", "NNPS") or t.lower() in _PLURAL_WORDS
                   for k, t in enumerate(tokens[since + 1:until], since + 1) if k not in ours)


def _group(speaker: Speaker, sentence: str, name: str) -> str:
    """Who "we" is: the speaker and their household when known, else the speaker alone
    (never an unnamed "and others")."""
    forms = PRONOUNS.get(speaker.pronoun or "")
    kin = _FAMILY_WORDS.search(sentence)
    if kin and sentence[:kin.start()].split()[-1:] == ["with"]:
        return name  # "we went camping with my kids": the speaker went, the family with them
    if speaker.household:
        if speaker.household[:1].isupper():  # another speaker of the thread: "Dana and Sam"
            return f"{name} and {speaker.household}"
        if forms or not _HOUSEHOLD.search(f"my {speaker.household}"):
            return f"{name} and {forms[2] if forms else 'their'} {speaker.household}"
        return f"{name} and family"
    return f"{name} and family" if kin else name


_CONTRACTION_TAIL = {"i'm": "is", "i've": "has", "i'll": "will"}


def to_third_person(sentence: str, speaker: Speaker | str,
                    tags: Mapping[str, str] | None = None) -> str:
    """Rewrite a first-person ``sentence`` by ``speaker`` in the third person.

    See the module docstring for the rules. A plain string is taken as the speaker's name.
    ``tags`` maps the sentence's lower-cased words to their Penn part-of-speech tags
    (:attr:`.parse.Clause.tags`); when given, it decides verb agreement.
    """
    if isinstance(speaker, str):
        speaker = Speaker(speaker)
    name = speaker.name
    lower_name = name[0].lower() + name[1:] if name.startswith("The ") else name
    forms = PRONOUNS.get(speaker.pronoun or "")
    tokens = _TOKEN.findall(sentence)
    # the speaker was named already in this sentence ("Priya thinks I need" -> "she needs")
    named = re.compile(rf"\b{re.escape(name)}\b")
    mentioned = False
    subject_first = False  # the sentence opens with the speaker as subject
    group_named = False
    last = -1  # the token of the speaker's latest mention as a subject (-1: none yet)
    ours: set[int] = set()  # tokens written here
    for i, token in enumerate(tokens):
        low = token.lower()
        if low not in SELF_WORDS and low not in ("myself", "ourselves"):
            continue
        if token == "US":  # the country
            continue
        at_start = all(not t or t.isspace() or not t[0].isalnum() for t in tokens[:i])
        person = name if at_start else lower_name
        mentioned = mentioned or bool(named.search("".join(tokens[:i])))

        def cap(word: str, at_start: bool = at_start) -> str:
            return word[0].upper() + word[1:] if at_start else word

        if low in ("i", "i'm", "i've", "i'd", "i'll"):
            j = _next_word(tokens, i, -1)
            before = tokens[j].lower() if j is not None else None
            tail = ""
            if low != "i":
                tail = _CONTRACTION_TAIL.get(low, "")
                if not tail:
                    nxt = _next_word(tokens, i)
                    participle = nxt is not None and tokens[nxt].lower() in (
                        "been", "had", "done", "gone", "never", "already", "seen")
                    tail = "had" if participle else "would"
            if before == "and" and subject_first and not group_named:
                # "I'm 34 and I work": the second clause shares the subject
                if tail:
                    tokens[i] = tail
                else:
                    tokens[i] = ""
                    if i > 0 and tokens[i - 1].isspace():
                        tokens[i - 1] = ""
                    _agree(tokens, i, tags)
                continue
            compound = before == "and" and not at_start
            they = mentioned and not forms and not compound and last >= 0 and _clear_they(
                tokens, last, i, tags, ours)
            word = "they" if they else (forms[0] if forms else lower_name) if mentioned else person
            if compound or they:  # "my husband and I want": a plural subject
                group_named = group_named or compound
                tail = {"is": "are", "has": "have"}.get(tail, tail)
            tokens[i] = f"{word} {tail}" if tail else word
            ours.add(i)
            if at_start:
                subject_first = True
            mentioned, last = True, -1 if compound else i
            if low == "i" and they:
                _agree_plural(tokens, i)  # "... when I was 10" -> "when they were 10"
            elif low == "i" and not compound and before not in _INVERTING:
                _agree(tokens, i, tags)  # "can I say": the verb before the subject agrees
            continue
        pair = _self_after(tokens, i) if low == "my" and not mentioned else None
        if pair is not None:  # "my husband and I want" -> "Priya and her husband want"
            tokens[i] = f"{person} and {forms[2] if forms else 'their'}"
            tail = {"i've": " have", "i'd": " would", "i'll": " will"}.get(tokens[pair].lower(), "")
            for k in range(_phrase_end(tokens, i), pair + 1):
                tokens[k] = ""
            tokens[pair] = tail
            group_named = mentioned = True
            subject_first = subject_first or at_start
            continue
        if low in ("me", "my", "mine"):  # named first, then a pronoun (or "their")
            k = ("me", "my", "mine").index(low)
            after = _next_word(tokens, i, -1)
            them = "them" if last >= 0 and _clear_they(tokens, last, i, tags, ours) and not (
                after is not None and tokens[after].lower() in _BE) else lower_name
            ours.add(i)  # "can be me": the name ("can be Caroline"), never "be them"
            later = forms[k + 1] if forms else (them, "their", "theirs")[k]
            first = person if low == "me" else f"{person}'s"
            tokens[i] = (cap(later) if low == "my" else later) if mentioned else first
            mentioned = True
            continue
        if low in ("myself", "ourselves"):
            # "we" read as the speaker alone: "Tim has to push himself"
            tokens[i] = ("themselves" if low == "ourselves" and (group_named or not mentioned)
                         else forms[4] if forms else "themself")
            continue
        if low in ("our", "ours"):
            if group_named:
                tokens[i] = cap("their" if low == "our" else "theirs")
            elif mentioned:
                tokens[i] = cap(forms[2] if forms else "their") if low == "our" else (
                    forms[3] if forms else "theirs")
            else:
                tokens[i] = f"{person}'s"
            mentioned = True
            continue
        # we / us and their contractions: a group, named once
        base, _, contraction = low.partition("'")
        alone = False
        if group_named:
            word = cap("they" if base == "we" else "them")
        else:
            word = _group(speaker, sentence, person)
            alone = word == person  # "we" read as the speaker: a singular subject
            if alone and mentioned and forms:  # named already: "... thinks she needs"
                word = cap(forms[0] if base == "we" else forms[1])
            group_named = not alone
            mentioned = True
        tail = {"re": " are", "ve": " have", "ll": " will", "d": " would"}.get(contraction, "")
        if alone:
            tail = {" are": " is", " have": " has"}.get(tail, tail)
        tokens[i] = word + tail
        if alone and base == "we" and not tail:
            _agree(tokens, i, tags)
    return "".join(tokens)


_YOU_FORMS = {
    "you're": "{} is", "you've": "{} has", "you'll": "{} will", "you'd": "{} would",
    "you": "{}", "your": "{}'s", "yours": "{}'s", "yourself": "{}",
}
_YOU_ARE = re.compile(r"\byou (are|have|were)\b", re.IGNORECASE)


def address_listener(sentence: str, listener: str) -> str:
    """Replace the second person in ``sentence`` with ``listener``'s name.

    "That is the best return available to you" -> "... available to Priya"; "you are" /
    "you have" / "you were" agree with the name ("Priya is").
    """
    sentence = _YOU_ARE.sub(
        lambda m: "you " + {"are": "is", "have": "has", "were": "was"}[m.group(1).lower()],
        sentence)
    tokens = _TOKEN.findall(sentence)
    forms = [_YOU_FORMS.get(t.lower().replace("\u2019", "'")) for t in tokens]
    return "".join(f.format(listener) if f else t for t, f in zip(tokens, forms, strict=True))
