"""Turns and threads of :class:`~agent_memory.AsyncMemory`: check, write (embedded and indexed,
in one atomic batch) and read a thread's turns (:class:`ThreadsAPI`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .. import validation as check
from ..errors import ConflictError
from ..indexing import build_indexed, previous_turns
from ..models import RecordKind, Role, Turn, require_scope
from ..stores.base import RecordQuery
from ..turns import TurnInput, as_turn_input
from .core import MemoryCore


class ThreadsAPI(MemoryCore):
    """Part of :class:`~agent_memory.AsyncMemory`: turns and threads."""

    if TYPE_CHECKING:  # the jobs mixin's hook (agent_memory.jobs.api.JobsAPI)
        async def _after_turns(self, turns: Sequence[Turn]) -> None: ...


    def validate_turn(self, item: TurnInput) -> None:
        """Check a turn before it is written.

        Raises:
            MissingScopeError, UnknownRoleError, EmptyContentError, ContentTooLargeError.
        """
        require_scope(item.user_id)
        require_scope(item.thread_id, "thread_id")
        check.optional_scope(item.agent_id, "agent_id")
        Role.parse(item.role)
        check.content(item.content, self.settings.max_content_chars, "turn content")
        if item.speaker is not None:
            check.text(item.speaker, "speaker")
        check.optional_moment(item.created_at, "created_at")
        check.optional_record_id(item.id, "turn id")
        check.metadata(item.metadata)
        if item.seq is not None:
            check.count(item.seq, "seq", minimum=0, maximum=2**62)

    async def validate_turns(
        self, items: Iterable[TurnInput | Turn | Mapping[str, Any]]
    ) -> list[TurnInput]:
        """Check turns exactly as :meth:`add_turns` does, without writing anything (a bulk
        ingest checks every turn before its first write this way).

        Returns:
            The turns as :class:`TurnInput`, in order.

        Raises:
            InvalidInputError (subclasses): the first bad turn, as :meth:`add_turns` would.
        """
        inputs = [as_turn_input(item) for item in items]
        for item in inputs:
            self.validate_turn(item)
        return inputs

    async def add_turns(self, items: Iterable[TurnInput | Turn | Mapping[str, Any]]) -> list[Turn]:
        """Store turns durably, embedded and indexed, in one atomic batch.

        Each turn without an explicit ``seq`` gets its thread's next one where the write
        commits, so concurrent writers (tasks, threads, processes) never share a position.

        A turn given with the ``id`` of a stored turn is a re-add. With the same thread, role,
        agent (``agent_id``) and content, and the same ``seq`` when one is given, it is
        idempotent: the turn keeps its ``seq`` and is written again as given (a retried call
        stores no copy, nor does the same turn given twice in one batch; ``speaker``,
        ``created_at`` and ``metadata`` are taken from the re-add). With another thread,
        role, agent, content or ``seq`` it is refused: an acknowledged turn is never moved,
        given to another agent or rewritten; store the new turn under a new id. Two calls
        adding the same new id at once (a retry whose first attempt committed in the
        meantime) both succeed when they carry the same turn: the one that loses the race
        reads the store again, once, and is a re-add.

        Returns:
            The stored :class:`Turn` records (ids and ``seq`` assigned).

        Raises:
            ConflictError: an explicit ``seq`` is already taken in its thread, or an ``id``
                names a stored record that is not the same turn (another thread, role, agent,
                content or ``seq``, or another kind of record; also two turns of the batch
                with one id that differ so); ``ids`` lists those ids. Nothing is written.
            MissingScopeError, EmptyContentError, ContentTooLargeError, UnknownRoleError:
                bad input; nothing is written (the whole batch is checked first).
        """
        items = list(items)
        try:
            return await self._write_turns(items, replace=False)
        except ConflictError:
            if not all(as_turn_input(item).id for item in items):
                raise
            # a concurrent call (a retry whose first attempt committed meanwhile) may have
            # created these ids between the read and the write; the batch wrote nothing, so
            # read again once: a turn now stored as given is done, the rest is written
            return await self._write_turns(items, replace=False, settled=True)

    async def _write_turns(
        self, items: Iterable[TurnInput | Turn | Mapping[str, Any]], *, replace: bool,
        settled: bool = False,
    ) -> list[Turn]:
        """:meth:`add_turns`; with ``replace``, a turn whose id is stored replaces the stored
        one whatever it held (the bulk ingest's update of turns edited between loads,
        :mod:`agent_memory.ingest`); with ``settled``, a turn stored already as given (same
        thread, role, agent and content) is returned as stored and not written again."""
        inputs = [as_turn_input(item) for item in items]
        for item in inputs:
            self.validate_turn(item)
        await self.connect()
        existing: dict[tuple[str, str], Turn] = {}
        others: dict[tuple[str, str], str] = {}  # ids held by records of another kind
        by_user: dict[str, list[str]] = {}
        for item in inputs:
            if item.id:
                by_user.setdefault(item.user_id, []).append(item.id)
        for user_id, ids in by_user.items():
            for record in await self.store.get(user_id, ids):
                if isinstance(record, Turn):
                    existing[(user_id, record.id)] = record
                else:
                    others[(user_id, record.id)] = str(record.kind)
        if not replace:
            _refuse_rewrites(inputs, existing, others)
        turns: list[Turn] = []
        done: dict[int, Turn] = {}  # input index -> the stored turn it already is
        first: dict[tuple[str, str], int] = {}  # id -> the batch's first turn with it
        repeats: dict[int, int] = {}  # input index -> the earlier index it repeats
        written: list[int] = []  # input indexes of ``turns``, in order
        for index, item in enumerate(inputs):
            key = (item.user_id, item.id or "")
            prior = existing.get(key) if item.id else None
            if item.id and key in first and not replace:  # the same turn twice: written once
                repeats[index] = first[key]
                continue
            if item.id:
                first[key] = index
            if settled and prior is not None:
                done[index] = prior
                continue
            written.append(index)
            if prior is not None:  # a re-add: same position, conditional replace
                seq = item.seq if item.seq is not None else prior.seq
                turns.append(item.to_turn(seq).model_copy(update={"etag": prior.etag}))
            else:  # -1: the store assigns the thread's next seq where the write commits
                turns.append(item.to_turn(item.seq if item.seq is not None else -1))
        previous = await self._previous_turns(turns)
        indexed = await build_indexed(turns, self.embedder, previous=previous,
                                      context_tokens=self.settings.turn_context_tokens)
        stored = [t for t in await self.store.put(indexed)
                  if isinstance(t, Turn)] if indexed else []
        await self._after_turns(stored)
        result = {**done, **dict(zip(written, stored, strict=True))}
        return [result[repeats.get(index, index)] for index in range(len(inputs))]

    async def _previous_turns(self, turns: Sequence[Turn]) -> dict[str, Turn]:
        """The turn each new turn is indexed with as its context (:mod:`.indexing`).

        Turns whose ``seq`` the store assigns at commit are placed, for this purpose only,
        after the thread's newest stored turn; under concurrent writers the context may be
        a turn committed just before or after (a retrieval aid, not the turn order).
        """
        if self.settings.turn_context_tokens <= 0:
            return {}
        tentative: list[Turn] = []
        next_seq: dict[tuple[str, str], int] = {}
        for turn in turns:
            if turn.seq >= 0:
                tentative.append(turn)
                continue
            key = (turn.user_id, turn.thread_id or "")
            if key not in next_seq:
                last = await self.store.list(turn.user_id, RecordQuery(
                    kinds=frozenset({RecordKind.TURN}), thread_id=turn.thread_id,
                    newest_first=True, limit=1))
                next_seq[key] = (last[0].seq + 1) if last else 0  # type: ignore[attr-defined]
            tentative.append(turn.model_copy(update={"seq": next_seq[key]}))
            next_seq[key] += 1
        return await previous_turns(tentative, self.store)

    async def add_turn(
        self,
        user_id: str,
        thread_id: str,
        role: str | Role,
        content: str,
        **fields: Any,
    ) -> Turn:
        """Store one turn; see :meth:`add_turns` (``fields``: speaker, agent_id, created_at,
        metadata, id, seq)."""
        return (await self.add_turns([dict(
            user_id=user_id, thread_id=thread_id, role=role, content=content, **fields
        )]))[0]

    async def get_thread(self, user_id: str, thread_id: str, k: int | None = None) -> list[Turn]:
        """The turns of a thread in order; with ``k``, only the last ``k``.

        Raises:
            MissingScopeError / InvalidScopeError: bad scope ids.
            InvalidNumberError: ``k`` is not from 1 to ``MAX_K`` (1,000).
        """
        user_id = require_scope(user_id)
        thread_id = require_scope(thread_id, "thread_id")
        k = check.optional_count(k, "k")
        await self.connect()
        query = RecordQuery(kinds=frozenset({RecordKind.TURN}), thread_id=thread_id,
                            newest_first=k is not None, limit=k)
        turns = [t for t in await self.store.list(user_id, query) if isinstance(t, Turn)]
        return sorted(turns, key=lambda t: (t.seq, t.created_at))


def _refuse_rewrites(
    inputs: Sequence[TurnInput], existing: Mapping[tuple[str, str], Turn],
    others: Mapping[tuple[str, str], str],
) -> None:
    """Raise :class:`ConflictError` when a turn's id names a stored record (or an earlier turn
    of the batch) that is not the same turn: another thread, role, agent, content or given
    ``seq``, or another kind of record."""
    seen: dict[tuple[str, str], TurnInput | Turn] = dict(existing)
    problems: list[str] = []
    ids: list[str] = []
    for item in inputs:
        if not item.id:
            continue
        key = (item.user_id, item.id)
        if key in others:
            problems.append(f"{item.id!r} is the id of a stored {others[key]}")
            ids.append(item.id)
            continue
        before = seen.get(key)
        if before is None:
            seen[key] = item
            continue
        changed = [name for name, old, new in (
            ("thread_id", before.thread_id, item.thread_id),
            ("role", Role.parse(before.role), Role.parse(item.role)),
            ("agent_id", before.agent_id, item.agent_id),
            ("content", before.content, item.content),
            ("seq", before.seq, item.seq if item.seq is not None else before.seq),
        ) if old != new]
        if changed and item.id not in ids:
            where = "is stored" if key in existing else "comes earlier in the batch"
            problems.append(f"turn {item.id!r} {where} with another {' and '.join(changed)}")
            ids.append(item.id)
    if problems:
        raise ConflictError(
            "a turn id names one turn; re-adding it must repeat its thread, role, agent and "
            "content, and its seq when one is given "
            f"(store a new turn under a new id); nothing was written: {'; '.join(problems)}",
            ids=ids)


__all__ = ["ThreadsAPI"]
