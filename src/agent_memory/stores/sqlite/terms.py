"""A bound on the work of one full-text query: leave out its most frequent terms at scale.

FTS5 evaluates an OR query by walking the posting list of every term and calling ``bm25()`` on
every row that matches any of them; nothing stops early. The cost is therefore proportional
to the summed document frequencies of the terms: about 1-2 us per matching row on this
project's 2-core machine, so a question whose words include a speaker's name or a word like
"make" matches 10-15% of a 100k-row store and costs 25-50 ms, and ten times that at 1M rows.

:class:`TermBudget` keeps the rarest terms of a query whose summed document frequencies fit
in ``budget`` rows and drops the rest (the rarest term is always kept). The dropped terms are
the ones BM25 weighs least: a term in a tenth of the rows has an IDF of about 2.2, against 7-9
for a term in a handful of rows (Robertson & Zaragoza, "The Probabilistic Relevance Framework:
BM25 and Beyond", 2009, eq. 3.3), so they mostly reorder rows that the rare terms already
match, and the vector list of a hybrid search still sees every word. While the whole table
holds no more rows than the budget, no query can exceed it and every term is kept, so small
stores rank exactly as plain BM25 does.

Measured (BENCHMARKS.md, "Search at scale", ``bench/text_budget.py``): the default budget of
2,000 brings the turns' BM25 list from 32 to 3.2 ms at p50 at 100k rows, and from 307 to 7.5 ms
at 1M. On the
LoCoMo dev store (5.2k rows) recall@10 is unchanged at budgets 5,000 and 2,000 and loses half
a point at 100, the budget that drops as large a share of that store's rows as 2,000 does of
100k rows (``agent-memory eval locomo`` with ``AGENT_MEMORY_TEXT_MATCH_BUDGET``).

Document frequencies come from ``count(*) ... MATCH`` on the term alone (FTS5 counts a posting
list without scoring it: 0.05-1 ms per term at 100k rows) and are cached per store; the cache
is dropped when the table's size has moved by a tenth since it was filled. They count every
user's rows, as FTS5's own ``bm25()`` statistics do.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from .query import match_expression

_MAX_CACHED = 100_000
"""Terms kept in the cache; it is cleared when it grows past this."""


class TermBudget:
    """Chooses which terms of a full-text query to run within a budget of matching rows.

    Args:
        budget: the most rows the kept terms may match together (summed document
            frequencies); 0 keeps every term.

    Raises:
        ValueError: ``budget`` is negative.
    """

    def __init__(self, budget: int) -> None:
        if budget < 0:
            raise ValueError("the full-text match budget must not be negative")
        self.budget = budget
        self._df: dict[str, int] = {}
        self._size = 0

    def select(self, conn: sqlite3.Connection, terms: Sequence[str]) -> list[str]:
        """The terms to run, in the order given.

        Args:
            conn: the store's connection (the caller holds the store's lock).
            terms: distinct query terms (:func:`.query.query_terms`).

        Returns:
            ``terms`` unchanged when the table is no larger than the budget; otherwise the
            rarest terms whose document frequencies sum to at most the budget (at least the
            rarest one).
        """
        if self.budget == 0 or len(terms) < 2:
            return list(terms)
        size = conn.execute("SELECT coalesce(max(rid), 0) FROM records").fetchone()[0]
        if size <= self.budget:
            return list(terms)
        if abs(size - self._size) * 10 > self._size or len(self._df) > _MAX_CACHED:
            self._df.clear()
            self._size = size
        rarest = sorted(terms, key=lambda term: self.frequency(conn, term))
        kept: set[str] = set()
        total = 0
        for term in rarest:
            df = self._df[term]
            if kept and total + df > self.budget:
                break
            kept.add(term)
            total += df
        return [term for term in terms if term in kept]

    def frequency(self, conn: sqlite3.Connection, term: str) -> int:
        """Rows of the whole table whose index text holds ``term`` (cached)."""
        df = self._df.get(term)
        if df is None:
            df = conn.execute(
                "SELECT count(*) FROM records_fts WHERE records_fts MATCH ?",
                (match_expression([term]),),
            ).fetchone()[0]
            self._df[term] = df
        return df
