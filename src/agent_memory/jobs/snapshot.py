"""A content fingerprint of a user's derived records, for comparing two runs.

Fact ids are random (``new_id("fact")``) and timestamps differ between runs, so two runs that
did the same work are compared by content: summaries and profiles by id, text, evidence and
watermark; facts by ``content_hash``, evidence and what (by content hash) superseded them and
why. Used by the crash benchmark and tests (a run killed and restarted must match an
uninterrupted one).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..models import DERIVED_KINDS, Fact, ThreadSummary, UserProfile
from ..stores.base import MemoryStore, RecordQuery


async def derived_snapshot(store: MemoryStore, user_id: str) -> list[Any]:
    """Sorted content tuples of every derived record of the user (superseded facts included)."""
    records = await store.list(user_id, RecordQuery(kinds=frozenset(DERIVED_KINDS),
                                                    include_superseded=True))
    hashes = {r.id: r.content_hash for r in records if isinstance(r, Fact)}
    rows: list[Any] = []
    for r in records:
        if isinstance(r, Fact):
            rows.append(["fact", r.content_hash, sorted(r.evidence),
                         r.supersede_reason.value if r.supersede_reason else None,
                         hashes.get(r.superseded_by or "", r.superseded_by),
                         sorted(hashes.get(i, i) for i in r.merged_from)])
        elif isinstance(r, ThreadSummary):
            rows.append(["summary", r.id, r.content, r.evidence, r.watermark_seq, r.turn_count])
        elif isinstance(r, UserProfile):
            rows.append(["profile", r.id, r.content, sorted(hashes.get(s, s) for s in r.sources)])
        else:
            rows.append([r.kind.value, r.id, r.content, r.evidence])
    return sorted(rows, key=lambda row: json.dumps(row))


def fingerprint(rows: list[Any]) -> str:
    """SHA-256 (hex) of a snapshot."""
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
