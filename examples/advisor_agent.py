"""A financial advisor agent with memory (Microsoft Agent Framework + agent-memory).

The agent gets the memory context in its instructions on every run and can call
``retrieve_user_facts``; every exchange is stored through the memory keeper.

Chat client: the real model when configured (needs ``pip install agent-framework-openai``):
``AZURE_OPENAI_ENDPOINT`` + ``AZURE_OPENAI_CHAT_DEPLOYMENT_NAME`` (key in
``AZURE_OPENAI_API_KEY``) or ``OPENAI_API_KEY`` (+ ``OPENAI_CHAT_MODEL_ID``, default
gpt-4o-mini); otherwise the offline :class:`~agent_memory.integrations.local_chat.LocalChatClient`.

Run: ``python examples/advisor_agent.py [--store PATH]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path

from advisor_data import USER, replay_past_sessions
from agent_framework import Agent

from agent_memory import AsyncMemory, Settings
from agent_memory.integrations.agent_framework import AgentMemoryProvider
from agent_memory.integrations.local_chat import LocalChatClient

INSTRUCTIONS = (
    "You are a careful financial advisor. Use what you know about the client from memory; "
    "call retrieve_user_facts when you need details from earlier sessions."
)


def chat_client():
    """The real chat client when the environment configures one, else the offline one."""
    try:
        if os.environ.get("AZURE_OPENAI_ENDPOINT"):
            from agent_framework.openai import OpenAIChatCompletionClient
            from openai import AsyncAzureOpenAI

            deployment = os.environ.get("AZURE_OPENAI_CHAT_DEPLOYMENT_NAME", "gpt-4o-mini")
            azure = AsyncAzureOpenAI(azure_endpoint=os.environ["AZURE_OPENAI_ENDPOINT"],
                                     api_version=os.environ.get("AZURE_OPENAI_API_VERSION",
                                                                "2024-10-21"))
            return OpenAIChatCompletionClient(model=deployment, async_client=azure)
        if os.environ.get("OPENAI_API_KEY"):
            from agent_framework.openai import OpenAIChatCompletionClient

            return OpenAIChatCompletionClient(
                model=os.environ.get("OPENAI_CHAT_MODEL_ID", "gpt-4o-mini"))
    except (ImportError, ModuleNotFoundError, TypeError) as exc:
        print(f"(real model unavailable: {exc}; using the offline client)")
    return LocalChatClient()


async def main(store: Path) -> None:
    async with AsyncMemory.open(Settings.load(store=str(store))) as memory:
        await replay_past_sessions(memory)
        provider = AgentMemoryProvider(memory, USER)
        agent = Agent(chat_client(), instructions=INSTRUCTIONS, context_providers=[provider])
        async with provider:  # ends the memory session (and reflects) on exit
            session = agent.create_session()
            for question in ("Hi, it's Dana again.",
                             "What did we discuss about my 401k?",
                             "I now want to retire by 2043 instead."):
                print(f"\nclient: {question}")
                reply = await agent.run(question, session=session)
                print(f"advisor: {reply.text}")
        print("\nmemory sessions ended:", [e.session.thread_id for e in provider.ended])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(args.store or Path(tmp) / "advisor.db"))
