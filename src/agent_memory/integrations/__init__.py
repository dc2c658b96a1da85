"""Integrations with agent frameworks, at the edge of the library (they depend inward only).

- :mod:`.agent_framework`: Microsoft Agent Framework context provider
  (:class:`~.agent_framework.AgentMemoryProvider`, extra ``agent-framework``).
- :mod:`.local_chat`: :class:`~.local_chat.LocalChatClient`, an offline, deterministic
  Agent Framework chat client for tests and demos.

Nothing is imported here eagerly, so ``import agent_memory.integrations`` never needs the extra.
"""
