"""One :class:`MemoryFilter` through every surface: the Python client, the remote client against
the real service (uvicorn on a loopback port, a real SQLite store, the real local embedder) and
the CLI read the same records for the same filter, field by field; and every field of the
filter is exposed by every surface, so a field added without its wiring fails here."""

from __future__ import annotations

import asyncio
import inspect
import json
from datetime import UTC, datetime

import pytest
import typer
from typer.testing import CliRunner

from agent_memory import AsyncMemory, MemoryFilter, Settings
from agent_memory.cli.app import app as cli
from agent_memory.errors import InvalidScopeError, InvalidTimeError, UnknownOptionError
from agent_memory.filters import FILTER_FIELDS, FilterArgs, filter_fields
from agent_memory.models import Fact
from agent_memory.remote import RemoteMemory
from agent_memory.service import ServiceSettings, create_app
from agent_memory.service.mcp_tools import SearchInput
from agent_memory.service.schemas import MemoriesQuery, SearchBody

from .conftest import make_keys, serve

USER = "alice"
JAN_2024 = datetime(2024, 1, 10, tzinfo=UTC)
MARCH_2024 = datetime(2024, 3, 1, tzinfo=UTC)
JUNE_2024 = datetime(2024, 6, 15, tzinfo=UTC)
MAY_2025 = datetime(2025, 5, 1, tzinfo=UTC)
JUNE_2025 = datetime(2025, 6, 20, tzinfo=UTC)
BOSTON, PHARMACIST, PORTLAND = ("Kai lives in Boston.", "Kai works as a pharmacist.",
                                "Kai moved to Portland in May 2025.")

EXAMPLES = {
    "kinds": ["fact"],
    "thread_id": "t2",
    "agent_id": "coach",
    "since": MARCH_2024,
    "until": MARCH_2024,
    "include_superseded": True,
    "as_of": JUNE_2024,
}
"""A value of each filter field that filters the records of :func:`_records` (each one
changes what a read returns). A new field needs one here."""

runner = CliRunner()


async def _records(memory: AsyncMemory) -> None:
    """Turns in three threads (of the agents ``coach``, ``other`` and none) on three days,
    and Kai's facts reconciled: Boston retired by Portland from May 2025 on."""
    threads = [("t1", "coach", datetime(2024, 2, 1, tzinfo=UTC)),
               ("t2", "other", datetime(2024, 4, 1, tzinfo=UTC)),
               ("t3", None, datetime(2024, 5, 1, tzinfo=UTC))]
    await memory.add_turns([
        {"user_id": USER, "thread_id": thread, "agent_id": agent, "role": role,
         "content": f"{text} ({thread})", "created_at": day.replace(minute=i),
         "id": f"{thread}:{i}"}
        for thread, agent, day in threads
        for i, (role, text) in enumerate([("user", "Kai asked about the move to Portland."),
                                          ("assistant", "Moving house takes planning.")])])
    added = await memory.add_memories(USER, [
        {"content": BOSTON, "subject": "Kai", "created_at": JAN_2024},
        {"content": PHARMACIST, "subject": "Kai", "created_at": JAN_2024},
        {"content": PORTLAND, "subject": "Kai", "created_at": JUNE_2025, "valid_from": MAY_2025},
    ])
    assert not added.failed
    await memory.reconcile_memories(USER)
    facts = {f.content: f for f in await memory.get_memories(USER, include_superseded=True)
             if isinstance(f, Fact)}
    assert not facts[BOSTON].active and facts[PORTLAND].active


@pytest.fixture(scope="module")
def service(tmp_path_factory, local_embedder):
    """``(served service, store path)``: the service over a store holding :func:`_records`."""
    root = tmp_path_factory.mktemp("filters")
    store = str(root / "memory.db")
    settings = Settings.load(store=str(store))

    async def build() -> None:
        async with AsyncMemory.open(settings, embedder=local_embedder) as memory:
            await _records(memory)

    asyncio.run(build())
    keys, secrets = make_keys(root / "keys.db")
    app = create_app(settings, service=ServiceSettings.load(keys_path=str(root / "keys.db")),
                     memory=AsyncMemory(settings, embedder=local_embedder))
    running = serve(app, keys)
    running.secrets = secrets
    yield running, store
    running.stop()


@pytest.fixture
async def surfaces(service, local_embedder):
    """``(local client, remote client, store path)`` over the same store."""
    running, store = service
    async with AsyncMemory.open(Settings.load(store=store), embedder=local_embedder) as memory, \
            RemoteMemory(running.url, api_key=running.secrets["alice"]) as remote:
        yield memory, remote, store


def _cli_args(selected: dict) -> list[str]:
    """The command-line options of a filter, from each field's metadata."""
    args: list[str] = []
    for name, meta in filter_fields():
        if name not in selected:
            continue
        value = selected[name]
        if meta["value"] == "kinds":
            for kind in value:
                args += [meta["option"], kind]
        elif meta["value"] == "time":
            args += [meta["option"], value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")]
        elif meta["value"] == "flag":
            args += [meta["option"]] if value else []
        else:
            args += [meta["option"], value]
    return args


async def _cli(*args: str):
    """The CLI run in a worker thread (it runs its own event loop)."""
    return await asyncio.to_thread(runner.invoke, cli, list(args))


async def _cli_json(*args: str) -> object:
    result = await _cli(*args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_every_field_has_an_example() -> None:
    assert set(EXAMPLES) == set(FILTER_FIELDS), "give each filter field an example value"


CASES = [{name: value} for name, value in EXAMPLES.items()] + [
    {"kinds": ["fact"], "include_superseded": True, "as_of": JUNE_2024},
    {"kinds": ["turn"], "agent_id": "coach", "until": MARCH_2024},
]


@pytest.mark.parametrize("selected", CASES, ids=lambda c: "+".join(c))
async def test_the_same_filter_reads_the_same_records_on_every_surface(surfaces, selected):
    memory, remote, store = surfaces
    everything = [r.id for r in await memory.get_memories(USER)]
    value = MemoryFilter(**selected)
    local = [r.id for r in await memory.get_memories(USER, filter=value)]
    assert local and local != everything, f"{selected} filters nothing in this store"
    assert [r.id for r in await memory.get_memories(USER, **selected)] == local
    assert [r.id for r in await remote.get_memories(USER, filter=value)] == local
    assert [r.id for r in await remote.get_memories(USER, **selected)] == local
    page = await _cli_json("memories", "--user", USER, "--store", store, "--json",
                           "--limit", "1000", *_cli_args(selected))
    assert [r["id"] for r in page["records"]] == local and page["cursor"] is None

    query = "Kai moved to Portland"
    found = [h.record.id for h in await memory.search(USER, query, k=50, filter=value)]
    assert found and set(found) <= set(local)
    assert [h.record.id for h in await remote.search(USER, query, k=50, filter=value)] == found
    assert [h.record.id for h in await remote.search(USER, query, k=50, **selected)] == found
    hits = await _cli_json("search", query, "--user", USER, "--store", store, "--json",
                           "-k", "50", *_cli_args(selected))
    assert [h["record"]["id"] for h in hits] == found


async def test_keywords_override_the_filter_argument(surfaces):
    memory, remote, _ = surfaces
    base = MemoryFilter(kinds=["turn"], thread_id="t1")
    over = await memory.get_memories(USER, filter=base, thread_id="t2")
    assert {r.thread_id for r in over} == {"t2"} and {r.kind.value for r in over} == {"turn"}
    assert [r.id for r in await remote.get_memories(USER, filter=base, thread_id="t2")] == [
        r.id for r in over]
    with pytest.raises(TypeError, match="kind"):
        await memory.get_memories(USER, kind=["fact"])  # type: ignore[call-arg]


@pytest.mark.parametrize(("bad", "error"), [
    ({"kinds": ["nope"]}, UnknownOptionError),
    ({"thread_id": "t1 "}, InvalidScopeError),
    ({"since": "yesterday"}, InvalidTimeError),
])
async def test_a_bad_filter_is_the_same_typed_error_everywhere(surfaces, bad, error):
    memory, remote, store = surfaces
    with pytest.raises(error):
        MemoryFilter(**bad)
    with pytest.raises(error):
        await memory.get_memories(USER, **bad)
    with pytest.raises(error):
        await remote.get_memories(USER, **bad)
    with pytest.raises(error):
        await remote.search(USER, "Kai", **bad)
    if "since" not in bad:  # typer parses times itself
        result = await _cli("memories", "--user", USER, "--store", store, *_cli_args(bad))
        assert result.exit_code == 2 and error.__name__ in result.output


def _cli_options(command: str) -> set[str]:
    group = typer.main.get_command(cli)
    return {opt for p in group.commands[command].params for opt in getattr(p, "opts", ())}


def test_every_filter_field_is_exposed_by_every_surface(service) -> None:
    fields = set(FILTER_FIELDS)
    assert set(FilterArgs.__annotations__) == fields
    for client in (AsyncMemory, RemoteMemory):
        for method in ("get_memories", "get_memories_page", "search"):
            parameters = inspect.signature(getattr(client, method)).parameters
            assert parameters["filter"].annotation == "MemoryFilter | None", method
            assert parameters["filters"].annotation == "Unpack[FilterArgs]", method
    assert set(MemoryFilter(**EXAMPLES).to_json()) == fields  # the remote client's body
    queries = {meta["query"] or name for name, meta in filter_fields()}
    assert set(MemoryFilter(**EXAMPLES).to_query()) == queries  # ... and query parameters
    assert fields <= set(SearchBody.model_fields)
    assert queries <= set(MemoriesQuery.model_fields)
    with service[0].client("admin") as admin:
        document = admin.get("/openapi.json").json()
    listed = {p["name"] for p in document["paths"]["/v1/users/{user_id}/memories"]["get"]
              ["parameters"]}
    assert queries <= listed
    assert fields <= set(document["components"]["schemas"]["SearchBody"]["properties"])
    options = {meta["option"] for _, meta in filter_fields()}
    for command in ("search", "memories"):
        assert options <= _cli_options(command), command
    assert fields <= set(SearchInput.model_fields)  # the MCP search tool
