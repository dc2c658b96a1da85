"""A bound on the work of one full-text query: leave out its most frequent terms at scale.

An OR query walks the posting list of every term and scores every row that matches any of
them; nothing stops early. The cost is therefore proportional to the summed document
frequencies of the terms: about 1-2 us per matching row on this project's 2-core machine, so
a question whose words include a speaker's name or a word like "make" matches 10-15% of a
100k-row partition and costs 25-50 ms, and ten times that at 1M rows.

:class:`TermBudget` keeps the rarest terms of a query whose summed document frequencies fit
in ``budget`` rows and drops the rest (the rarest term is always kept). The dropped terms are
the ones BM25 weighs least: a term in a tenth of the rows has an IDF of about 2.2, against 7-9
for a term in a handful of rows (Robertson & Zaragoza, "The Probabilistic Relevance Framework:
BM25 and Beyond", 2009, eq. 3.3), so they mostly reorder rows that the rare terms already
match, and the vector list of a hybrid search still sees every word. While the user's
partition holds no more documents than the budget, no query can exceed it and every term is
kept, so small partitions rank exactly as plain BM25 does.

Measured (BENCHMARKS.md, "Search at scale", ``bench/text_budget.py``): the default budget of
2,000 brings the turns' BM25 list from 32 to 3.2 ms at p50 at 100k rows, and from 307 to 7.5
ms at 1M (FTS5's own scoring; the per-user postings of :mod:`.bm25` are measured there). On
the LoCoMo dev store (5.2k rows) recall@10 is unchanged at budgets 5,000 and 2,000 and loses half
a point at 100, the budget that drops as large a share of that store's rows as 2,000 does of
100k rows (``agent-memory eval locomo`` with ``AGENT_MEMORY_TEXT_MATCH_BUDGET``).

Document frequencies are the user's own (:mod:`.bm25` counts them in the user's postings and
caches them until the user's index changes), so which terms are kept, like the scores, does not
depend on other users' data, and the work bound is on the user's own postings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


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

    def select(self, terms: Sequence[str], df: Mapping[str, int], size: int) -> list[str]:
        """The terms to run, in the order given.

        Args:
            terms: distinct query terms.
            df: each term's document frequency in the partition searched.
            size: documents in that partition.

        Returns:
            ``terms`` unchanged when the partition is no larger than the budget; otherwise the
            rarest terms whose document frequencies sum to at most the budget (at least the
            rarest one; ties in the order given).
        """
        if self.budget == 0 or len(terms) < 2 or size <= self.budget:
            return list(terms)
        kept: set[str] = set()
        total = 0
        for term in sorted(terms, key=lambda term: df[term]):
            if kept and total + df[term] > self.budget:
                break
            kept.add(term)
            total += df[term]
        return [term for term in terms if term in kept]
