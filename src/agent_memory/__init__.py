"""agent-memory: durable, searchable memory for LLM agents.

Quick start::

    from agent_memory import Memory

    with Memory(store="memory.db") as memory:
        memory.add_turn("alice", "t1", "user", "I started a new job at a bakery last week.")
        memory.extract_facts("alice", "t1")
        print(memory.search("alice", "where does she work?")[0].record.content)
"""

from ._sync import Memory
from .client import AsyncMemory, TurnInput
from .config import Settings
from .errors import (
    AgentMemoryError,
    ConfigError,
    ContentTooLargeError,
    DimensionMismatchError,
    EmbedderError,
    EmbeddingMismatchError,
    EmptyContentError,
    InvalidInputError,
    MalformedOutputError,
    MissingScopeError,
    NotAStoreError,
    ReasonerError,
    RecordNotFoundError,
    StoreError,
    UnknownRoleError,
)
from .filters import MemoryFilter
from .models import (
    Fact,
    Interaction,
    MemoryRecord,
    RecordKind,
    Role,
    ThreadSummary,
    Turn,
    UserProfile,
)
from .retrieval.hits import Hit, SearchMode

__version__ = "0.1.0"

__all__ = [
    "AgentMemoryError", "AsyncMemory", "ConfigError", "ContentTooLargeError",
    "DimensionMismatchError", "EmbedderError", "EmbeddingMismatchError", "EmptyContentError",
    "Fact", "Hit", "Interaction", "InvalidInputError", "MalformedOutputError", "Memory",
    "MemoryFilter", "MemoryRecord", "MissingScopeError", "NotAStoreError", "ReasonerError", "RecordKind",
    "RecordNotFoundError", "Role", "SearchMode", "Settings", "StoreError", "ThreadSummary",
    "Turn", "TurnInput", "UnknownRoleError", "UserProfile",
]
