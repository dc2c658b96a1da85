"""Fitting reasoner requests into a model's context window.

Small local models served by Ollama or llama.cpp run with a context of 4,096 tokens or less;
a request that does not fit is cut by the server (llama.cpp drops the oldest tokens, Ollama
truncates the prompt) and the model answers about half a conversation without saying so.
So the LLM reasoner packs long material into several requests, each of which fits:

    prompt tokens (instructions + schema + fixed parts) + material + answer reserve
        <= context_tokens

and folds their answers: a thread summary or a profile is updated request by request (the
previous answer becomes the ``previous`` text of the next request), facts are concatenated.

Tokens are :func:`~agent_memory.tokens.count_tokens` estimates (words + punctuation marks:
within about 10% of cl100k on English conversation, and above BPE counts on JSON schema text,
whose punctuation BPE merges); the answer reserve leaves room for the estimate's error.
The longest prompts each step sends are measured by ``bench/prompt_tokens.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..errors import ConfigError
from ..models import Turn
from ..tokens import count_tokens, truncate_tokens
from .prompts import render_turn

X = TypeVar("X")

DEFAULT_CONTEXT_TOKENS = 4096
"""Context window assumed when none is configured: a common window of small local models
(set by Ollama's ``num_ctx`` and ``llama-server -c``)."""

MIN_MATERIAL_TOKENS = 256
"""Fewest tokens of conversation or profile material one request must have room for."""

FACT_ANSWER_SHARE = 4
"""The answer reserve of fact extraction: a quarter of the context (1,024 tokens at 4,096:
about 20 facts of 50 tokens each in JSON)."""

SUMMARY_ANSWER_OVERHEAD = 256
"""Tokens reserved for a summary's JSON beyond its text budget (keys, topics, evidence ids)."""


def message_tokens(messages: Sequence[dict[str, Any]]) -> int:
    """Estimated tokens of the text contents of chat ``messages`` (plus 4 per message for the
    role markers of chat templates)."""
    total = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            total += count_tokens(content)
        total += 4
    return total


def material_budget(context_tokens: int, fixed_tokens: int, answer_tokens: int) -> int:
    """Tokens left for material in one request.

    Args:
        context_tokens: the model's context window.
        fixed_tokens: tokens of the request without its material (instructions, schema, the
            previous summary).
        answer_tokens: tokens reserved for the answer.

    Raises:
        ConfigError: less than :data:`MIN_MATERIAL_TOKENS` remain (the context is too small
            for the prompts; raise ``reasoner_context_tokens`` or lower the summary budgets).
    """
    left = context_tokens - fixed_tokens - answer_tokens
    if left < MIN_MATERIAL_TOKENS:
        raise ConfigError(
            f"a context of {context_tokens} tokens leaves {left} for the conversation after "
            f"the instructions ({fixed_tokens}) and the answer ({answer_tokens}); at least "
            f"{MIN_MATERIAL_TOKENS} are needed: raise reasoner_context_tokens"
        )
    return left


def pack(items: Sequence[X], cost: Callable[[X], int], budget: int) -> list[list[X]]:
    """Split ``items`` in order into consecutive groups whose summed ``cost`` is <= ``budget``.

    An item that alone costs more than ``budget`` gets a group of its own (the caller shortens
    it: :func:`fit_turn`). Returns ``[]`` for no items.
    """
    groups: list[list[X]] = []
    current: list[X] = []
    used = 0
    for item in items:
        size = cost(item)
        if current and used + size > budget:
            groups.append(current)
            current, used = [], 0
        current.append(item)
        used += size
    if current:
        groups.append(current)
    return groups


def turn_tokens(turn: Turn) -> int:
    """Estimated tokens of ``turn`` as the prompts render it (its line and the newline)."""
    return count_tokens(render_turn(turn)) + 1


def fit_turn(turn: Turn, budget: int) -> Turn:
    """``turn`` with its content cut so that its rendered line fits in ``budget`` tokens."""
    over = turn_tokens(turn) - budget
    if over <= 0:
        return turn
    keep = max(1, count_tokens(turn.content) - over)
    return turn.model_copy(update={"content": truncate_tokens(turn.content, keep)})


def pack_turns(turns: Sequence[Turn], budget: int) -> list[list[Turn]]:
    """``turns`` in order, in groups whose rendered lines fit in ``budget`` tokens each; a turn
    too long for a request of its own is cut (:func:`fit_turn`)."""
    return pack([fit_turn(t, budget) for t in turns], turn_tokens, budget)


def item_tokens(item: str) -> int:
    """Estimated tokens of one numbered line of profile material."""
    return count_tokens(item) + 3  # "12. " and the newline


def pack_items(items: Sequence[str], budget: int) -> list[list[str]]:
    """Profile ``items`` in order, in groups that fit in ``budget`` tokens; a longer item is cut."""
    fitted = [item if item_tokens(item) <= budget else truncate_tokens(item, budget - 3)
              for item in items]
    return pack(fitted, item_tokens, budget)
