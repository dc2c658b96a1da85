"""Consistency and processing commands: ``reconcile``, ``history``, ``restore``, ``worker``,
``forget``.

``worker`` runs queued jobs (thresholds ``AGENT_MEMORY_*_EVERY_N`` enqueue them as turns
arrive); several workers, in several processes, may serve one store file.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from ..errors import InvalidInputError, RecordNotFoundError
from ..validation import record_id
from .options import AsOfOpt, StoreOpt, UserOpt, reading
from .reasoner_options import (
    ReasonerApiKeyOpt,
    ReasonerBaseUrlOpt,
    ReasonerOpt,
    ResponseFormatOpt,
    TimeoutOpt,
    reasoner_overrides,
)
from .render import console, err_console, print_retired, short_id, text_table

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _memory(store: str | None, *, read_only: bool = False, **overrides: Any):
    """The client of ``store``; ``read_only``: the store must exist (:func:`.options.reading`)."""
    from ..client import AsyncMemory
    from ..config import Settings

    if read_only:
        return AsyncMemory.open(reading(store, **overrides))
    return AsyncMemory.open(Settings.load(store=str(store) if store else None, **overrides))


def _fact_line(fact) -> str:
    state = "active" if fact.active else f"{fact.supersede_reason.value} -> {fact.superseded_by}"
    return f"{fact.id} [{state}] {fact.content}"


def _valid_time(fact) -> str:
    """``2024-01-10 -> 2025-05-01`` (``-> now`` while the fact still holds)."""
    start = f"{fact.valid_from:%Y-%m-%d}" if fact.valid_from else "?"
    return f"{start} -> {fact.valid_until:%Y-%m-%d}" if fact.valid_until else f"{start} -> now"


_ID_HELP = ("The fact id, or the start of it as the tables show it (fact_8bd32b21) when that "
            "names one fact.")


async def _fact_id(memory: Any, user: str, given: str) -> str:
    """The id of the user's fact ``given`` names: itself, or the one fact or insight whose id
    starts with it (a table's short id; a trailing "…" is ignored).

    Raises:
        RecordNotFoundError: no fact's id is or starts with ``given``.
        InvalidInputError: ``given`` starts the ids of several facts.
    """
    given = record_id(given.strip().rstrip("\u2026"), "fact id")
    if await memory.store.get(user, [given]):
        return given
    ids = [r.id for r in await memory.get_memories(user, kinds=["fact", "insight"],
                                                   include_superseded=True)
           if r.id.startswith(given)] if len(given) >= 6 else []
    if len(ids) == 1:
        return ids[0]
    if not ids:
        raise RecordNotFoundError(f"no fact {given!r} for user {user!r}")
    raise InvalidInputError(f"{given!r} starts {len(ids)} fact ids ({', '.join(ids[:3])}"
                            f"{', ...' if len(ids) > 3 else ''}): give more of the id")


def register(app: typer.Typer) -> None:
    """Add the commands to ``app``."""
    from .commands import handles_errors

    @app.command()
    @handles_errors
    def reconcile(user: UserOpt, store: StoreOpt = None,
                  n: Annotated[int, typer.Option("-n", min=1, help="Pool size (most recent "
                                                 "active facts).")] = 50,
                  as_json: JsonOpt = False, reasoner: ReasonerOpt = None,
                  reasoner_base_url: ReasonerBaseUrlOpt = None,
                  reasoner_api_key: ReasonerApiKeyOpt = None,
                  reasoner_response_format: ResponseFormatOpt = None,
                  reasoner_timeout: TimeoutOpt = None) -> None:
        """Merge duplicate facts and retire contradicted ones (newer wins), list what was
        retired, and rebuild the user's profiles when a fact changed, so that they show only
        what holds now."""
        overrides = reasoner_overrides(reasoner, reasoner_base_url, reasoner_api_key,
                                       reasoner_response_format, reasoner_timeout)

        async def run():
            async with _memory(store, **overrides) as memory:
                result = await memory.reconcile_memories(user, n)
                profiles = (await memory.generate_user_summary(user)).written if (
                    result.written) else []
                if not as_json:
                    console.print(f"kept {result.kept}, merged {result.merged}, contradicted "
                                  f"{result.contradicted}")
                    await print_retired(memory.store, user, result, indent="  ")
                    if profiles:
                        console.print(f"profiles rebuilt: {', '.join(profiles)}")
                return result, profiles

        result, profiles = asyncio.run(run())
        if as_json:
            print(json.dumps({**result.model_dump(), "profiles": profiles}))

    @app.command()
    @handles_errors
    def facts(user: UserOpt, store: StoreOpt = None,
              as_of: AsOfOpt = None,
              limit: Annotated[int, typer.Option("--limit", min=1, max=1000)] = 100,
              as_json: JsonOpt = False) -> None:
        """List a user's facts and insights with their valid time (newest first)."""

        async def run():
            async with _memory(store, read_only=True) as memory:
                return await memory.get_memories(user, kinds=["fact", "insight"], as_of=as_of,
                                                 newest_first=True, limit=limit)

        found = asyncio.run(run())
        if as_json:
            print(json.dumps([f.model_dump(mode="json") for f in found], indent=2))
            return
        when = f"as of {as_of:%Y-%m-%d %H:%M}" if as_of else "current"
        table = text_table(f"facts of {user} ({when})", ["id", "valid", "state"])
        for fact in found:
            state = "active" if fact.active else (
                f"{fact.supersede_reason.value} -> {short_id(fact.superseded_by or '-')}")
            table.add_row(short_id(fact.id), _valid_time(fact), state,
                          " ".join(fact.content.split()))
        console.print(table)

    @app.command()
    @handles_errors
    def history(fact_id: Annotated[str, typer.Argument(help=_ID_HELP)], user: UserOpt,
                store: StoreOpt = None, as_json: JsonOpt = False) -> None:
        """Show what a fact replaced, what replaced it, and its audit events."""

        async def run():
            async with _memory(store, read_only=True) as memory:
                return await memory.history(user, await _fact_id(memory, user, fact_id))

        found = asyncio.run(run())
        if as_json:
            print(found.model_dump_json(indent=2))
            return
        console.print(_fact_line(found.fact), markup=False)
        for label, facts in (("replaced", found.replaced), ("replaced by", found.replaced_by)):
            for fact in facts:
                console.print(f"  {label}: {_fact_line(fact)}", markup=False)
        table = Table("at", "action", "reason", "why", "other facts")
        for event in found.events:
            why = event.evidence.get("rationale") or json.dumps(event.evidence)[:120]
            table.add_row(f"{event.at:%Y-%m-%d %H:%M}", event.action, event.reason or "",
                          Text(str(why)), ", ".join(event.ids))  # Text: never read as markup
        console.print(table)

    @app.command()
    @handles_errors
    def restore(fact_id: Annotated[str, typer.Argument(help=_ID_HELP)], user: UserOpt,
                store: StoreOpt = None) -> None:
        """Undo the decision that retired a fact (the undo is recorded; the fact is pinned)."""

        async def run():
            async with _memory(store, read_only=True) as memory:
                return await memory.restore(user, await _fact_id(memory, user, fact_id))

        console.print(f"restored {_fact_line(asyncio.run(run()))}", markup=False)

    @app.command()
    @handles_errors
    def worker(store: StoreOpt = None,
               until_idle: Annotated[bool, typer.Option("--until-idle", help="Exit when no "
                                                        "job is runnable.")] = False,
               lease: Annotated[float, typer.Option("--lease", min=0.1, help="Lease length "
                                                    "(seconds).")] = 60.0,
               max_attempts: Annotated[int, typer.Option("--max-attempts", min=1)] = 5,
               poll: Annotated[float, typer.Option("--poll", min=0.01, help="Idle poll "
                                                   "interval (seconds).")] = 1.0,
               change_feed: Annotated[bool, typer.Option(
                   "--change-feed", help="Also count new turns from the Cosmos DB change "
                   "feed (writers set turn_counting=change_feed).")] = False) -> None:
        """Run queued processing jobs (summaries, facts, profile, reconciliation).

        SIGINT (Ctrl-C) or SIGTERM stops the worker: the job in progress goes back to the
        queue (lease released, the attempt not counted) and the command exits with status 0.
        """
        from ..jobs import Worker, WorkerConfig, queue_for, run_until_signalled

        config = WorkerConfig(lease_seconds=lease, max_attempts=max_attempts, poll_seconds=poll)

        async def run():
            async with _memory(store) as memory:
                w = Worker(memory.components, queue_for(memory.store), config=config)

                def started() -> None:
                    err_console.print(f"worker {w.worker_id} started")

                if change_feed:
                    from ..jobs.changefeed import run_with_change_feed

                    outcomes = await run_with_change_feed(memory, w, until_idle=until_idle,
                                                          started=started)
                else:
                    outcomes = await run_until_signalled(w, until_idle=until_idle,
                                                         started=started)
                if w.interrupted:
                    err_console.print(f"worker {w.worker_id} stopped by a signal")
                return outcomes

        try:
            outcomes = asyncio.run(run())
        except KeyboardInterrupt:  # Ctrl-C while the store was still opening: nothing claimed
            raise typer.Exit(130) from None
        done = sum(o.state == "done" for o in outcomes)
        released = sum(o.state == "released" for o in outcomes)
        console.print(f"{len(outcomes)} jobs claimed, {done} done"
                      + (f", {released} released" if released else ""))

    @app.command()
    @handles_errors
    def forget(user: UserOpt, store: StoreOpt = None,
               thread: Annotated[str | None, typer.Option("--thread", "-t", help="Delete only "
                                                          "this thread.")] = None,
               turns_older_than: Annotated[float | None, typer.Option(
                   "--turns-older-than", help="Delete raw turns older than this many days "
                   "(time-to-live).")] = None,
               yes: Annotated[bool, typer.Option("--yes", help="Do not ask.")] = False) -> None:
        """Hard-delete a user's data, one thread, or raw turns past a time-to-live."""

        if thread and turns_older_than is not None:
            err_console.print("give --thread or --turns-older-than, not both")
            raise typer.Exit(2)
        what = (f"thread {thread!r} of {user!r}" if thread else
                f"turns older than {turns_older_than} days of {user!r}"
                if turns_older_than is not None else f"EVERYTHING of user {user!r}")
        if not yes and not typer.confirm(f"Delete {what}?"):
            raise typer.Exit(1)

        async def run():
            async with _memory(store) as memory:
                if thread:
                    return await memory.forget_thread(user, thread)
                if turns_older_than is not None:
                    return await memory.expire_turns(
                        user, older_than=turns_older_than * 86_400)  # days -> seconds
                return await memory.forget_user(user)

        report = asyncio.run(run())
        print(json.dumps(report.model_dump()))
