"""Full-text search scored by BM25 with each user's own statistics.

FTS5's ``bm25()`` takes its statistics from the whole table: the row count, the average row
length and each term's document frequency count every user's rows. One user's scores then
move when another user writes a word, which tells the first user something about the other's
data. This module keeps the statistics per user instead, in three tables (migration 6,
:mod:`.text_schema`)::

    text_users     uid (integer alias), user_id, docs, tokens, changes: one row per user;
                   the document count, the summed length in tokens, and a counter moved by
                   every indexed or removed document (keys the frequency cache)
    text_docs      rid (= records.rid, deleted with the record), uid, length in tokens, the
                   document's distinct terms (JSON), so removal finds its postings, and its
                   text (migration 7: the record's index text, for exports)
    text_postings  (uid, term, rid) -> tf, length: an inverted index partitioned by user

Triggers on ``text_docs`` keep ``text_users`` and ``text_postings`` in step inside the writing
transaction, and the foreign key removes a record's entry when the record is deleted, so the
statistics are exact at every commit. A search reads only the user's own postings: its work is
the summed document frequencies of the query's terms in the user's partition, whatever other
users hold (FTS5 walks every user's postings).

Terms are produced by the FTS5 tokenizer of the schema (:data:`.migrations.FTS_TOKENIZER`),
run on a contentless table of a private in-memory database and read back through
``fts5vocab``: the stems are exactly those FTS5 indexes.

Score (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009,
eq. 3.15, in the form and with the constants of SQLite's FTS5 ``bm25()``,
https://sqlite.org/fts5.html#the_bm25_function, ``fts5_aux.c``)::

    score(D, Q) = sum over terms t of Q in D of
                  IDF(t) * tf(t, D) * (k1 + 1) / (tf(t, D) + k1 * (1 - b + b * |D| / avgdl))
    IDF(t)      = ln((N - n(t) + 0.5) / (n(t) + 0.5)), floored at 1e-6 as FTS5 does
    k1 = 1.2, b = 0.75

with ``N`` the user's document count, ``avgdl`` the user's mean length in tokens and ``n(t)``
the number of the user's documents holding ``t``. A term typed twice in different forms that
stem alike ("dog dogs") counts twice, as two FTS5 phrases would, so in a store of one user the
scores equal ``-bm25(records_fts)`` (tested). A query word the tokenizer splits into several
tokens is searched as those tokens OR-ed (FTS5 would ask for the phrase).

A search scores the user's postings of the kept terms alone (a primary-key range per term),
then checks the filters (``records``) on the best rows in growing batches until ``k`` pass and
no later row can tie: joining every posting to ``records`` first cost 2.9 ms at p50 at 100k
rows against 0.6 ms for the postings alone.

Measured in BENCHMARKS.md ("Full-text statistics per user", ``bench/text_budget.py``,
``bench/text_index.py``; 100k rows, loaded machine): text search at the default budget
2.2-6.4 ms p50 against 5.0-8.1 ms with FTS5's scoring in the same runs; writes +0.2-0.55 ms
per record (tokenizing one document 80-100 us, 52 us each in batches of 50; the rest is its
postings); 64.5 MiB of tables against 24.6 MiB for the FTS5 index; an existing 100k-row file
migrates in 7-11 s. One FTS5 table per user was measured and rejected (six schema objects per user: 48 ms
to add a user and 99 ms to open a connection at 1,000 users).
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .migrations import FTS_TOKENIZER
from .terms import TermBudget

K1 = 1.2
"""BM25 term-frequency saturation (FTS5's constant)."""
B = 0.75
"""BM25 length normalisation (FTS5's constant)."""
IDF_FLOOR = 1e-6
"""Smallest IDF: FTS5 replaces an IDF <= 0 (a term in more than half the rows) by this."""
_FIRST_BATCH = 256
"""Best-scored rows whose filters are checked first (then twice as many each round)."""
_MAX_CACHED_USERS = 256
"""Users whose document frequencies are cached; the cache is cleared past this."""
_MAX_CACHED_TERMS = 100_000
"""Terms cached per user; that user's entries are cleared past this."""


class _Tokenizer:
    """The schema's FTS5 tokenizer, run on a private in-memory database.

    A contentless FTS5 table takes the texts and ``fts5vocab`` reads back each one's terms; the
    table is emptied after every call. Being private, it needs no write access to the store's
    file (read connections may be ``query_only``) and leaves nothing in the store's
    connections; a lock makes it safe from any thread.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        conn.execute(
            f"CREATE VIRTUAL TABLE scratch USING fts5(text, content = '', "
            f"tokenize = '{FTS_TOKENIZER}')"
        )
        conn.execute("CREATE VIRTUAL TABLE scratch_terms USING fts5vocab(scratch, instance)")
        return conn

    def __call__(self, texts: Sequence[str]) -> list[Counter[str]]:
        out: list[Counter[str]] = [Counter() for _ in texts]
        if not texts:
            return out
        with self._lock:
            if self._conn is None:
                self._conn = self._connect()
            conn = self._conn
            conn.execute("BEGIN")
            try:
                conn.executemany(
                    "INSERT INTO scratch (rowid, text) VALUES (?, ?)",
                    list(enumerate(texts, start=1)),
                )
                # One row per text with all its term instances: counting them in Python took
                # half the time of fetching one row per (text, term) (no term holds a space:
                # unicode61 splits on it).
                for doc, terms in conn.execute(
                    "SELECT doc, group_concat(term, ' ') FROM scratch_terms GROUP BY doc"
                ):
                    out[doc - 1] = Counter(terms.split(" "))
            finally:
                conn.execute("ROLLBACK")  # empties the table
        return out


_tokenizer = _Tokenizer()


def tokenize(texts: Sequence[str]) -> list[Counter[str]]:
    """Each text's terms as the store's FTS5 index holds them (stems), with their counts.

    Args:
        texts: the texts, any number.

    Returns:
        One :class:`~collections.Counter` ``term -> occurrences`` per text, in order; the sum
        of its counts is the text's length in tokens.

    Raises:
        UnicodeEncodeError: a text holds a lone surrogate.
    """
    return _tokenizer(texts)


def index_documents(
    conn: sqlite3.Connection, user_id: str, docs: Sequence[tuple[int, str]]
) -> None:
    """Index (or re-index) the user's documents; call inside the writing transaction.

    The whole batch is tokenized in one call and written with one statement per table (a
    store's ``put`` hands all of a user's records to one call; tokenizing a document alone
    cost twice as much as in a batch, BENCHMARKS.md "Ingest").

    Args:
        conn: the store's connection, inside a write transaction.
        user_id: the owner of every document.
        docs: ``(rid, index_text)`` pairs, ``rid`` being the record's ``records.rid``; a rid
            given twice is indexed with its last text.
    """
    if not docs:
        return
    latest = dict(docs)
    row = conn.execute("SELECT uid FROM text_users WHERE user_id = ?", (user_id,)).fetchone()
    (uid,) = row or conn.execute(
        "INSERT INTO text_users (user_id) VALUES (?) RETURNING uid", (user_id,)
    ).fetchone()
    conn.execute(
        "DELETE FROM text_docs WHERE rid IN (SELECT value FROM json_each(?))",
        (json.dumps(list(latest)),),
    )
    entries = []
    postings = []
    for rid, counts in zip(latest, tokenize(list(latest.values())), strict=True):
        length = sum(counts.values())
        entries.append((rid, uid, length, json.dumps(sorted(counts)), latest[rid]))
        postings.extend((uid, term, rid, tf, length) for term, tf in counts.items())
    conn.executemany(
        "INSERT INTO text_docs (rid, uid, length, terms, text) VALUES (?, ?, ?, ?, ?)", entries
    )
    conn.executemany(
        "INSERT INTO text_postings (uid, term, rid, tf, length) VALUES (?, ?, ?, ?, ?)", postings
    )


@contextmanager
def _snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """One read transaction around the statements inside, unless the caller holds one."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def idf(docs: int, df: int) -> float:
    """BM25's inverse document frequency as FTS5 computes it (floored at :data:`IDF_FLOOR`).

    Args:
        docs: documents in the user's partition (``N``).
        df: those holding the term (``n(t)``).
    """
    value = math.log((docs - df + 0.5) / (df + 0.5))
    return value if value > 0 else IDF_FLOOR


class TextIndex:
    """BM25 search over one user's postings, within a budget of matching rows.

    Args:
        budget: ``text_match_budget`` (:class:`.terms.TermBudget`): the most postings the kept
            terms of one query may hold together in the user's partition; 0 keeps every term.

    Raises:
        ValueError: ``budget`` is negative.
    """

    def __init__(self, budget: int) -> None:
        self.terms = TermBudget(budget)
        self._df: dict[int, tuple[int, dict[str, tuple[int, bool]]]] = {}

    def search(
        self,
        conn: sqlite3.Connection,
        user_id: str,
        words: Sequence[str],
        where: str,
        params: Sequence[Any],
        k: int,
    ) -> list[tuple[int, float]]:
        """The user's best ``k`` documents for the OR of ``words``, by BM25 (higher is better).

        Args:
            conn: a connection of the store, read-only or not; the statistics and the
                postings are read in one read transaction (the caller's, if it holds one), so
                a concurrent writer cannot commit between them.
            user_id: the partition searched; every statistic is this user's.
            words: distinct query words (:func:`.query.query_terms`).
            where: a condition over ``records r`` (:func:`.query.where_clause`) with its
                ``params``; it must restrict ``r.user_id`` to ``user_id``.
            k: most hits.

        Returns:
            ``(rid, score)`` pairs, best first, ties by record id.
        """
        with _snapshot(conn):
            return self._search(conn, user_id, words, where, params, k)

    def _search(
        self,
        conn: sqlite3.Connection,
        user_id: str,
        words: Sequence[str],
        where: str,
        params: Sequence[Any],
        k: int,
    ) -> list[tuple[int, float]]:
        plan = self._plan(conn, user_id, words)
        if plan is None:
            return []
        uid, docs, tokens, weights = plan
        avgdl = tokens / docs if tokens else 1.0
        # Score the user's postings alone (a range scan of the primary key per term), then
        # apply the filters to the best rows, a growing batch at a time, until k rows pass and
        # no later row can tie with the k-th: joining every posting to ``records`` first
        # cost 4-5 times the scoring itself at 100k rows (BENCHMARKS.md).
        ranked = conn.execute(
            "WITH q (term, w) AS (SELECT key, value FROM json_each(?)) "
            "SELECT p.rid, sum(q.w * p.tf / (p.tf + ? + ? * p.length)) AS score "
            "FROM q CROSS JOIN text_postings p WHERE p.uid = ? AND p.term = q.term "
            "GROUP BY p.rid ORDER BY score DESC",
            (json.dumps(weights), K1 * (1 - B), K1 * B / avgdl, uid),
        )
        passed = (
            "SELECT r.rid, r.id FROM records r WHERE r.rid IN (SELECT value FROM json_each(?)) "
            f"AND {where}"
        )
        hits: list[tuple[float, str, int]] = []
        size = max(4 * k, _FIRST_BATCH)
        while batch := ranked.fetchmany(size):
            ids = dict(conn.execute(passed, [json.dumps([rid for rid, _ in batch]), *params]))
            hits.extend((score, ids[rid], rid) for rid, score in batch if rid in ids)
            if len(hits) >= k and batch[-1][1] < hits[k - 1][0]:
                break
            size *= 2
        ranked.close()
        hits.sort(key=lambda hit: (-hit[0], hit[1]))
        return [(rid, score) for score, _, rid in hits[:k]]

    def kept_terms(self, conn: sqlite3.Connection, user_id: str, words: Sequence[str]) -> list[str]:
        """The terms (stems) of ``words`` that a search of the user would run (for benchmarks)."""
        with _snapshot(conn):
            plan = self._plan(conn, user_id, words)
        return [] if plan is None else list(plan[3])

    def _plan(
        self, conn: sqlite3.Connection, user_id: str, words: Sequence[str]
    ) -> tuple[int, int, int, dict[str, float]] | None:
        """``(uid, docs, tokens, term -> weight)`` of the kept terms, the weight being
        ``IDF * (k1 + 1)`` times the number of query words with that stem; ``None`` when
        nothing can match."""
        user = conn.execute(
            "SELECT uid, docs, tokens, changes FROM text_users WHERE user_id = ?", (user_id,)
        ).fetchone()
        if user is None or user[1] == 0 or not words:
            return None
        uid, docs, tokens, changes = user
        # Each word's stems; a stem reached from several words weighs once per word (as FTS5
        # scores one phrase per word).
        count: Counter[str] = Counter()
        for counts in tokenize(words):
            count.update(counts.keys())
        terms = list(count)
        # Past the budget a term's exact frequency only matters if it is kept: count at most
        # budget + 1 of each term's postings, then exactly for the kept ones (and for all when
        # every term is past the budget, to find the rarest).
        budget = self.terms.budget
        cap = budget if budget and docs > budget and len(terms) > 1 else None
        df = self._frequencies(conn, uid, changes, terms, cap)
        if cap is not None and min(df.values()) > cap:
            df = self._frequencies(conn, uid, changes, terms, None)
        kept = [t for t in self.terms.select(terms, df, docs) if df[t] > 0]
        if not kept:
            return None
        df = self._frequencies(conn, uid, changes, kept, None)
        return uid, docs, tokens, {t: idf(docs, df[t]) * count[t] * (K1 + 1) for t in kept}

    def _frequencies(
        self,
        conn: sqlite3.Connection,
        uid: int,
        changes: int,
        terms: Sequence[str],
        cap: int | None,
    ) -> dict[str, int]:
        """Documents of the user holding each term, cached until the user's index changes.

        With ``cap``, a term in more than ``cap`` documents is counted only to ``cap + 1``
        (the value returned); without, every count is exact.
        """
        cached = self._df.get(uid)
        if cached is None or cached[0] != changes:
            if len(self._df) >= _MAX_CACHED_USERS:
                self._df.clear()
            cached = (changes, {})
            self._df[uid] = cached
        elif len(cached[1]) > _MAX_CACHED_TERMS:
            cached[1].clear()
        known = cached[1]  # term -> (count, exact)
        for term in terms:
            count, exact = known.get(term, (0, False))
            if exact or (cap is not None and count > cap):
                continue
            limit = -1 if cap is None else cap + 1
            count = conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM text_postings WHERE uid = ? AND term = ? "
                "LIMIT ?)",
                (uid, term, limit),
            ).fetchone()[0]
            known[term] = (count, cap is None or count <= cap)
        return {term: known[term][0] for term in terms}
