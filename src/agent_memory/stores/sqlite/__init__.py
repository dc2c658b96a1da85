"""The default store: one SQLite file with BM25 over per-user postings and cosine KNN (see
:mod:`.store`)."""

from .migrations import MIGRATIONS, SCHEMA_VERSION
from .query import STOP_WORDS, fts_query
from .store import SQLiteStore

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "STOP_WORDS", "SQLiteStore", "fts_query"]
