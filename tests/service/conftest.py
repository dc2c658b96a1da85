"""The service under test: uvicorn in a thread on a free loopback port, a real SQLite store,
the real local embedder, API keys in a real key file, LoCoMo dev conversations as data."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import uvicorn

from agent_memory import AsyncMemory, Settings
from agent_memory.datasets.locomo import load_locomo
from agent_memory.service import KeyStore, ServiceSettings, create_app
from agent_memory.service.keys import check_scope


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Served:
    """A running service: ``url``, its ``app``, its key file and keys by name."""

    url: str
    app: object
    keys: KeyStore
    secrets: dict[str, str] = field(default_factory=dict)
    server: uvicorn.Server | None = None
    thread: threading.Thread | None = None

    def client(self, key: str | None = None, **headers: str) -> httpx.Client:
        """An httpx client; ``key`` names one of ``secrets`` sent as a Bearer token."""
        if key is not None:
            headers["Authorization"] = f"Bearer {self.secrets[key]}"
        return httpx.Client(base_url=self.url, headers=headers, timeout=180.0)

    def stop(self) -> None:
        assert self.server is not None and self.thread is not None
        self.server.should_exit = True
        self.thread.join(timeout=30)


def serve(app, keys: KeyStore) -> Served:
    """Start ``app`` with uvicorn in a daemon thread; returns once it accepts requests."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the service did not start")
        time.sleep(0.05)
    return Served(url=f"http://127.0.0.1:{port}", app=app, keys=keys, server=server,
                  thread=thread)


SCOPES = {
    "alice": ("acme", ["alice"], None, False),
    "bob": ("acme", ["bob"], None, False),
    "team": ("globex", [], "team-", False),
    "admin": ("ops", [], None, True),
    "revoked": ("acme", ["alice"], None, False),
}


def make_keys(path: Path) -> tuple[KeyStore, dict[str, str]]:
    """A key file with one key per entry of :data:`SCOPES` (``revoked`` revoked)."""
    keys = KeyStore(path)
    secrets = {name: keys.create(check_scope(*parts), name).secret
               for name, parts in SCOPES.items()}
    keys.revoke(secrets["revoked"].split("_")[1])
    return keys, secrets


@pytest.fixture(scope="module")
def served(tmp_path_factory, local_embedder):
    """The service over a fresh store, with the keys of :data:`SCOPES`."""
    root = tmp_path_factory.mktemp("service")
    settings = Settings.load(store=str(root / "memory.db"))
    keys, secrets = make_keys(root / "keys.db")
    app = create_app(settings, service=ServiceSettings.load(keys_path=str(root / "keys.db")),
                     memory=AsyncMemory(settings, embedder=local_embedder))
    running = serve(app, keys)
    running.secrets = secrets
    yield running
    running.stop()


@pytest.fixture(scope="module")
def conversation(locomo_path):
    """The first two sessions of the first LoCoMo dev conversation, as REST turn bodies
    (``thread_id``, ``role``, ``content``, ``speaker``, ``created_at``, ``id``)."""
    sample = load_locomo(locomo_path)[0]
    turns = [t for t in sample.turns() if t.thread_id in
             {sample.sessions[0].thread_id, sample.sessions[1].thread_id}]
    return [{"thread_id": t.thread_id, "role": t.role.value, "content": t.content,
             "speaker": t.speaker, "created_at": t.created_at.isoformat(), "id": t.id}
            for t in turns]
