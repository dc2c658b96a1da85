"""The listening socket of ``serve --workers N``: connections it accepts get ``TCP_NODELAY``
from asyncio (uvicorn's own multi-process socket does not, which adds a delayed-ACK wait of
about 40 ms to each response; see ``agent_memory.service.workers``)."""

from __future__ import annotations

import asyncio
import socket

import pytest
import uvicorn

from agent_memory.errors import ConfigError
from agent_memory.service.workers import tcp_listener


async def accepted_nodelay(listener: socket.socket) -> int:
    """TCP_NODELAY of the server side of one connection accepted through asyncio."""
    seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def on_connect(reader, writer) -> None:
        sock = writer.get_extra_info("socket")
        seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    listener.listen()
    server = await asyncio.start_server(on_connect, sock=listener)
    port = listener.getsockname()[1]
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        return await asyncio.wait_for(seen, 10)
    finally:
        writer.close()
        server.close()
        await server.wait_closed()


async def test_connections_accepted_by_our_listener_have_nodelay() -> None:
    listener = tcp_listener("127.0.0.1", 0)
    assert listener.proto == socket.IPPROTO_TCP and listener.get_inheritable()
    assert await accepted_nodelay(listener) != 0


async def test_uvicorns_own_multiprocess_socket_does_not() -> None:
    """The reason the service binds its own socket: the same check fails on uvicorn's."""
    listener = uvicorn.Config("x:app", host="127.0.0.1", port=0).bind_socket()
    assert await accepted_nodelay(listener) == 0


def test_an_address_in_use_is_a_config_error() -> None:
    taken = tcp_listener("127.0.0.1", 0)
    taken.listen()
    try:
        with pytest.raises(ConfigError, match="cannot listen"):
            tcp_listener("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()
