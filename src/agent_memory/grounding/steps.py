"""The grounding check as the pipeline steps and session reflection apply it.

- :func:`grounder_for`: the :class:`~.check.Grounder` for a step's components: the settings'
  thresholds, and the embedder for the cosine check unless the reasoner copies its sentences
  from the turns (``Reasoner.quotes_source``, the extractive reasoner), where the lexical,
  number and name checks are enough and cost no embedding.
- :func:`ground_text`: for texts that cite no turn per sentence (profiles): each sentence not
  already in the previous text must have its numbers and names in the sources it was merged
  from and must not itself address the memory or the model; other sentences are dropped.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .check import Grounder
from .injection import injection_reason
from .support import unsupported_names, unsupported_numbers

if TYPE_CHECKING:
    from ..pipeline.context import Components

logger = logging.getLogger("agent_memory.grounding")

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\u201c]?[A-Z0-9\[])|\n+")


def grounder_for(c: Components) -> Grounder:
    """The grounder a step running with ``c`` applies."""
    embedder = None if getattr(c.reasoner, "quotes_source", False) else c.embedder
    return Grounder(embedder, min_lexical=c.settings.grounding_min_lexical,
                    min_cosine=c.settings.grounding_min_cosine)


def ground_text(text: str, sources: Sequence[str], previous: str | None = None, *,
                kind: str = "profile line") -> tuple[str, int]:
    """``text`` without its sentences that the ``sources`` (and ``previous``) do not support.

    Args:
        text: the reasoner's merged text (a profile).
        sources: the texts it was merged from (facts, insights, thread summaries).
        previous: the text it updates; its sentences are kept as they are.
        kind: what a sentence is, for the log.

    Returns:
        ``(kept text, number of sentences dropped)``; the text is ``text`` itself when nothing
        was dropped.
    """
    known = "\n".join([*sources, previous or ""])
    old = {s.strip() for s in _SENTENCE.split(previous or "") if s.strip()}
    kept, dropped = [], 0
    for sentence in (s.strip() for s in _SENTENCE.split(text)):
        if not sentence:
            continue
        if sentence not in old:
            reason = injection_reason(sentence)
            if reason is None and (missing := unsupported_numbers(sentence, known)
                                   + unsupported_names(sentence, known)):
                reason = f"not in its sources: {', '.join(missing)}"
            if reason is not None:
                logger.info("grounding refused %s %r: %s", kind, sentence[:120], reason)
                dropped += 1
                continue
        kept.append(sentence)
    return (text if not dropped else " ".join(kept)), dropped
