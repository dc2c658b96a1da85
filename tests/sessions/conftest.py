"""Fixtures for the session tests: a keeper-sized memory (k=4, N=2) on a real SQLite file."""

from __future__ import annotations

import pytest

from agent_memory import AsyncMemory, Settings

K, N = 4, 2

ADVISOR_TURNS = [
    ("user", "Hi, I am 42 years old and married with two kids."),
    ("assistant", "Nice to meet you. What would you like to plan for?"),
    ("user", "I want to retire at 60 and I have about $150k in my 401k."),
    ("assistant", "That is a solid start. How do you feel about risk?"),
    ("user", "I am worried about market volatility after the last crash."),
    ("assistant", "We can lean on bonds and keep an emergency fund."),
    ("user", "I prefer quarterly reviews by email."),
    ("assistant", "Quarterly email reviews it is."),
    ("user", "I am also saving for a down payment on a house by 2027."),
    ("assistant", "Let us put that money in a high-yield savings account."),
    ("user", "Thanks, that helps."),
    ("assistant", "You are welcome."),
]


def settings_for(path, **overrides) -> Settings:
    """Settings on ``path`` with the small keeper sizes used by these tests."""
    values = {"k_turn_buffer": K, "n_active_turns": N, **overrides}
    return Settings.load(store=str(path), **values)


@pytest.fixture
async def keeper_memory(tmp_path, local_embedder):
    """An AsyncMemory (extractive reasoner, local embedder) with k=4, N=2."""
    async with AsyncMemory.open(settings_for(tmp_path / "memory.db"),
                                embedder=local_embedder) as memory:
        yield memory
