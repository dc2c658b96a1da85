"""The tool schemas a model reads: written for it, free of developer markup and internal
references, in every tool's input and output schema as the server publishes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_memory import AsyncMemory, Settings
from agent_memory.service.mcp import build_mcp_server
from agent_memory.service.mcp_schema import MARKUP, for_model, markup_in
from agent_memory.service.mcp_tools import TOOLS, SearchInput


@pytest.fixture
async def listed(tmp_path: Path):
    memory = AsyncMemory(Settings.load(store=str(tmp_path / "m.db")))
    try:
        yield await build_mcp_server(memory, user_id="u").list_tools()
    finally:
        await memory.close()


@pytest.mark.parametrize("text", [":class:`~agent_memory.models.Fact`", ":func:`x`",
                                  ":meth:`AsyncMemory.search`", "``content``", "seed 004"])
def test_the_markup_check_catches_each_form(text):
    assert MARKUP.search(text)
    assert markup_in({"a": [{"description": f"see {text}"}]}) == [f"see {text}"]


async def test_no_tool_schema_carries_markup_or_internal_references(listed):
    assert {t.name for t in listed} == {spec.name for spec in TOOLS}
    for tool in listed:
        published = tool.model_dump(exclude_none=True)
        assert markup_in(published) == [], tool.name
        assert "seed 0" not in json.dumps(published)


async def test_every_model_and_argument_is_described_for_the_model(listed):
    for tool in listed:
        assert len(tool.description) > 60, tool.name  # what it does and when to call it
        for name, prop in tool.input_schema.get("properties", {}).items():
            assert prop.get("description") or "$ref" in prop or "items" in prop, (tool.name, name)
    (add,) = [t for t in listed if t.name == "add_memories"]
    memory_input = add.input_schema["$defs"]["MemoryInput"]
    assert memory_input["description"] == "One thing to remember about the user."
    assert all(p.get("description") for p in memory_input["properties"].values())


def test_the_rewrite_leaves_its_input_alone():
    schema = SearchInput.model_json_schema()
    before = json.dumps(schema, sort_keys=True)
    out = for_model(schema)
    assert json.dumps(schema, sort_keys=True) == before
    assert "description" not in out  # the input model's docstring is not published
    assert markup_in(schema) and not markup_in(out)


async def test_search_as_of_says_it_bounds_facts_and_insights_only(listed):
    (search,) = [t for t in listed if t.name == "search"]
    text = search.input_schema["properties"]["as_of"]["description"]
    assert text.startswith("Facts and insights: only those that were true at this time")
    assert "does not limit messages, summaries or the profile" in text and "until" in text
