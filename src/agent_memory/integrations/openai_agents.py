"""OpenAI Agents SDK session and memory tool (``pip install 'agent-memory[openai-agents]'``).

:class:`AgentMemorySession` is an ``agents.memory.SessionABC``: pass it to
``Runner.run(agent, input, session=...)`` and the conversation history lives in agent-memory.
Each item (message, tool call, tool output, reasoning) is one turn of the thread
``session_id``: its text is the turn's content (so summaries, fact extraction and search work
on Agents SDK conversations) and the item itself is kept whole in ``metadata["openai_agents"]``,
so ``get_items`` returns exactly what was added, in order. Turns written by other paths (for
example :meth:`~agent_memory.AsyncMemory.add_turn`) come back as ``{"role", "content"}``
messages.

:func:`memory_tool` is a function tool that searches the user's memory (every thread, summaries
and facts included), for agents that should recall across sessions.

Example::

    memory = Memory(store="memory.db")
    session = AgentMemorySession("chat-1", memory=memory, user_id="alice")
    agent = Agent(name="Assistant", tools=[memory_tool(memory, "alice")])
    result = await Runner.run(agent, "Where did I say I moved?", session=session)
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

try:
    from agents import FunctionTool, function_tool
    from agents.memory import SessionABC, SessionSettings
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("agent_memory.integrations.openai_agents needs openai-agents: "
                      "pip install 'agent-memory[openai-agents]'") from exc

from .. import validation as check
from ..errors import InvalidInputError
from ..models import Role, require_scope
from ._bridge import ClientBridge

META = "openai_agents"
"""Key of a turn's ``metadata`` holding the Agents SDK item it stores."""
MAX_RETRIES = 5
DEFAULT_MAX_CHARS = 16_000


def item_role(item: dict[str, Any]) -> Role:
    """The turn role of an item: messages keep theirs (``developer`` is ``system``), a tool
    output is ``tool``, anything else the model produced (calls, reasoning) is ``assistant``."""
    role = item.get("role")
    if role in ("system", "developer"):
        return Role.SYSTEM
    if role == "user":
        return Role.USER
    kind = str(item.get("type", ""))
    if kind.endswith("_output"):  # function_call_output, computer_call_output, ...
        return Role.TOOL
    return Role.ASSISTANT


def _parts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict):
            for name in ("text", "refusal", "transcript"):
                if isinstance(part.get(name), str):
                    texts.append(part[name])
    return texts


def item_text(item: dict[str, Any]) -> str:
    """The searchable text of an item: a message's text parts; ``name(arguments)`` for a
    function call; a tool output's text; a reasoning item's summary; else the item as JSON."""
    kind = item.get("type")
    if "content" in item and kind in (None, "message"):
        text = "\n".join(_parts(item["content"]))
    elif kind == "function_call":
        text = f"{item.get('name', 'tool')}({item.get('arguments', '')})"
    elif "output" in item:
        output = item["output"]
        text = (output if isinstance(output, str) else "\n".join(_parts(output))
                if isinstance(output, list) else json.dumps(output, ensure_ascii=False))
    elif kind == "reasoning":
        text = "\n".join(_parts(item.get("summary")))
    else:
        text = ""
    return text if text.strip() else json.dumps(item, ensure_ascii=False, sort_keys=True)


class AgentMemorySession(SessionABC):
    """An Agents SDK session whose history is a thread of agent-memory (module docstring).

    Args:
        session_id: the thread id the items are stored under.
        memory: a :class:`~agent_memory.Memory` / :class:`~agent_memory.AsyncMemory` (or the
            remote ``Remote`` / ``RemoteMemory``).
        user_id: whose memory it is (the partition).
        session_settings: the SDK's settings (``limit``: default number of items read).

    Raises:
        MissingScopeError / InvalidScopeError: a bad ``session_id`` or ``user_id``.
    """

    def __init__(self, session_id: str, *, memory: Any, user_id: str,
                 session_settings: SessionSettings | None = None) -> None:
        self.session_id = require_scope(session_id, "session_id")
        self.user_id = require_scope(user_id)
        self.session_settings = session_settings
        self._bridge = ClientBridge(memory)

    def _max_chars(self) -> int:
        settings = getattr(self._bridge.client, "settings", None)
        return int(getattr(settings, "max_content_chars", DEFAULT_MAX_CHARS))

    @staticmethod
    def _item_of(turn: Any) -> dict[str, Any]:
        kept = turn.metadata.get(META)
        if isinstance(kept, dict):
            return kept
        return {"role": "assistant" if turn.role == Role.ASSISTANT else turn.role.value,
                "content": turn.content}

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The session's items in the order added; with ``limit``, the latest ``limit``.

        Raises:
            InvalidNumberError: a negative ``limit``.
        """
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        if limit is not None:
            check.count(limit, "limit", minimum=0, maximum=2**62)
            if limit == 0:
                return []
        k = limit if limit is not None and limit <= check.MAX_K else None
        turns = await self._bridge.arun(
            lambda c: c.get_thread(self.user_id, self.session_id, k=k))
        items = [self._item_of(t) for t in turns]
        return items[-limit:] if limit is not None else items

    async def add_items(self, items: list[Any]) -> None:
        """Append ``items`` as turns of the thread, in one atomic batch.

        Raises:
            InvalidInputError: an item that is not a JSON object (nothing is written).
        """
        if not items:
            return
        limit = self._max_chars()
        rows = []
        for item in items:
            if not isinstance(item, dict):
                raise InvalidInputError(f"session items are dicts, got {type(item).__name__}")
            try:
                kept = json.loads(json.dumps(item))
            except (TypeError, ValueError) as exc:
                raise InvalidInputError(f"a session item is not JSON: {exc}") from None
            rows.append({"user_id": self.user_id, "thread_id": self.session_id,
                         "role": item_role(kept), "content": item_text(kept)[:limit],
                         "metadata": {META: kept}})
        await self._bridge.arun(lambda c: c.add_turns(rows))

    async def pop_item(self) -> Any | None:
        """Remove and return the latest item (``None`` when the session is empty). Two
        concurrent pops never return the same item."""
        for _ in range(MAX_RETRIES):
            last = await self._bridge.arun(
                lambda c: c.get_thread(self.user_id, self.session_id, k=1))
            if not last:
                return None
            turn = last[0]
            if await self._bridge.arun(partial(_remove, user_id=self.user_id, turn_id=turn.id)):
                return self._item_of(turn)
        return None

    async def clear_session(self) -> None:
        """Forget the thread: its turns and everything derived from it (summary, facts)."""
        await self._bridge.arun(lambda c: c.forget_thread(self.user_id, self.session_id))


async def _remove(client: Any, *, user_id: str, turn_id: str) -> bool:
    """Delete one turn; whether this call deleted it. A local client deletes through its
    store, whose delete counts the rows it removed (so of two concurrent pops one wins); a
    remote one forgets it through the service."""
    store = getattr(getattr(client, "components", None), "store", None)
    if store is not None:
        await client.connect()
        return bool(await store.delete(user_id, [turn_id]))
    report = await client.forget_records(user_id, [turn_id])
    return turn_id not in report.missing


def memory_tool(memory: Any, user_id: str, *, k: int = 5,
                name: str = "search_memory") -> FunctionTool:
    """A function tool searching ``user_id``'s memory (hybrid search over every thread,
    summaries and facts) and returning the hits, best first, one per line.

    Args:
        memory: a ``Memory`` / ``AsyncMemory`` (or ``Remote`` / ``RemoteMemory``).
        user_id: whose memory the tool reads (never another user's).
        k: most hits returned (1-1,000).
        name: the tool's name as the model sees it.

    Raises:
        MissingScopeError / InvalidScopeError: a bad ``user_id``; InvalidNumberError: ``k``.
    """
    user_id = require_scope(user_id)
    k = check.count(k, "k")
    bridge = ClientBridge(memory)

    async def search_memory(query: str) -> str:
        """Search what the user said in earlier conversations and what is known about them.

        Args:
            query: what to look for, in words (e.g. "the user's dog").
        """
        hits = await bridge.arun(lambda c: c.search(user_id, query, k=k))
        if not hits:
            return "No memories found."
        return "\n".join(f"- [{h.record.kind.value}, {h.record.created_at:%Y-%m-%d}] "
                         f"{h.record.content}" for h in hits)

    return function_tool(search_memory, name_override=name)


__all__ = ["AgentMemorySession", "item_role", "item_text", "memory_tool"]
