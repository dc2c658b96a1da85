"""The default store: one SQLite file with FTS5 BM25 and exact cosine KNN (see :mod:`.store`)."""

from .migrations import MIGRATIONS, SCHEMA_VERSION
from .query import STOP_WORDS, fts_query
from .store import SQLiteStore

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "STOP_WORDS", "SQLiteStore", "fts_query"]
