"""Start and stop the local Cosmos DB test server (``@vercel/cosmosdb-server`` behind
``launcher.js``) for tests; imported by ``tests/conftest.py``."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = Path(__file__).with_name("launcher.js")
MODULES = Path(os.environ.get("AGENT_MEMORY_COSMOS_SERVER_MODULES",
                              ROOT / ".cache" / "cosmosdb-server" / "node_modules"))
KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
"""Any base64 key is accepted by the test server; this is the public emulator key."""


@dataclass
class CosmosTestServer:
    """A running test server: its HTTPS endpoint, the key to use and its process."""

    endpoint: str
    key: str
    process: subprocess.Popen

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def unavailable_reason() -> str | None:
    """Why the server cannot start here, or ``None`` when it can."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (MODULES / "@vercel" / "cosmosdb-server").is_dir():
        return (f"@vercel/cosmosdb-server is not installed under {MODULES} "
                "(make test installs it with npm)")
    return None


def start(timeout: float = 30.0) -> CosmosTestServer:
    """Start a server on a free loopback port and wait until it accepts connections.

    Raises:
        RuntimeError: it could not start (its output is in the message).
    """
    proc = subprocess.Popen(
        ["node", str(LAUNCHER), "--module-dir", str(MODULES), "--port", "0",
         "--host", "127.0.0.1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("READY "):
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(timeout) or proc.poll() is not None or not lines \
            or not lines[-1].startswith("READY"):
        proc.kill()
        raise RuntimeError("cosmos test server did not start:\n" + "".join(lines))
    host_port = lines[-1].split()[1]
    return CosmosTestServer(endpoint=f"https://{host_port}/", key=KEY, process=proc)
