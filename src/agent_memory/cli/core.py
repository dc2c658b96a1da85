"""The core commands: ingest, search, summary, profile, demo, ``eval locomo``,
``eval locomo-memory`` and ``model export`` (registered by :func:`register`, the
``core`` entry of the ``agent_memory.commands`` group)."""

from __future__ import annotations

import asyncio
import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.panel import Panel

from ..config import Settings
from ..filters import MemoryFilter
from .commands import handles_errors
from .options import StoreOpt, UserOpt, filter_options, reading
from .reasoner_options import (
    ReasonerApiKeyOpt,
    ReasonerBaseUrlOpt,
    ReasonerOpt,
    ResponseFormatOpt,
    TimeoutOpt,
    reasoner_overrides,
)
from .render import console, err_console, hits_table, short_id


def register(app: typer.Typer) -> None:
    """Add the core commands and the ``eval`` and ``model`` groups to ``app``."""
    for command in (ingest, search, summary, profile, demo):
        app.command()(command)
    eval_app = typer.Typer(help="Measure retrieval quality on public benchmarks.",
                           no_args_is_help=True)
    eval_app.command("locomo")(eval_locomo)
    eval_app.command("locomo-memory")(eval_locomo_memory)
    model_app = typer.Typer(help="Manage the local embedding model.", no_args_is_help=True)
    model_app.command("export")(model_export)
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
    """Search a user's memories: a table with scores per signal and provenance.

    The filter options are those of every read: --kind, --thread, --agent, --since, --until,
    --as-of, --include-superseded.
    """
    from ..client import AsyncMemory

    async def run() -> None:
        async with AsyncMemory.open(reading(store)) as memory:
            hits = await memory.search(user, query, mode=mode.value, k=k, filter=filter)
        if as_json:
            print(json.dumps([h.model_dump(mode="json") for h in hits], indent=2))
        else:
            console.print(hits_table(hits, title=f"{mode.value} search for {query!r} ({user})"))

    asyncio.run(run())


@handles_errors
def summary(
    user: UserOpt,
    thread: Annotated[str, typer.Option("--thread", "-t", help="The thread id.")],
    store: StoreOpt = None,
) -> None:
    """Show a thread's summary."""
    from ..client import AsyncMemory

    async def run() -> None:
        async with AsyncMemory.open(reading(store)) as memory:
            found = await memory.get_summary(user, thread)
        if found is None:
            err_console.print(f"no summary for user {user!r}, thread {thread!r}")
            raise typer.Exit(1)
        console.print(Panel(found.content, title=found.id,
                            subtitle=f"topics: {', '.join(found.key_topics)}; "
                                     f"{found.turn_count} turns"))

    asyncio.run(run())


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
        async with AsyncMemory.open(reading(store)) as memory:
            found = await memory.get_profile(user, subject=subject)
            others = [] if found else await memory.get_memories(user, kinds=["profile"])
        if found is None:
            who = f"{subject!r} in the threads of user {user!r}" if subject else f"user {user!r}"
            people = sorted({getattr(p, "subject", None) or "the user" for p in others})
            err_console.print(f"no profile for {who}; " + (
                f"profiles there: {', '.join(people)} (--subject NAME)" if people
                else "run ingest or the pipeline first"))
            raise typer.Exit(1)
        covers = (f"conversation time {found.covers_from:%Y-%m-%d} to "
                  f"{found.covers_until:%Y-%m-%d}, " if found.covers_from and found.covers_until
                  else "")
        console.print(Panel(found.content, title=f"{found.id} ({found.subject or 'the user'})",
                            subtitle=f"{covers}{len(found.sources)} current facts"))
        for field in found.fields:
            console.print(f"[bold]{field.name}[/]: facts "
                          f"{', '.join(short_id(f) for f in field.facts)}")

    asyncio.run(run())


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
