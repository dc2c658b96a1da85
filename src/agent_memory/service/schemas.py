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

from dataclasses import fields as dataclass_fields
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
    create_model,
)

from ..errors import InvalidTimeError
from ..filters import MemoryFilter
from ..filters import filter_fields as filter_field_specs
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


WIRE_TYPES: dict[str, tuple[Any, Any]] = {
    "kinds": (list[str] | None, list[str] | None),
    "id": (str | None, str | None),
    "time": (Time | None, Time | None),
    "flag": (StrictBool, bool),
}
"""The REST type of each kind of filter field (``agent_memory.filters.VALUE_KINDS``): in a JSON
body, then as a query parameter (a query's values are strings: ``true`` is a boolean there).
Kinds are plain strings, checked by the client with the Python API's typed error."""


def filter_fields(*, query: bool = False) -> dict[str, Any]:
    """The pydantic field definitions of :class:`~agent_memory.filters.MemoryFilter`'s fields,
    for :func:`pydantic.create_model`: named as in a JSON body, or (``query``) as query
    parameters (``kind`` for ``kinds``), each with its default and help text."""
    defaults = {f.name: f.default for f in dataclass_fields(MemoryFilter)}
    found: dict[str, Any] = {}
    for name, meta in filter_field_specs():
        body_type, query_type = WIRE_TYPES[meta["value"]]
        key = (meta["query"] or name) if query else name
        found[key] = (query_type if query else body_type,
                      Field(default=defaults[name], description=meta["help"]))
    return found


SearchBody = create_model(
    "SearchBody", __base__=_Body,
    __doc__=("A search: the arguments of ``AsyncMemory.search`` (the filter's fields are "
             "those of ``MemoryFilter``)."),
    query=(str, ...), mode=(SearchMode, SearchMode.HYBRID), k=(StrictInt, 10),
    **filter_fields())


class _MemoriesQuery(BaseModel):
    def filter(self) -> MemoryFilter:
        """The :class:`MemoryFilter` these query parameters give (checked there)."""
        return MemoryFilter(**{name: getattr(self, meta["query"] or name)
                               for name, meta in filter_field_specs()})


MemoriesQuery = create_model(
    "MemoriesQuery", __base__=_MemoriesQuery,
    __doc__=("The query parameters of ``GET .../memories``: the filter (``kind`` "
             "repeatable), the order, the page size (1-1,000) and the cursor."),
    **filter_fields(query=True), newest_first=(bool, False), limit=(int, 100),
    cursor=(str | None, None))


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
