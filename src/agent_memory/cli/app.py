"""The ``agent-memory`` command line (typer + rich).

Commands: ingest, search, memories, summary, profile, demo, eval locomo, eval locomo-memory, model
export. Every command takes ``--store SPEC`` (a SQLite path or a registered ``scheme://...``;
or ``AGENT_MEMORY_STORE``) and ``--user``, both defined once in :mod:`.options`; errors of ours
print one clear line and exit 2.
"""

from __future__ import annotations

import asyncio
import functools
import json
from enum import StrEnum
from importlib import import_module
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.panel import Panel

from ..config import Settings
from ..errors import AgentMemoryError
from ..filters import MemoryFilter
from .options import StoreOpt, UserOpt, filter_options
from .reasoner_options import (
    ReasonerApiKeyOpt,
    ReasonerBaseUrlOpt,
    ReasonerOpt,
    ResponseFormatOpt,
    TimeoutOpt,
    reasoner_overrides,
)
from .render import console, err_console, hits_table

app = typer.Typer(
    name="agent-memory",
    help="Memory for LLM agents: store turns, distil summaries and facts, search them.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
eval_app = typer.Typer(help="Measure retrieval quality on public benchmarks.", no_args_is_help=True)
model_app = typer.Typer(help="Manage the local embedding model.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")
app.add_typer(model_app, name="model")



class Format(StrEnum):
    """Input formats of ``ingest``."""

    locomo = "locomo"
    jsonl = "jsonl"


class Mode(StrEnum):
    """Ranking modes of ``search`` and ``eval``."""

    vector = "vector"
    text = "text"
    hybrid = "hybrid"


def _settings(store: str | None, **overrides: Any) -> Settings:
    return Settings.load(store=str(store) if store else None, **overrides)


def handles_errors(func):
    """Turn our errors into one line on stderr, ``error: <ErrorClass>: <message>`` (newlines
    in the message folded, never wrapped, no traceback), and exit code 2. Every command is
    wrapped (``tests/cli`` checks it through :data:`HANDLES_ERRORS`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except AgentMemoryError as exc:
            message = str(exc).replace("\r", " ").replace("\n", " ")
            err_console.print(f"error: {type(exc).__name__}: {message}", style="red",
                              markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None

    setattr(wrapper, HANDLES_ERRORS, True)
    return wrapper


HANDLES_ERRORS = "__agent_memory_handles_errors__"
"""Attribute :func:`handles_errors` sets on the commands it wraps."""


@app.command()
@handles_errors
def ingest(
    path: Annotated[Path, typer.Argument(help="File to ingest.", exists=True, dir_okay=False)],
    format: Annotated[Format, typer.Option("--format", "-f", help="Input format.")] = Format.jsonl,
    store: StoreOpt = None,
    no_pipeline: Annotated[bool, typer.Option("--no-pipeline", help="Store turns only.")] = False,
    reasoner: ReasonerOpt = None,
    reasoner_base_url: ReasonerBaseUrlOpt = None,
    reasoner_api_key: ReasonerApiKeyOpt = None,
    reasoner_response_format: ResponseFormatOpt = None,
    reasoner_timeout: TimeoutOpt = None,
) -> None:
    """Ingest conversations (LoCoMo JSON or our JSON lines), then run the pipeline steps."""
    from .ingest import run_ingest

    settings = _settings(store, **reasoner_overrides(reasoner, reasoner_base_url,
                                                     reasoner_api_key, reasoner_response_format,
                                                     reasoner_timeout))
    run_ingest(path, format.value, settings, pipeline=not no_pipeline)


@app.command()
@handles_errors
@filter_options
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    user: UserOpt,
    filter: MemoryFilter,
    store: StoreOpt = None,
    mode: Annotated[Mode, typer.Option("--mode", help="Ranking.")] = Mode.hybrid,
    k: Annotated[int, typer.Option("-k", help="Number of hits.", min=1, max=1000)] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Search a user's memories: a table with scores per signal and provenance (the filter
    options are those of every read: --kind, --thread, --agent, --since, --until, --as-of,
    --include-superseded)."""
    from ..client import AsyncMemory

    async def run() -> None:
        async with AsyncMemory.open(_settings(store)) as memory:
            hits = await memory.search(user, query, mode=mode.value, k=k, filter=filter)
        if as_json:
            print(json.dumps([h.model_dump(mode="json") for h in hits], indent=2))
        else:
            console.print(hits_table(hits, title=f"{mode.value} search for {query!r} ({user})"))

    asyncio.run(run())


@app.command()
@handles_errors
def summary(
    user: UserOpt,
    thread: Annotated[str, typer.Option("--thread", "-t", help="The thread id.")],
    store: StoreOpt = None,
) -> None:
    """Show a thread's summary."""
    from ..client import AsyncMemory

    async def run() -> None:
        async with AsyncMemory.open(_settings(store)) as memory:
            found = await memory.get_summary(user, thread)
        if found is None:
            err_console.print(f"no summary for user {user!r}, thread {thread!r}")
            raise typer.Exit(1)
        console.print(Panel(found.content, title=found.id,
                            subtitle=f"topics: {', '.join(found.key_topics)}; "
                                     f"{found.turn_count} turns"))

    asyncio.run(run())


@app.command()
@handles_errors
def profile(
    user: UserOpt, store: StoreOpt = None,
    subject: Annotated[str | None, typer.Option(
        "--subject", help="Another person of the user's threads (e.g. the other speaker); "
                          "default the user.")] = None,
) -> None:
    """Show a person's cross-thread profile, per field, with the facts it came from."""
    from ..client import AsyncMemory

    async def run() -> None:
        async with AsyncMemory.open(_settings(store)) as memory:
            found = await memory.get_profile(user, subject=subject)
        if found is None:
            who = f"{subject!r} in the threads of user {user!r}" if subject else f"user {user!r}"
            err_console.print(f"no profile for {who}; run ingest or the pipeline first")
            raise typer.Exit(1)
        covers = (f"conversation time {found.covers_from:%Y-%m-%d} to "
                  f"{found.covers_until:%Y-%m-%d}, " if found.covers_from and found.covers_until
                  else "")
        console.print(Panel(found.content, title=f"{found.id} ({found.subject or 'the user'})",
                            subtitle=f"{covers}{len(found.sources)} current facts"))
        for field in found.fields:
            console.print(f"[bold]{field.name}[/]: facts {', '.join(field.facts)}")

    asyncio.run(run())


@app.command()
@handles_errors
def demo(
    store: Annotated[Path | None, typer.Option("--store", "-s", help="Keep the demo store "
                     "here (default: a temporary file).")] = None,
    reasoner: ReasonerOpt = None,
    reasoner_base_url: ReasonerBaseUrlOpt = None,
    reasoner_api_key: ReasonerApiKeyOpt = None,
    reasoner_response_format: ResponseFormatOpt = None,
    reasoner_timeout: TimeoutOpt = None,
    poison: Annotated[bool, typer.Option("--poison", help="Plant a prompt injection in the "
                      "first session and check at the end that no fact, insight, summary or "
                      "profile line carries it (exit status 1 if one does).")] = False,
) -> None:
    """Ingest a short financial-advice conversation end to end, then search it."""
    from .demo import demo as run_demo

    poisoned = run_demo(store, Settings.load(**reasoner_overrides(reasoner, reasoner_base_url,
                                                                  reasoner_api_key,
                                                                  reasoner_response_format,
                                                                  reasoner_timeout)),
                        poison)
    if poisoned:
        raise typer.Exit(1)


@eval_app.command("locomo")
@handles_errors
def eval_locomo(
    path: Annotated[Path, typer.Argument(help="LoCoMo JSON (e.g. locomo_dev.json).",
                                         exists=True, dir_okay=False)],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write results as JSON.")] = None,
    store: Annotated[Path | None, typer.Option("--store", "-s", help="Reuse/keep the store "
                     "here (default: a fresh temporary store).")] = None,
    mode: Annotated[Mode, typer.Option("--mode", help="Ranking.")] = Mode.hybrid,
    budget: Annotated[int | None, typer.Option("--budget", min=1, help="Also report the share "
                      "of questions whose evidence fits in a context of this many tokens.")] = None,
) -> None:
    """Turn-level evidence recall on LoCoMo (categories 1-4): recall_any@k and recall_all@k."""
    from .evaluate import run_eval

    run_eval(path, json_out, store, mode.value, budget)


@eval_app.command("locomo-memory")
@handles_errors
def eval_locomo_memory(
    path: Annotated[Path, typer.Argument(help="LoCoMo JSON (e.g. locomo_dev.json).",
                                         exists=True, dir_okay=False)],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write results as JSON.")] = None,
    store: Annotated[Path | None, typer.Option("--store", "-s", help="Reuse/keep the store "
                     "here (default: a fresh temporary store).")] = None,
    conversations: Annotated[int | None, typer.Option("--conversations", min=1, help="Only "
                             "the first N conversations.")] = None,
) -> None:
    """Derived facts, summaries and profiles against LoCoMo's reference observations and
    session summaries: fact recall/precision/attribution, compression, ROUGE, profile."""
    from .evaluate_memory import run_memory_eval

    run_memory_eval(path, json_out, store, conversations)


@model_app.command("export")
@handles_errors
def model_export(
    force: Annotated[bool, typer.Option("--force", help="Export again even if cached.")] = False,
    source: Annotated[Path | None, typer.Option(
        "--from", help="A sentence-transformers or Hugging Face model folder to export "
        "instead of the bundled model.", exists=True, file_okay=False)] = None,
    name: Annotated[str | None, typer.Option(
        "--name", help="Its name in local:<name> (default: the folder's name).")] = None,
    query_prefix: Annotated[str | None, typer.Option(
        "--query-prefix", help="Prefix of queries (default: the folder's prompts).")] = None,
    document_prefix: Annotated[str | None, typer.Option(
        "--document-prefix", help="Prefix of documents (default: the folder's prompts).")] = None,
) -> None:
    """Export an embedding model to ONNX (once; needs torch): the bundled all-MiniLM-L6-v2,
    or any model folder given with --from."""
    if source is None:
        from ..embedders.export import export_onnx

        path = export_onnx(force=force)
        console.print(f"ONNX model ready: {path}")
        return
    from ..embedders.export import read_manifest
    from ..embedders.folder import export_folder

    path = export_folder(source, name=name, force=force, query_prefix=query_prefix,
                         document_prefix=document_prefix)
    manifest = read_manifest(path)
    console.print(f"ONNX model ready: {path} ({manifest.get('dim')} dims)", markup=False)
    console.print(f"use it with: AGENT_MEMORY_EMBEDDER=local:{manifest.get('model')}",
                  markup=False)


# Feature command groups register themselves here (each module defines register(app)).
for _module in ("memories", "sessions", "maintenance", "recall", "setup", "serve", "mcp",
                "copy"):
    import_module(f"{__package__}.{_module}").register(app)


def main() -> None:
    """Entry point of the ``agent-memory`` script."""
    app()
