"""Session commands: ``chat`` (an interactive memory session), ``context``, ``reflect``,
``ask``.

``chat --user U`` reads lines from stdin: plain text (or ``user: ...``) is a user turn,
``assistant: ...`` (or ``a: ...``) an assistant turn; ``/context`` prints the current context,
``/end`` ends the session and prints its summary and reflection, ``/quit`` leaves without
ending (the session can be resumed later with ``--session``).
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from typing import Annotated

import typer
from rich.markup import escape
from rich.panel import Panel

from ..errors import ConfigError, InvalidInputError
from .options import StoreOpt, UserOpt, reading
from .render import console, err_console

CHAT_COMMANDS = ("/context", "/end", "/quit")
"""The commands of ``chat``; any other line starting with "/" is refused, not stored."""
SessionOpt = Annotated[str | None, typer.Option("--session", help="Session (thread) id.")]
ProfileModelOpt = Annotated[str | None, typer.Option(
    "--profile-model", help="Structured profile model as module:Class "
    "(e.g. examples.financial_profile:FinancialClientProfile).")]


def _memory(store: str | None, *, read_only: bool = False):
    """The client of ``store``; ``read_only``: the store must exist (:func:`.options.reading`)."""
    from ..client import AsyncMemory
    from ..config import Settings

    if read_only:
        return AsyncMemory.open(reading(store))
    return AsyncMemory.open(Settings.load(store=str(store) if store else None))


def _import(module_name: str):
    """Import ``module_name``; a module of the current directory too (an installed script,
    unlike ``python -m``, does not put it on ``sys.path``), as uvicorn does for its apps."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        here = os.getcwd()
        if here in sys.path or not exc.name or not (
                module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise
        sys.path.insert(0, here)
        return importlib.import_module(module_name)


def load_profile_model(spec: str | None):
    """Import ``module:Class`` (from the installed packages or the current directory);
    raises ConfigError when it cannot be imported or is not a pydantic model."""
    if not spec:
        return None
    module_name, _, attr = spec.partition(":")
    try:
        model = getattr(_import(module_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"cannot load profile model {spec!r}: {exc}") from exc
    from pydantic import BaseModel

    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise ConfigError(f"{spec!r} is not a pydantic model class")
    return model


def _print_end(ended) -> None:
    record = ended.session
    console.print(Panel(record.content, title=f"session {record.thread_id} summary",
                        subtitle=f"{record.turn_count} turns; topics: "
                                 f"{', '.join(record.key_topics)}"))
    flag = ended.reflection.reflection_flag
    console.print(f"reflection: [bold]{flag}[/] "
                  f"({ended.reflection.below_threshold} under the confidence threshold)")
    for fact in ended.reflection.insights:
        console.print(f"  - {escape('[' + str(fact.category) + ']')} {escape(fact.content)} "
                      f"(confidence {fact.confidence:.2f}, importance {fact.importance})")
    if ended.aggregation is not None:
        console.print(f"aggregated {len(ended.aggregation.session_ids)} no-insight sessions: "
                      f"{len(ended.aggregation.insights)} insights")


def register(app: typer.Typer) -> None:
    """Add chat, context, reflect and ask to ``app``."""
    from .commands import handles_errors

    @app.command()
    @handles_errors
    def chat(user: UserOpt, session: SessionOpt = None, store: StoreOpt = None) -> None:
        """An interactive memory session: type turns, /context, /end, /quit."""

        async def run() -> None:
            async with _memory(store) as memory:
                sid = await memory.start_session(user, session)
                console.print(f"session [bold]{sid}[/] for user {user!r}. Type turns; "
                              f"'assistant: ...' for agent turns; {', '.join(CHAT_COMMANDS)}.")
                while True:
                    try:
                        line = input("> ").strip()
                    except EOFError:
                        line = "/end"
                    if not line:
                        continue
                    if line == "/quit":
                        return
                    if line == "/context":
                        console.print(await memory.get_current_context(user, sid), markup=False)
                        continue
                    if line == "/end":
                        _print_end(await memory.end_session(user, sid))
                        return
                    if line.startswith("/"):  # "user: /path" stores such a line as a turn
                        err_console.print(f"unknown command {line.split()[0]!r}: use "
                                          f"{', '.join(CHAT_COMMANDS)}", markup=False)
                        continue
                    role, sep, text = line.partition(":")
                    if sep and role.strip().lower() in ("user", "assistant", "a", "u"):
                        role = {"a": "assistant", "u": "user"}.get(role.strip().lower(),
                                                                   role.strip().lower())
                    else:
                        role, text = "user", line
                    try:
                        await memory.add_session_turn(user, sid, role, text.strip())
                    except InvalidInputError as exc:  # nothing stored; the session goes on
                        err_console.print(f"not stored: {type(exc).__name__}: {exc}",
                                          markup=False)
                        continue
                    state = await memory.session_state(user, sid)
                    console.print(f"[dim]stored ({len(state.buffered)} buffered)[/]")

        asyncio.run(run())

    @app.command()
    @handles_errors
    def context(user: UserOpt, session: Annotated[str, typer.Option(
            "--session", help="Session (thread) id.")], store: StoreOpt = None) -> None:
        """Print a session's current memory context (resumes it from the store)."""

        async def run() -> None:
            async with _memory(store, read_only=True) as memory:
                console.print(await memory.get_current_context(user, session), markup=False)

        asyncio.run(run())

    @app.command()
    @handles_errors
    def reflect(user: UserOpt, store: StoreOpt = None, profile_model: ProfileModelOpt = None,
                session_only: Annotated[bool, typer.Option(
                    "--sessions-only", help="Skip long-term reflection.")] = False) -> None:
        """Reflect on pending sessions, then merge new insights into the profile."""
        model = load_profile_model(profile_model)

        async def run() -> None:
            async with _memory(store) as memory:
                for result in await memory.reflect_pending_sessions(user):
                    console.print(f"sessions {', '.join(result.session_ids)}: "
                                  f"{result.reflection_flag}, {len(result.insights)} insights")
                if session_only:
                    return
                update = await memory.run_longterm_reflection(user, model)
                if not update.changed:
                    err_console.print("no new insights; profile unchanged")
                    return
                profile = update.profile
                assert profile is not None
                console.print(Panel(profile.content, title=profile.id,
                                    subtitle=f"{len(update.merged)} insights merged"))
                if profile.structured:
                    console.print_json(data=profile.structured)

        asyncio.run(run())

    @app.command()
    @handles_errors
    def ask(query: Annotated[str, typer.Argument(help="What the agent wants to know.")],
            user: UserOpt, store: StoreOpt = None) -> None:
        """Contextual fact retrieval: facts about the user, with their sources."""

        async def run() -> None:
            async with _memory(store, read_only=True) as memory:
                console.print(await memory.retrieve_facts(user, query), markup=False)

        asyncio.run(run())
