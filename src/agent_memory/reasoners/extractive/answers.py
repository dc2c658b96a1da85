"""Short answers: the speaker's claim that a question put to them and their reply make together.

"How long have you been teaching?" / "Since I was 25 or so." holds a fact that neither turn
says alone. When a user turn opens with a fragment (no clause of its own the speaker is the
subject of) right after a question to them, :func:`answered_sentences` writes the claim in the
first person: the question turned into a statement (Huddleston & Pullum, *The Cambridge Grammar
of the English Language* (2002), ch. 10: subject-auxiliary inversion undone, the
interrogative phrase replaced by the answer). The sentence then goes through clause reading and
the learned decision like any sentence the speaker said; a fact from it cites the answer's turn
and then the question's (its words are in both):

- a question of time, place, length or frequency ("How long have you been ...?", "Where are you
  moving to?", "How often do you go running?"): the statement with the answer after it, "I have
  been teaching since I was 25 or so";
- a question of the object ("What are you reading these days?", "What kind of music do you
  play?"): the answer in the object's place, "I am reading a mystery novel these days";
- "what is your <noun>" ("What's your dog's name?"): "My dog's name is Max";
- a yes-no question answered yes ("Do you have any pets?" / "Yup, I do"): the statement,
  without the words only a question takes ("any", "ever"): "I have pets".

Left alone: a question the reply answers in a full sentence of its own (the speaker's own
words are read), "no" answers and replies that do not answer ("Not sure yet", "No idea"),
questions whose subject is not "you", "why" and manner questions ("How was the trip?"),
requests ("Could you share ...?", "Would you like ...?"), questions with the asker's own words
("How long have you known my brother?": "my" cannot become the answerer's), questions that call
out another person ("Gina, do you ...?" answered by Maria).

A question with "did" is read as one with "do", the verb written in its simple past
(LemmInflect, ``getInflection(lemma, "VBD")``): "When did you start painting?" / "In 2019."
gives "I started painting in 2019"; "Did you finish the race?" / "Yes!" gives "I finished the
race".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from ...models import Role, Turn
from .lexicon import BE, NAME_LABELS, WH_TAGS
from .parse import clauses, parse
from .person import SELF_WORDS
from .sentences import content_terms, word_set, words

_ASKED_ADVERBS = word_set("when where")
"""Interrogative adverbs whose answer is a phrase of time or place, said after the statement."""
_ASKED_DEGREE = word_set("long often many much far old")
"""Words after "how" that ask for an amount ("how long", "how often"), not a manner."""
_MOTION = word_set("go move travel fly head come drive relocate return emigrate")
"""Verbs of going whose "where" is answered by a place gone to ("to Lisbon"), not one in which
something happens ("in Leeds")."""
_PLURAL_YOU = word_set("all guys both two folks")
"""Words after "you" that make it the listener's group ("you all", "you guys")."""
_PLACE_ADVERBS = word_set("home downtown abroad overseas upstate uptown away here there "
                          "nearby locally")
"""Adverbs of place, which take no preposition ("Home.", "Downtown."): a capitalised reply
alone can be parsed as a name."""
_NEGATIVE = word_set("not n't never")
_QUESTION_ONLY = word_set("any ever")
"""Words a question takes that its statement does not ("Do you have any pets?")."""
_DO = word_set("do does")
_ASKER_WORDS = SELF_WORDS | word_set("myself ourselves")
"""The asker's own words in a question: the statement cannot take them over."""
_UNSURE = word_set("no not n't never nothing none nah nope dunno unsure idk")
"""Words of a reply that does not answer ("Not sure yet", "No idea", "Nothing yet")."""
_YES = re.compile(r"(?i)^(?:yes|yeah|yep|yup|sure|definitely|absolutely|of course)\b[\s,!.-]*")
_ELLIPSIS = re.compile(r"(?i)^(?:i|we)\s+(?:do|have|am|'m|will|can|sure do|sure am)\s*[!.]*$")
"""The reply "I do" / "I have": the statement is the question's."""
_FIRST_PERSON = {"you": "I", "your": "my", "yours": "mine", "yourself": "myself"}
MAX_ANSWER_WORDS = 12
"""A longer reply is read as a statement of its own, not a short answer."""


def _asked(sentences: Sequence[str]) -> str | None:
    """The last sentence of a turn when it is a question to the listener."""
    last = sentences[-1].strip() if sentences else ""
    return last if last.endswith("?") and {"you", "your"} & set(words(last)) else None


def _reply(sentences: Sequence[str], names: frozenset[str]) -> tuple[int, str] | None:
    """The number and text of a turn's first sentence that is more than a name or a cry
    ("Melanie!", "Wow!")."""
    for n, sentence in enumerate(sentences):
        terms = [w for w in words(sentence) if w not in names]
        if terms and content_terms(" ".join(terms)) or _YES.match(sentence):
            return n, sentence.strip()
    return None


def _fragment(doc: Any) -> bool:
    """The reply is a phrase with no verb of its own ("A mystery novel", "About $350,000",
    "Portland, next month") or a subordinate clause alone ("Since I was 25 or so"); not a
    command ("Love the vase!") nor a claim in its own words ("Guitar's mostly my thing")."""
    root = next(iter(doc.sents)).root
    if len([t for t in doc if not t.is_punct]) == 1 and root.pos_ == "PROPN" and (
            doc.text.rstrip().endswith("!")):
        return False  # a name called out ("Mell!"), not an answer
    subordinate = any(c.dep_ == "mark" for c in root.children)
    if root.pos_ in ("VERB", "AUX") and not subordinate:
        return False
    found = clauses([doc])[0]
    return subordinate or not any(c.kind in ("self", "own", "group") for c in found) and not (
        SELF_WORDS & set(words(doc.text)))


_AGREEING = {"are": "am", "'re": "'m", "were": "was"}
"""A form of "be" after "you" and the form it takes after "I"."""


def _past(verb: Any) -> str:
    """The simple past of a verb in its base form ("start" -> "started", "go" -> "went"); the
    word itself when LemmInflect knows no past form of it."""
    from lemminflect import getInflection  # imported on use: it loads spaCy's extensions

    forms = getInflection(verb.lower_, tag="VBD")
    return forms[0] if forms else verb.text


def _written(tokens: Sequence[Any], verb: Any | None = None, past: Any | None = None) -> str:
    """The question's tokens as a statement's words: "you" written "I", ``verb`` (the moved
    auxiliary or "be") agreeing with "I", ``past`` (the verb of a "did" question) in its simple
    past, a sentence-opening capital lowered; one space between words, none before a
    contraction or a mark ("I'm", "Tokyo, next month")."""
    out = ""
    for token in tokens:
        word = _FIRST_PERSON.get(token.lower_) or (
            _AGREEING.get(token.lower_, token.text) if token is verb
            else _past(token) if past is not None and token.i == past.i else token.text)
        if token.i == token.sent.start and token.tag_ not in ("NNP", "NNPS") and word != "I":
            word = word.lower()
        attached = word[:1] in "',.;:!?%" or word.lower() == "n't"
        out += word if not out or attached else f" {word}"
    return out


def _answer_text(doc: Any) -> str:
    """The reply's words without the closing mark."""
    return doc.text.strip().rstrip("!.?\u2026 ").strip()


def _cased(made: str | None, answer: str) -> str | None:
    """``made`` with the answer's first word lower-cased unless "I" or a name, as the parse
    reads it inside the statement ("I am moving to Portland", "I play jazz")."""
    at = made.find(answer) if made and answer else -1
    if at <= 0:
        return made
    (doc,) = parse([made])
    first = next((t for t in doc if t.idx >= at), None)
    if first is None or first.text == "I" or first.pos_ == "PROPN" or first.tag_ in (
            "NNP", "NNPS") or first.ent_type_ in NAME_LABELS:
        return made
    return made[:at] + made[at].lower() + made[at + 1:]


def _statement(question: Any, reply: Any, yes: bool) -> str | None:
    """:func:`statement` before the answer's capital is settled."""
    sentence = next(iter(question.sents)) if hasattr(question, "sents") else question
    if _ASKER_WORDS & {t.lower_ for t in sentence}:
        return None  # "How long have you known my brother?": "my" is the asker's
    if not yes and _UNSURE & {t.lower_ for t in reply}:
        return None  # "Not sure yet", "No idea": no answer
    root = sentence.root
    subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if root.pos_ not in ("VERB", "AUX") or subject is None:
        return None
    follower = subject.doc[subject.i + 1] if subject.i + 1 < len(subject.doc) else None
    if follower is not None and follower.lower_ in _PLURAL_YOU:
        return None  # "What did you all play?": the listener's group, not the listener
    aux = [c for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < subject.i]
    inverted = aux[0] if aux else root if root.i < subject.i else None
    if _NEGATIVE & {t.lower_ for t in sentence}:
        return None  # "Didn't you adopt a cat?": a "yes" may agree either way
    if inverted is None or inverted.tag_ == "MD":
        return None  # not inverted ("You moved?"); "Could you share ...?", "Would you like
        # ...?": a request, not a question of fact
    past = root if inverted.lower_ == "did" and root.tag_ == "VB" else None
    if inverted.lower_ == "did" and past is None:
        return None  # "Did you?": no verb to put in the past
    wh = next((t for t in sentence if t.tag_ in WH_TAGS and t.i < inverted.i), None)
    phrase = wh
    while phrase is not None and phrase.head != root and phrase.head != phrase:
        phrase = phrase.head
    asked = {t.i for t in phrase.subtree} if phrase is not None else set()
    opening = phrase.left_edge.i if phrase is not None else inverted.i
    moved = [] if inverted is root or inverted.lower_ in _DO or past is not None else [inverted]
    rest = [t for t in sentence if t.i >= opening and t.i not in asked and t != subject
            and t not in aux[:1] and not (t.is_punct and t.i == sentence.end - 1)]
    if inverted is root:
        rest = [t for t in rest if t != root]
        moved = [root]
    lead = [subject, *moved]
    if phrase is None:  # a yes-no question: only a "yes" gives a claim
        if not yes or subject.lower_ != "you":
            return None
        return _written([*lead, *(t for t in rest if t.lower_ not in _QUESTION_ONLY)],
                        inverted, past)
    answer = _answer_text(reply)
    if not answer:
        return None
    if root.lower_ in BE and wh is not None and subject.lower_ != "you" and (
            phrase.dep_ == "attr" and wh.lower_ in ("what", "who")
            or phrase.dep_ == "advmod" and wh.lower_ in _ASKED_ADVERBS):
        if not any(t.lower_ == "your" for t in subject.subtree):
            return None  # "What's the plan?": not about the listener
        noun = _written(list(subject.subtree))  # "When is your birthday?": "My birthday is"
        return f"{noun[:1].upper()}{noun[1:]} is {answer}"
    if subject.lower_ != "you" or wh is None:
        return None
    if phrase.dep_ in ("advmod", "npadvmod") and (
            wh.lower_ in _ASKED_ADVERBS or wh.lower_ == "how" and any(
                t.lower_ in _ASKED_DEGREE for t in phrase.subtree)):
        said = _written([*lead, *rest], inverted, past)
        if wh.lower_ == "where":
            word = _place_word(root, rest, reply)
            return None if word is None else f"{said} {word}{answer}"
        if wh.lower_ == "when" and re.fullmatch(r"(?:19|20)\d\d", answer):
            return f"{said} in {answer}"  # "When did you move?" / "2015." -> "in 2015"
        return f"{said} {answer}"
    amount = next((t for t in phrase.subtree if t.lower_ in ("many", "much")), None)
    if phrase.dep_ == "dobj" and wh.lower_ == "how" and amount is not None:
        bare = all(t.tag_ == "CD" or t.is_punct or t.pos_ == "ADV" for t in reply)
        counted = [t for t in phrase.subtree if t.i > amount.i] if bare else []  # "Three":
        after = [t for t in rest if t.i > root.i]  # "three kids"; "$28,000 so far" says it
        parts = [_written([*lead, *(t for t in rest if t.i <= root.i)], inverted, past),
                 answer,
                 _written(counted), _written(after)]
        return " ".join(part for part in parts if part)
    if phrase.dep_ in ("dobj", "attr", "pobj") and (wh.lower_ == "what" or wh.dep_ == "det"):
        before = [t for t in rest if t.i <= root.i]
        after = [t for t in rest if t.i > root.i]
        return " ".join(part for part in (_written([*lead, *before], inverted, past), answer,
                                          _written(after)) if part)
    return None


def _place_word(verb: Any, rest: Sequence[Any], reply: Any) -> str | None:
    """The preposition a bare place answering "where" needs after the statement: "to " after
    a verb of going ("Where did you go?" / "Lisbon." -> "I went to Lisbon"), "at " before an
    organisation ("Where do you work?" / "Google." -> "I work at Google"), "in " otherwise
    ("Where do you live?" / "Leeds." -> "I live in Leeds", "Where did you grow up?"); none
    when the question already ends on one ("Where are you moving to?") or the answer opens
    with one ("In Leeds", "At uni") or is an adverb of place ("Home", "Back home"). ``None``
    when words follow the verb and the answer is bare ("Where did you go to school?" /
    "Leeds.", "Where did you take your kids?"): its preposition is not known."""
    after = [t for t in rest if t.i > verb.i and not t.is_punct]
    first = reply[0]
    if first.pos_ == "ADP" or after and after[-1].pos_ == "ADP" and after[-1].dep_ != "prt":
        return ""  # "At uni.", "Where are you moving to?"
    if any(t.dep_ != "prt" for t in after):
        return None
    if first.pos_ in ("ADV", "PART") or first.lower_ in _PLACE_ADVERBS:
        return ""
    from lemminflect import getLemma

    lemmas = getLemma(verb.lower_, upos="VERB")
    if _MOTION & {verb.lower_, *lemmas}:
        return "to "
    return "at " if first.ent_type_ == "ORG" else "in "


_VOCATIVE = re.compile(r"^([A-Z][a-z]+),|,\s*([A-Z][a-z]+)\s*\?$")
"""A name called out at the start or the end of a question."""


def statement(question: Any, reply: Any, yes: bool) -> str | None:
    """The first-person claim of a question to the listener and the reply to it, or ``None``
    when the question is not one of the kinds read (see the module docstring); the answer's
    first word keeps its capital only as a name ("Portland").

    Args:
        question: the parsed question (a spaCy ``Doc`` of one sentence).
        reply: the parsed reply, a fragment (ignored for a "yes").
        yes: the reply said yes.
    """
    return _cased(_statement(question, reply, yes), "" if yes else _answer_text(reply))


def _addressed(question: str, answerer: str | None, names: frozenset[str]) -> str | None:
    """``question`` without the answerer's name called out in it ("Gina, do you have any
    pets?"), or ``None`` when it names another person of the conversation."""
    own = {part.lower() for part in (answerer or "").split()}
    called = _VOCATIVE.findall(question)  # "Gina, do you ...?", "... instruments, Gina?"
    named = {w for w in words(question) if w in names} | {
        w.lower() for pair in called for w in pair if w}
    if named - own:
        return None
    for name in named:
        question = re.sub(rf"(?i)(?:,\s*)?\b{re.escape(name)}\b(?:\s*,)?\s*", " ", question)
    question = " ".join(question.split()).replace(" ?", "?")
    return question[:1].upper() + question[1:] if question.strip(" ?") else None


def answered_sentences(turns: Sequence[Turn], said: Mapping[str, list[str]],
                       names: frozenset[str], clean: Callable[[str], str]
                       ) -> dict[str, tuple[int, str, str]]:
    """Turn id -> (number of the reply sentence, first-person claim, id of the question's
    turn) for each user turn that opens with a short answer to a question the turn before put
    to its speaker (see the module docstring). The claim's evidence is both turns: its words
    are the question's as much as the answer's.

    Args:
        turns: the thread's turns, in order.
        said: turn id -> the turn's spoken sentences, for every turn of ``turns``.
        names: lower-cased names of the people in the conversation.
        clean: a sentence without its leading interjections and vocatives
            (:func:`.facts.clean_sentence`).
    """
    pairs = []
    for before, turn in pairwise(turns):
        if turn.role != Role.USER or turn.id not in said or (
                before.role == turn.role and before.speaker == turn.speaker):
            continue
        question = _asked(said.get(before.id, []))
        reply = _reply(said[turn.id], names)
        if question is None or reply is None:
            continue
        question = _addressed(question, turn.speaker, names)
        if question is None:
            continue  # put to someone else: "Gina, do you have pets?" answered by Maria
        n, text = reply
        yes = bool(_YES.match(text))
        rest = clean(_YES.sub("", text)) if yes else clean(text)
        if len(words(rest)) > MAX_ANSWER_WORDS or rest.endswith("?"):
            continue
        pairs.append((turn.id, n, question, rest, yes, before.id))
    if not pairs:
        return {}
    docs = parse([p[2] for p in pairs] + [p[3] or "." for p in pairs])
    out: dict[str, tuple[int, str, str]] = {}
    for k, (turn_id, n, _, rest, yes, asked) in enumerate(pairs):
        question, reply = docs[k], docs[len(pairs) + k]
        if yes and (not rest or _ELLIPSIS.match(rest)):
            made = statement(question, reply, yes=True)
        elif not yes and rest and _fragment(reply) and content_terms(rest):
            made = statement(question, reply, yes=False)
        else:
            made = None
        if made:
            out[turn_id] = (n, made, asked)
    return out
