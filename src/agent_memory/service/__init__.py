"""The memory service: REST API and MCP server over :class:`~agent_memory.AsyncMemory`."""
