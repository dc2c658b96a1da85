"""Turns that address the memory system or the model instead of the other party.

A conversation turn is data about the people in it. A turn that gives orders to whoever reads it
("ignore previous instructions", "remember that ...", "you are now ..."), or that forges a role
marker ("SYSTEM:", ``<|im_start|>system``), is an attempt to write memory by instruction; such a
turn is never the sole evidence of a stored fact, insight or profile line
(:mod:`agent_memory.grounding.check`).

:func:`injection_reason` detects the mechanisms, not sentences:

- **role markers**: a line or sentence opening with a role label (``system:``, ``[assistant]``,
  ``### instruction``, ``<<SYS>>``, ``[INST]``, chat-template tokens such as ``<|im_start|>``);
- **instruction overrides**: a verb of setting aside (ignore, disregard, forget, override)
  followed, within the sentence, by a word for instructions (instructions, rules, prompt,
  guidelines, programming); persona changes ("you are now", "act as", "pretend to be",
  "from now on you", "new instructions", "developer mode");
- **storage commands**: an imperative verb of keeping (remember, store, save, record, memorize,
  log, write down, keep in mind, make a note, add, update) at the start of a clause, or after
  "you must/should/will/need to/are to", with a stated content ("that ...", "this", "the fact",
  ":"), unless it reminisces ("remember when ...", "remember that trip?") or heads the
  speaker's own news ("Update: I moved to Leeds", "Quick update: we ...");
- **memory-addressed statements**: the memory, database, profile, records, notes or knowledge
  base as the subject or target of a writing verb ("the memory should record ...", "update
  your profile: ...", "note for the memory:"); vocatives to the machine ("hey assistant, ...",
  "AI: ...").

Measured on the LoCoMo dev set (``bench/grounding_calibration.py``): it flags 3 of the 2,760
turns people wrote to each other, all encouragement ("Remember that staying positive is very
important"), from which no fact is derived anyway.
"""

from __future__ import annotations

import re

_KEEP_VERBS = (
    r"remember|store|save|record|memori[sz]e|log|write\s+down|jot\s+down|keep\s+in\s+mind|"
    r"keep\s+(?:this|that|it)\s+in\s+mind|make\s+(?:a\s+)?note(?:\s+of)?|take\s+(?:a\s+)?"
    r"note(?:\s+of)?|note\s+down|add|update|insert|register|commit\s+to\s+memory"
)
_STATED = r"(?:that\b|this\b|these\b|the\s+(?:fact|following|info(?:rmation)?)\b|:|as\s+(?:a\s+)?fact)"
_CLAUSE_START = r"(?:^|[.!?;:\n]\s*|,\s*(?:and\s+)?|\b(?:and|so|now|also|just|please|kindly|then)\s+)"

_ROLE_WORDS = (
    r"system|assistant|developer|admin(?:istrator)?|root|sys|instructions?|ai|bot|model|"
    r"memory(?:\s+system)?|operator|moderator"
)
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("role marker", re.compile(
        r"(?:^|[\n.!?]\s*)[\[\(<#*\s]*(?:" + _ROLE_WORDS + r")(?:\s+(?:message|prompt|note|"
        r"override|update|instruction))?\s*(?:[\]\)>]+\s*:?|:|#+)",
        re.IGNORECASE)),
    ("role marker", re.compile(
        r"<\|?\s*(?:im_start|im_end|system|assistant|user|endoftext|begin_of_text|start_header_id)"
        r"\s*\|?>|<<\s*/?SYS\s*>>|\[/?INST\]|\[/?SYSTEM\]|</?(?:system|assistant|instructions?)>",
        re.IGNORECASE)),
    ("instruction override", re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass|overrule|discard|drop|(?:do\s+not|don't|"
        r"never)\s+follow|pay\s+no\s+attention\s+to)\b[^.!?\n]{0,60}?"
        r"\b(?:instructions?|rules?|prompts?|directions?|directives?|guidelines?|guidance|"
        r"guardrails?|constraints?|programming|policies|polic(?:y)|system\s+message)\b",
        re.IGNORECASE)),
    ("persona change", re.compile(
        r"(?<!where\s)\byou\s+are\s+now\s+(?:an?|the|my|called|named|in|acting|operating|"
        r"free|no\s+longer|unrestricted|allowed|required|to)\b|\bfrom\s+now\s+on,?\s+(?:you|the\s+(?:assistant|memory|model|ai))\b|"
        r"\b(?:act|behave|respond)\s+as\s+(?:if\s+you|an?\s+|the\s+)|\bpretend\s+(?:to\s+be|"
        r"you(?:'re|\s+are)|that\s+you)\b|\brole-?\s?play\s+as\b|\bnew\s+instructions?\b|"
        r"\bdeveloper\s+mode\b|\bjailbr[eo]ak",
        re.IGNORECASE)),
    ("storage command", re.compile(
        _CLAUSE_START + r"(?:" + _KEEP_VERBS + r")\s*(?!(?:that|this)\s+(?:time|day|night|"
        r"trip|moment|place|one|song|movie|game|party|summer|weekend|year)\b)" + _STATED,
        re.IGNORECASE)),
    ("storage command", re.compile(
        r"\byou\s+(?:must|should|will|shall|need\s+to|have\s+to|are\s+to|'ll|are\s+going\s+to|"
        r"better|are\s+required\s+to)\s+(?:now\s+|always\s+)?(?:" + _KEEP_VERBS + r"|believe|"
        r"treat|consider|assume)\b[^?]*$",
        re.IGNORECASE | re.MULTILINE)),
    ("memory addressed", re.compile(
        r"\b(?:the|your|this|its)\s+(?:long[-\s]term\s+)?(?:memory|memories|database|db|"
        r"knowledge\s+base|profile|user\s+profile|records|notes|memory\s+(?:store|system|bank))"
        r"\s+(?:should|must|shall|will|needs?\s+to|has\s+to|ought\s+to|is\s+to)\s+(?:now\s+)?"
        r"(?:record|store|say|show|contain|include|list|reflect|note|read|state|be\s+updated|"
        r"remember|keep|mention|have)\b",
        re.IGNORECASE)),
    ("memory addressed", re.compile(
        r"\b(?:to|in|into|for)\s+(?:the|your)\s+(?:long[-\s]term\s+)?(?:memory|memories|"
        r"database|knowledge\s+base|profile|user\s+profile|memory\s+(?:store|system|bank))\b"
        r"|\bnote\s+(?:to|for)\s+(?:the\s+|your\s+)?(?:memory|system|assistant|ai|model|bot)\b",
        re.IGNORECASE)),
    ("memory addressed", re.compile(
        r"(?:^|[.!?]\s+)(?:hey|hi|ok(?:ay)?|dear|attention|listen)?,?\s*(?:the\s+)?(?:assistant|"
        r"ai|chatbot|bot|model|llm|agent|memory(?:\s+system)?)\s*[,:!]\s+(?:please\s+)?"
        r"(?:" + _KEEP_VERBS + r"|ignore|forget|from|you|note|make|set|change|mark)\b",
        re.IGNORECASE)),
]

_PATTERNS += [
    ("memory addressed", re.compile(
        r"\b(?:update|edit|change|modify|overwrite|write\s+to|add\s+to|append\s+to|save\s+to|"
        r"put\s+in(?:to)?)\s+(?:your|the|my)\s+(?:memory|memories|profile|records?|database|"
        r"notes|knowledge\s+base)\b",
        re.IGNORECASE)),
    ("memory addressed", re.compile(
        r"[,;]\s*(?:ok(?:ay)?|got\s+it|understood|right|hear\s+me)?,?\s*(?:dear\s+)?(?:memory|"
        r"assistant|ai|bot|chatbot|model|system)\s*[?.!]*\s*$",
        re.IGNORECASE | re.MULTILINE)),
]

_PATTERNS += [
    ("summary directed", re.compile(
        r"\b(?:when|if|as|once)\s+you\s+(?:summari[sz]e|write\s+(?:up\s+)?(?:the|your|a)\s+"
        r"(?:summary|notes|profile|report)|describe\s+(?:me|him|her|them|the\s+user))\b"
        r"|\bin\s+your\s+(?:summary|summaries|notes|profile|records?|report)\b"
        r"|\bfor\s+your\s+(?:records?|notes|files|memory)\b"
        r"|\bsummary\s+instructions?\b"
        r"|\bmake\s+sure\s+(?:the|your)\s+(?:notes|summary|profile|memory|records?)\s+"
        r"(?:says?|shows?|lists?|states?|mentions?)\b"
        r"|\bthat\s+you\s+(?:always\s+)?(?:list|describe|treat|store|record|refer\s+to)\s+\w+"
        r"\s+as\b|\bextract\s+the\s+fact\b"
        r"|\b(?:note|message|memo)\s+(?:to\s+self\s+)?for\s+the\s+(?:ai|assistant|model|bot|"
        r"memory)\b",
        re.IGNORECASE)),
    ("instruction override", re.compile(r"\b(?:IMPORTANT\s+)?OVERRIDE\b\s*(?:--|-|:)")),
]

_REMINISCING = re.compile(r"\bremember\s+(?:that\s+)?(?:when|how|what|who|where|the\s+time)\b",
                          re.IGNORECASE)


def injection_reason(text: str) -> str | None:
    """Why ``text`` addresses the memory system or the model, or ``None`` when it does not.

    Args:
        text: one turn's content.

    Returns:
        The mechanism found (``role marker``, ``instruction override``, ``persona change``,
        ``storage command``, ``memory addressed``), or ``None``.
    """
    for reason, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if reason == "storage command" and (_reminisces(text, match)
                                                or _NEWS_HEADER.match(text, match.start())):
                continue
            return reason
    return None


_NEWS_HEADER = re.compile(
    r"(?:^|[.!?;:\n]\s*)(?:(?:quick|big|small|short|little|some|an?|one\s+more|another|"
    r"latest|life|news)\s+)?updates?\s*:\s*(?:so\s+|well\s+|okay\s+|ok\s+)?"
    r"(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|we'll|my|our|me|us)\b",
    re.IGNORECASE)
"""A news header, not a command: "Update: I moved to Leeds", "Quick update: we moved in May".
The storage command "Update: the user ..." states a claim about someone in the third person."""


def _reminisces(text: str, match: re.Match[str]) -> bool:
    """A "remember that ..." that looks back ("remember that trip?", "remember when")."""
    end = min(len(text), match.end() + 200)
    sentence_end = re.search(r"[.!?\n]", text[match.end():end])
    stop = match.end() + sentence_end.start() if sentence_end else end
    if stop < len(text) and text[stop] == "?":
        return True
    return bool(_REMINISCING.search(text[match.start():stop]))
