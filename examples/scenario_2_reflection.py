"""Scenario 2 (seed 001 section 6.2): reflection-powered session initialization.

Past sessions are reflected on (session insights, or no-insight), long-term reflection merges
the insights into the profile, structured by :class:`FinancialClientProfile`. A fresh session
then starts with the profile and the two most recent session summaries in its context, and
the agent greets the client with what it remembers.

Run: ``python examples/scenario_2_reflection.py [--store PATH]`` (offline).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

from advisor_data import USER, replay_past_sessions
from agent_framework import Agent
from financial_profile import FinancialClientProfile

from agent_memory import AsyncMemory, Settings
from agent_memory.integrations.agent_framework import AgentMemoryProvider
from agent_memory.integrations.local_chat import LocalChatClient


async def main(store: Path) -> None:
    async with AsyncMemory.open(Settings.load(store=str(store))) as memory:
        await replay_past_sessions(memory, profile_model=FinancialClientProfile)
        print("\ninsights:")
        for fact in await memory.get_memories(USER, kinds=["insight"]):
            print(f"- [{fact.category}] {fact.content} (confidence {fact.confidence:.2f}, "
                  f"importance {fact.importance}, processed {fact.processed})")
        profile = await memory.get_profile(USER)
        print("\nstructured profile:")
        print(json.dumps(profile.structured, indent=2))

        provider = AgentMemoryProvider(memory, USER)
        client = LocalChatClient()
        agent = Agent(client, instructions="You are a financial advisor.",
                      context_providers=[provider])
        async with provider:
            session = agent.create_session()
            reply = await agent.run("Hello!", session=session)
            print("\ncontext the model received at session start:\n")
            print(client.requests[-1][1]["instructions"])
            print(f"\nadvisor: {reply.text}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(args.store or Path(tmp) / "demo.db"))
