"""Query analysis shared by every store's full-text search: the words of a query that count.

A query's words are its runs of Unicode letters and digits, lower-cased, minus very common
English words, each once in order of first occurrence. The SQLite store ORs them in an FTS5
MATCH (:func:`agent_memory.stores.sqlite.query.fts_query`); the Azure Cosmos DB store passes
them as the keywords of ``FullTextScore`` / ``FullTextContainsAny``
(:mod:`agent_memory.stores.cosmos.search`), so both backends search the same words. Punctuation
and query syntax (``"``, ``*``, ``-``, ``AND``, ``NEAR``, ``col:``) are never operators: they
are not words.
"""

from __future__ import annotations

import re

_STOP_WORDS_TEXT = """a about after all also am an and any are as at be been before being but by can could
    did do does doing don for from had has have he her hers him his how i if in into is it its
    just me my no nor not of off on once only or our ours out over she should so some such t
    than that the their theirs them then there these they this those to too very was we were
    what when where which who whom why will with would you your yours s d ll m re ve"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())
"""Very common English words dropped from full-text queries (they carry almost no BM25 weight
and make OR queries slow)."""

_WORD = re.compile(r"[^\W_]+")


def query_terms(text: str) -> list[str]:
    """The distinct non-stop words of ``text``, lower-cased, in order of first occurrence.

    Example: ``query_terms("Where is the Zebra's cat? zebra!")`` is ``["zebra", "cat"]``.
    """
    return list(dict.fromkeys(w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS))
