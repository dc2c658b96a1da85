"""Integrations with agent frameworks, at the edge of the library (they depend inward only).

- :mod:`.agent_framework`: Microsoft Agent Framework context provider
  (:class:`~.agent_framework.AgentMemoryProvider`, extra ``agent-framework``).
- :mod:`.local_chat`: :class:`~.local_chat.LocalChatClient`, an offline, deterministic
  Agent Framework chat client for tests and demos.
- :mod:`.langgraph`: :class:`~.langgraph.AgentMemoryStore`, a LangGraph ``BaseStore``
  (extra ``langgraph``); :mod:`.scripted_langchain`: an offline chat model for LangGraph agents.
- :mod:`.openai_agents`: :class:`~.openai_agents.AgentMemorySession`, an OpenAI Agents SDK
  session, and :func:`~.openai_agents.memory_tool` (extra ``openai-agents``);
  :mod:`.scripted_agents`: an offline model for the Agents SDK.

Nothing is imported here eagerly, so ``import agent_memory.integrations`` never needs the extra.
"""
