"""Tokens per hit of the MCP ``search`` tool, as the calling model reads them.

One LoCoMo dev conversation (``--sample``, default the first) is stored through the Python API
(turns only, no pipeline) in a fresh SQLite file; the MCP server
(:func:`agent_memory.service.mcp.build_mcp_server`) is reached in process through the official
MCP client. Over the conversation's questions (``--queries``, default 100), ``search`` runs with
``k`` = 10 (hybrid) and the text content of each result (what a client hands to the model) is
measured with :func:`agent_memory.tokens.count_tokens`, divided by the number of hits. It runs
with the default arguments and, when the tool has a ``detail`` argument, with ``detail=true``.
The tool schemas' size (every tool's name, description, input and output schema as JSON) is
printed too. Run it on two checkouts (``PYTHONPATH=<checkout>/src``) to compare them.

Usage::

    python bench/mcp_tokens.py [--queries 100] [--sample 0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

from _common import DEFAULT_LOCOMO
from mcp import Client

from agent_memory import AsyncMemory, Settings
from agent_memory.datasets.locomo import load_locomo
from agent_memory.embedders.local import LocalEmbedder
from agent_memory.service.mcp import build_mcp_server
from agent_memory.tokens import count_tokens


async def run(queries: int, sample_index: int) -> None:
    sample = load_locomo(DEFAULT_LOCOMO)[sample_index]
    user = sample.sample_id
    questions = [q.question for q in sample.questions][:queries]
    settings = Settings.load(store=str(Path(tempfile.mkdtemp()) / "memory.db"))
    async with AsyncMemory.open(settings, embedder=LocalEmbedder()) as memory:
        for session in sample.sessions:
            await memory.add_turns(session.turns)
        async with Client(build_mcp_server(memory, user_id=user)) as client:
            tools = (await client.list_tools()).tools
            schemas = json.dumps([t.model_dump(mode="json", exclude_none=True) for t in tools])
            print(f"{user}: {len(questions)} questions, k=10, hybrid; tool list "
                  f"{count_tokens(schemas)} tokens")
            (search,) = [t for t in tools if t.name == "search"]
            variants = [("default", {})]
            if "detail" in search.input_schema.get("properties", {}):
                variants.append(("detail=true", {"detail": True}))
            for name, extra in variants:
                tokens = hits = 0
                for question in questions:
                    result = await client.call_tool("search", {"query": question, "k": 10,
                                                               **extra})
                    assert not result.is_error, result.content
                    tokens += sum(count_tokens(c.text) for c in result.content)
                    hits += len(result.structured_content["hits"])
                print(f"{name:<12} {hits} hits  {tokens / hits:6.1f} tokens per hit  "
                      f"{tokens / len(questions):7.1f} per call")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--sample", type=int, default=0)
    args = parser.parse_args()
    if not DEFAULT_LOCOMO.exists():
        sys.exit(f"LoCoMo dev set not found at {DEFAULT_LOCOMO}")
    asyncio.run(run(args.queries, args.sample))


if __name__ == "__main__":
    main()
