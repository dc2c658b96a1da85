"""Scenario 1 (seed 001 section 6.1): long context conversation with memory retrieval.

Three past sessions (24 turns) are replayed through the memory keeper. A new session starts
with only the compact init block in context; the client asks about the 401k, and contextual
fact retrieval finds the relevant past interactions, insights and session summaries, with
their record ids and dates. The same question then goes through the advisor agent, which
calls the ``retrieve_user_facts`` tool.

Run: ``python examples/scenario_1_long_context.py [--store PATH]`` (offline).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from advisor_data import PAST_SESSIONS, USER, replay_past_sessions
from agent_framework import Agent

from agent_memory import AsyncMemory, Settings
from agent_memory.integrations.agent_framework import AgentMemoryProvider
from agent_memory.integrations.local_chat import LocalChatClient
from agent_memory.tokens import count_tokens

QUESTION = "What did we discuss about my 401k?"


async def main(store: Path) -> None:
    async with AsyncMemory.open(Settings.load(store=str(store))) as memory:
        await replay_past_sessions(memory)
        history = sum(count_tokens(f"{r}: {t}") for _s, _d, turns in PAST_SESSIONS
                      for r, t in turns)
        sid = await memory.start_session(USER)  # a new session on every run
        context = await memory.get_current_context(USER, sid)
        print(f"\nhistory so far: {history} tokens; context at session start: "
              f"{count_tokens(context)} tokens\n")
        print(f"client asks: {QUESTION}\n")
        result = await memory.retrieve_facts_detailed(USER, QUESTION)
        print("searches run:", ", ".join(f"{c.name}({c.arguments.get('category', '')})"
                                         for c in result.calls))
        print(await memory.retrieve_facts(USER, QUESTION))
        await memory.end_session(USER, sid)

        provider = AgentMemoryProvider(memory, USER)
        agent = Agent(LocalChatClient(), instructions="You are a financial advisor.",
                      context_providers=[provider])
        async with provider:
            reply = await agent.run(QUESTION, session=agent.create_session())
        print("\nthrough the agent (tool call):\n" + reply.text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(args.store or Path(tmp) / "demo.db"))
