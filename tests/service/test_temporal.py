"""Valid time over the service: ``as_of`` on ``GET /memories`` and ``POST /search`` through
RemoteMemory and raw HTTP, the valid-time fields in REST records and MCP search hits."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_memory.remote import RemoteMemory
from agent_memory.service.mcp_tools import SearchInput
from agent_memory.service.mcp_tools import search as mcp_search

JAN_2024 = datetime(2024, 1, 10, tzinfo=UTC)
JUNE_2024 = datetime(2024, 6, 15, tzinfo=UTC)
MAY_2025 = datetime(2025, 5, 1, tzinfo=UTC)
JUNE_2025 = datetime(2025, 6, 20, tzinfo=UTC)
ITEMS = [
    {"content": "Kai lives in Boston.", "subject": "Kai", "created_at": JAN_2024},
    {"content": "Kai works as a pharmacist.", "subject": "Kai", "created_at": JAN_2024},
    {"content": "Kai moved to Portland in May 2025.", "subject": "Kai",
     "created_at": JUNE_2025, "valid_from": MAY_2025},
]
USER = "team-kai"


async def test_as_of_through_rest(served) -> None:
    async with RemoteMemory(served.url, api_key=served.secrets["team"]) as remote:
        added = await remote.add_memories(USER, ITEMS)
        assert not added.failed
        assert (await remote.reconcile_memories(USER)).contradicted == 1
        now = {r.content for r in await remote.get_memories(USER)}
        assert "Kai lives in Boston." not in now and "Kai moved to Portland in May 2025." in now
        then = await remote.get_memories(USER, as_of=JUNE_2024)
        assert {r.content for r in then} == {"Kai lives in Boston.",
                                             "Kai works as a pharmacist."}
        boston = next(r for r in then if "Boston" in r.content)
        assert (boston.valid_from, boston.valid_until) == (JAN_2024, MAY_2025)
        hits = await remote.search(USER, "Where does Kai live?", kinds=["fact"], k=3,
                                   as_of=JUNE_2024)
        assert hits[0].record.content == "Kai lives in Boston."
    with served.client("team") as http:
        body = http.get(f"/v1/users/{USER}/memories",
                        params={"as_of": "2024-06-15T00:00:00Z", "kind": "fact"}).json()
        assert {r["content"] for r in body["records"]} == {"Kai lives in Boston.",
                                                           "Kai works as a pharmacist."}
        assert {r["valid_until"] for r in body["records"]} == {"2025-05-01T00:00:00Z", None}
        bad = http.get(f"/v1/users/{USER}/memories", params={"as_of": "not a time"})
        assert bad.status_code == 422


async def test_mcp_search_takes_as_of_and_shows_valid_time(memory) -> None:
    assert not (await memory.add_memories("kai", ITEMS)).failed
    await memory.reconcile_memories("kai")
    past = await mcp_search(memory, "kai", SearchInput(query="Where does Kai live?",
                                                       kinds=["fact"], k=3, as_of=JUNE_2024,
                                                       detail=True))
    assert past.hits[0].text == "Kai lives in Boston."
    assert (past.hits[0].valid_from, past.hits[0].valid_until) == (JAN_2024, MAY_2025)
    now = await mcp_search(memory, "kai", SearchInput(query="Where does Kai live?",
                                                      kinds=["fact"], k=3, detail=True))
    assert now.hits[0].text == "Kai moved to Portland in May 2025."
    assert now.hits[0].valid_from == MAY_2025 and now.hits[0].valid_until is None
