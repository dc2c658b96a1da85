"""Request and response bodies of the REST API that are not the library's own models.

Responses reuse the library's models where they are the shape (``Turn``, ``Hit``,
``RecallResult``, ``FactHistory``, ...). Request bodies mirror the client's keyword
arguments, with the same defaults; values are checked by the client itself, so a bad one
answers with the same typed error (as problem details) the Python API raises. Options the
client parses leniently (a turn's ``role`` accepts ``agent``; record kinds) are plain strings.
Types are strict where the document says ``integer``, ``number`` or ``boolean`` (``"10"`` or
``true`` for an integer is refused, never coerced) and a time is an ISO 8601 string.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
)

from ..errors import InvalidTimeError
from ..models import AnyRecord
from ..recall.scoring import RelevanceSource
from ..recall.strategies import Strategy
from ..retrieval.hits import SearchMode
from ..sessions.cfr import DEFAULT_MAX_ROUNDS
from ..validation import MAX_K, moment_input


def _time(value: Any) -> Any:
    if isinstance(value, datetime) or value is None:
        return value
    if not isinstance(value, str):  # JSON numbers are not times (seconds? milliseconds?)
        raise InvalidTimeError("a time must be an ISO 8601 string, not a number")
    return moment_input(value, "time")


Time = Annotated[datetime, BeforeValidator(_time)]
"""A time in a request: an ISO 8601 string only (a number is refused, never read as seconds
or milliseconds since the epoch)."""


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TurnBody(_Body):
    """A turn to add to the thread in the path (``id`` and ``seq`` assigned when omitted).

    ``role``: user, assistant (or agent), tool, system.
    """

    role: str
    content: str
    speaker: str | None = None
    agent_id: str | None = None
    created_at: Time | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    seq: StrictInt | None = None


class BatchTurn(TurnBody):
    """A turn of a batch: a :class:`TurnBody` naming its thread."""

    thread_id: str


class TurnBatch(_Body):
    """Turns of one user, stored in one atomic batch (all or nothing)."""

    turns: list[BatchTurn] = Field(min_length=1, max_length=MAX_K)


class SearchBody(_Body):
    """A search: the arguments of ``AsyncMemory.search``.

    ``kinds``: turn, summary, fact, interaction, insight, profile (default: every kind).
    ``as_of``: search the facts valid at that time (ISO 8601) instead of the current ones.
    """

    query: str
    mode: SearchMode = SearchMode.HYBRID
    k: StrictInt = 10
    kinds: list[str] | None = None
    thread_id: str | None = None
    agent_id: str | None = None
    since: Time | None = None
    until: Time | None = None
    include_superseded: StrictBool = False
    as_of: Time | None = None


class RecallBody(_Body):
    """A recall: the arguments of ``AsyncMemory.recall`` (seed 004 scoring)."""

    context: str
    agent_id: str | None = None
    collections: list[str] | None = None
    kinds: list[str] | None = None
    top_k_vectors: StrictInt = 10
    relevance_alpha: StrictFloat = 1.0
    importance_alpha: StrictFloat = 1.0
    recency_alpha: StrictFloat = 1.0
    min_score: StrictFloat = 0.0
    max_memories: StrictInt = 10
    strategy: Strategy = Strategy.HARD_LIMIT
    relevance: RelevanceSource = RelevanceSource.COSINE
    default_importance: StrictInt = 5
    update_access: StrictBool = True
    reduce_batch_size: StrictInt = 10
    summary_max_tokens: StrictInt = 300


class MemoriesBody(_Body):
    """Memories (facts or insights) to add in bulk; see ``AsyncMemory.add_memories``. Items
    are checked one by one: a bad one is reported in ``failed``, the others are written."""

    items: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_K)


class MemoryPage(BaseModel):
    """One page of records; pass ``cursor`` back for the next (``null`` on the last page)."""

    records: list[AnyRecord]
    cursor: str | None = None


class SessionStart(_Body):
    """Start (or resume) a session; a new ``session_<hex>`` id when ``session_id`` is omitted."""

    session_id: str | None = None
    agent_id: str | None = None


class SessionStarted(BaseModel):
    """The id of the started session."""

    session_id: str


class SessionTurnBody(_Body):
    """A turn to add to a session (``role``: user, assistant, tool, system)."""

    role: str
    content: str
    speaker: str | None = None
    created_at: Time | None = None
    metadata: dict[str, Any] | None = None


class SessionContext(BaseModel):
    """The session's context: init block + cumulative summary + active turns."""

    context: str


class RetrieveFactsBody(_Body):
    """Contextual fact retrieval: a question about the user; ``max_rounds`` 1-20."""

    query: str
    max_rounds: StrictInt = DEFAULT_MAX_ROUNDS


class ReconcileBody(_Body):
    """Reconcile the ``n`` most recent active facts (1-1,000)."""

    n: StrictInt = 50


class ForgetRecordsBody(_Body):
    """Hard-delete the user's records with these ids (any kind)."""

    ids: list[str] = Field(min_length=1, max_length=MAX_K)


class ExpireBody(_Body):
    """Delete the user's raw turns older than ``older_than_seconds``, or before ``before``
    (exactly one)."""

    older_than_seconds: StrictFloat | None = None
    before: Time | None = None


class Collections(_Body):
    """Collection names (non-blank)."""

    collections: list[str] = Field(max_length=MAX_K)


class Changed(BaseModel):
    """How many bindings were added or removed."""

    changed: int


class Health(BaseModel):
    """``status``: ``ok``."""

    status: str = "ok"
