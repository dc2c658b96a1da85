"""The remote client: :class:`RemoteMemory`, the API of :class:`~agent_memory.AsyncMemory`
over the REST service (``agent-memory serve``, :mod:`agent_memory.service`).

Turns, threads, records, search and the pipeline steps live here; sessions and fact
retrieval in :mod:`._sessions`; recall, history, reconciliation, collections, jobs and
forgetting in :mod:`._consistency`. Every method has the name, arguments and return type of
its :class:`~agent_memory.AsyncMemory` counterpart (the JSON parsed into the library's
models) and raises the same typed errors; :data:`PROCESS_LOCAL` lists the few methods that
only make sense beside the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Self, Unpack

from pydantic import TypeAdapter

from ..errors import InvalidInputError, RecordNotFoundError
from ..filters import FilterArgs, MemoryFilter
from ..models import AnyRecord, MemoryRecord, Role, ThreadSummary, Turn, UserProfile
from ..pipeline import StepResult
from ..retrieval.hits import Hit, SearchMode
from ..stores.paging import Page
from ..turns import TurnInput
from ..validation import MAX_K
from ._consistency import ConsistencyRoutes
from ._http import HttpClient
from ._sessions import SessionsRoutes

TURN = TypeAdapter(Turn)
TURNS = TypeAdapter(list[Turn])
RECORD = TypeAdapter(AnyRecord)
HITS = TypeAdapter(list[Hit])
STEP = TypeAdapter(StepResult)

PROCESS_LOCAL: dict[str, str] = {
    "session_keeper": "a MemoryKeeper works on the store in its own process; use the "
                      "session methods (start_session, add_session_turn, ...)",
    "run_jobs": "the job worker runs beside the store (agent-memory worker)",
    "start_worker": "the job worker runs beside the store (agent-memory worker)",
    "stop_worker": "the job worker runs beside the store (agent-memory worker)",
    "flush_session_embeddings": "the service embeds pending session turns before each search",
    "validate_turns": "checked by the service against its own limits; add_turns checks the "
                      "whole batch before it writes anything",
    "set_structured_profile": "the profile model is a Python type of the serving process",
}
"""Coroutine methods of :class:`~agent_memory.AsyncMemory` that :class:`RemoteMemory` does
not have, with the reason (the API test checks every other one is present and compatible)."""


def _value(option: Any) -> Any:
    return getattr(option, "value", option)


def _turn_body(item: TurnInput | Turn | Mapping[str, Any]) -> dict[str, Any]:
    """A turn as the fields of a REST batch item (``user_id`` included, removed later)."""
    if isinstance(item, Turn):
        fields = item.model_dump(include={"user_id", "thread_id", "agent_id", "role",
                                          "speaker", "content", "created_at", "metadata",
                                          "id", "seq"})
        if item.seq < 0:
            fields.pop("seq")
        return fields
    if isinstance(item, TurnInput):
        return item.model_dump(exclude_unset=True)
    if not isinstance(item, Mapping):
        raise InvalidInputError(f"a turn must be a TurnInput, Turn or mapping, not "
                                f"{type(item).__name__}")
    return dict(item)


class RemoteMemory(SessionsRoutes, ConsistencyRoutes):
    """Memory for agents over HTTP: the :class:`~agent_memory.AsyncMemory` API, served by
    ``agent-memory serve``. Swap one for the other with no other change::

        memory = RemoteMemory("http://127.0.0.1:8080", api_key=os.environ["AGENT_MEMORY_KEY"])
        provider = AgentMemoryProvider(memory, user_id="alice")

    Args:
        base_url: the service's root URL.
        api_key: an API key (``agent-memory keys create``), sent as a Bearer token.
        headers: extra headers on every request (e.g. a gateway's).
        timeout: seconds per request (default 60: pipeline steps call the reasoner).
        retries: extra attempts after a transport error; idempotent calls only, except
            when the connection could not be opened (see :mod:`._http`).
        backoff: seconds before the first retry, doubled for each further one.
        transport: an httpx transport (default: HTTP over the network).

    Raises:
        ConfigError: a negative ``retries`` / ``backoff`` or a non-positive ``timeout``.
    """

    def __init__(self, base_url: str, *, api_key: str | None = None,
                 headers: Mapping[str, str] | None = None, timeout: float = 60.0,
                 retries: int = 2, backoff: float = 0.1, transport: Any = None) -> None:
        self.base_url = base_url
        self.http = HttpClient(base_url, api_key=api_key, headers=headers, timeout=timeout,
                               retries=retries, backoff=backoff, transport=transport)

    async def connect(self) -> None:
        """Check the service answers and its store is ready (``GET /readyz``).

        Raises:
            ServiceError: the service cannot be reached. StoreError: its store is down.
        """
        await self.http.call("GET", "/readyz", idempotent=True)

    async def close(self) -> None:
        """Close the connection pool. Safe to call twice."""
        await self.http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- turns ---------------------------------------------------------------------------

    async def add_turns(self, items: Iterable[TurnInput | Turn | Mapping[str, Any]]) -> list[Turn]:
        """Store turns of one user in one atomic batch (``POST /v1/users/{u}/turns``).

        Returns:
            The stored turns (ids and ``seq`` assigned).

        Raises:
            InvalidInputError: turns of several users (the service's batches are per user:
                atomic across users only in process), or no turns; the errors of
                :meth:`AsyncMemory.add_turns`, answered by the service.
        """
        bodies = [_turn_body(item) for item in items]
        users = {body.get("user_id") for body in bodies}
        if not bodies or len(users) != 1:
            raise InvalidInputError("add_turns over the service takes the turns of exactly "
                                    "one user; call it once per user")
        user_id = str(users.pop())
        for body in bodies:
            body.pop("user_id")
        idempotent = all(body.get("id") for body in bodies)  # an id makes a re-add a no-op
        return await self.http.call("POST", self.user_path(user_id, "turns"),
                                    json={"turns": bodies}, idempotent=idempotent, into=TURNS)

    async def add_turn(
        self,
        user_id: str,
        thread_id: str,
        role: str | Role,
        content: str,
        **fields: Any,
    ) -> Turn:
        """Store one turn; ``fields``: speaker, agent_id, created_at, metadata, id, seq.
        Retried after a transport error only when it has an ``id``."""
        body = {"role": _value(role), "content": content, **fields}
        return await self.http.call(
            "POST", self.user_path(user_id, "threads", thread_id, "turns"), json=body,
            idempotent=bool(fields.get("id")), into=TURN)

    async def get_thread(self, user_id: str, thread_id: str, k: int | None = None) -> list[Turn]:
        """The turns of a thread in order; with ``k``, only the last ``k``."""
        return await self.http.call(
            "GET", self.user_path(user_id, "threads", thread_id, "turns"),
            params={"k": k} if k is not None else None, idempotent=True, into=TURNS)

    async def threads(self, user_id: str) -> list[str]:
        """Ids of the user's threads that have turns, in order of first turn."""
        return await self.http.call("GET", self.user_path(user_id, "threads"), idempotent=True)

    # -- records -------------------------------------------------------------------------

    async def get_memories(
        self,
        user_id: str,
        *,
        filter: MemoryFilter | None = None,
        newest_first: bool = False,
        limit: int | None = None,
        **filters: Unpack[FilterArgs],
    ) -> list[MemoryRecord]:
        """The user's records matching the filters (a
        :class:`~agent_memory.filters.MemoryFilter`, or its fields as keywords over it): the
        pages of :meth:`get_memories_page` (``MAX_K`` records each) joined, or one page of
        ``limit``; ``as_of``: the facts and insights valid at that time (other kinds are not
        bounded by it)."""
        selected = MemoryFilter.build(filter, filters)
        records: list[MemoryRecord] = []
        cursor: str | None = None
        while True:
            page = await self.get_memories_page(
                user_id, filter=selected, newest_first=newest_first, limit=limit or MAX_K,
                cursor=cursor)
            records += page.records
            cursor = page.cursor
            if cursor is None or limit is not None:
                return records

    async def get_memories_page(
        self,
        user_id: str,
        *,
        filter: MemoryFilter | None = None,
        newest_first: bool = False,
        limit: int = 100,
        cursor: str | None = None,
        **filters: Unpack[FilterArgs],
    ) -> Page:
        """One page of records (``GET /v1/users/{u}/memories``, keyset paging; the filter as
        query parameters)."""
        params: dict[str, Any] = {
            **MemoryFilter.build(filter, filters).to_query(),
            "newest_first": newest_first, "limit": limit, "cursor": cursor,
        }
        body = await self.http.call(
            "GET", self.user_path(user_id, "memories"), idempotent=True,
            params={name: value for name, value in params.items() if value is not None})
        return Page(records=[RECORD.validate_python(r) for r in body["records"]],
                    cursor=body.get("cursor"))

    async def get_summary(self, user_id: str, thread_id: str) -> ThreadSummary | None:
        """The thread's summary, or ``None`` before ``generate_thread_summary`` ran."""
        try:
            body = await self.http.call(
                "GET", self.user_path(user_id, "threads", thread_id, "summary"),
                idempotent=True)
        except RecordNotFoundError:
            return None
        return ThreadSummary.model_validate(body)

    async def get_profile(self, user_id: str, subject: str | None = None) -> UserProfile | None:
        """A person's profile (``subject``: their name; ``None`` for the user), or ``None``
        when there is none; see :meth:`AsyncMemory.get_profile`."""
        try:
            body = await self.http.call("GET", self.user_path(user_id, "profile"),
                                        params={"subject": subject} if subject else None,
                                        idempotent=True)
        except RecordNotFoundError:
            return None
        return UserProfile.model_validate(body)

    # -- search and pipeline -------------------------------------------------------------

    async def search(
        self,
        user_id: str,
        query: str,
        *,
        mode: SearchMode | str = SearchMode.HYBRID,
        k: int = 10,
        filter: MemoryFilter | None = None,
        **filters: Unpack[FilterArgs],
    ) -> list[Hit]:
        """Vector, full-text or hybrid (RRF) search (``POST /v1/users/{u}/search``; the
        filter, a :class:`~agent_memory.filters.MemoryFilter` or its fields as keywords, in
        the body)."""
        body = {"query": query, "mode": _value(mode), "k": k,
                **MemoryFilter.build(filter, filters).to_json()}
        return await self.http.call("POST", self.user_path(user_id, "search"), json=body,
                                    idempotent=True, into=HITS)

    async def generate_thread_summary(self, user_id: str, thread_id: str, **kw: Any) -> StepResult:
        """Run the incremental thread-summary step on the service (idempotent).

        Raises:
            InvalidInputError: step options in ``kw`` (the service runs the step as
                configured).
        """
        self._no_step_options(kw)
        return await self.http.call(
            "POST", self.user_path(user_id, "threads", thread_id, "summary"),
            idempotent=True, into=STEP)

    async def extract_facts(self, user_id: str, thread_id: str, **kw: Any) -> StepResult:
        """Run fact extraction on the service (idempotent: exact dedup, watermarks).

        Raises:
            InvalidInputError: step options in ``kw``.
        """
        self._no_step_options(kw)
        return await self.http.call(
            "POST", self.user_path(user_id, "threads", thread_id, "facts"),
            idempotent=True, into=STEP)

    async def generate_user_summary(self, user_id: str) -> StepResult:
        """Run the incremental cross-thread profile step on the service."""
        return await self.http.call("POST", self.user_path(user_id, "profile"),
                                    idempotent=True, into=STEP)

    async def process_thread(self, user_id: str, thread_id: str) -> list[StepResult]:
        """Thread summary then fact extraction for one thread."""
        return [await self.generate_thread_summary(user_id, thread_id),
                await self.extract_facts(user_id, thread_id)]

    @staticmethod
    def _no_step_options(kw: Mapping[str, Any]) -> None:
        if kw:
            raise InvalidInputError(f"step options {sorted(kw)} are not available over the "
                                    "service; it runs each step as configured")


__all__ = ["PROCESS_LOCAL", "RemoteMemory"]
