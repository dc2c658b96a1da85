"""An offline, deterministic chat model for LangGraph agents (tests, demos, doc examples).

:class:`ScriptedChatModel` is ``langchain_core``'s ``FakeMessagesListChatModel`` (it replays
fixed ``AIMessage`` s, tool calls included) that also accepts ``bind_tools``, so
``create_react_agent`` can drive it. :func:`tool_call` builds a message calling one tool.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("agent_memory.integrations.scripted_langchain needs langchain-core: "
                      "pip install 'agent-memory[langgraph]'") from exc


class ScriptedChatModel(FakeMessagesListChatModel):
    """Replies with ``responses`` in order (then from the start again); tools bound to it
    are accepted and ignored: the script decides which tool is called."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        """Return the model itself (the script already names the tool calls)."""
        return self


def tool_call(name: str, args: dict[str, Any], call_id: str | None = None) -> AIMessage:
    """An ``AIMessage`` calling tool ``name`` with ``args`` (id ``call_<name>`` by default)."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args,
                                              "id": call_id or f"call_{name}"}])


__all__ = ["ScriptedChatModel", "tool_call"]
