"""The remote client: the API of :class:`~agent_memory.AsyncMemory` / :class:`~agent_memory.
Memory` over the REST service (``agent-memory serve``). Needs ``pip install
agent-memory[service]``.

- :class:`RemoteMemory`: async (httpx), a drop-in for :class:`~agent_memory.AsyncMemory`
  (e.g. as the ``memory`` of ``AgentMemoryProvider``);
- :class:`Remote`: its sync facade, a drop-in for :class:`~agent_memory.Memory`;
- :data:`PROCESS_LOCAL`: the methods only the embedded client has, with the reason.

Errors are the typed errors of :mod:`agent_memory.errors`, translated from the service's
problem details; :class:`~agent_memory.errors.ServiceError` when it cannot be reached.
"""

from ._client import PROCESS_LOCAL, RemoteMemory
from ._sync import Remote

__all__ = ["PROCESS_LOCAL", "Remote", "RemoteMemory"]
