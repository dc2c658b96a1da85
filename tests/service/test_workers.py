"""``agent-memory serve --workers 2``: uvicorn's factory mode, each worker process building
its app from the environment, all sharing one store and one key file."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from agent_memory.service import KeyStore
from agent_memory.service.keys import check_scope

from .conftest import free_port


def test_two_workers_serve_one_store(tmp_path) -> None:
    store = tmp_path / "memory.db"
    keys = KeyStore(tmp_path / "memory.db.keys.db")
    secret = keys.create(check_scope("acme", ["alice"], None, False)).secret
    port = free_port()
    env = {**os.environ, "AGENT_MEMORY_STORE": str(store)}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from agent_memory.cli.app import main; main()", "serve",
         "--workers", "2", "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            try:
                if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.5)
        headers = {"Authorization": f"Bearer {secret}"}

        def add(i: int) -> int:
            return httpx.post(f"{url}/v1/users/alice/threads/t/turns", headers=headers,
                              json={"role": "user", "content": f"turn number {i}"},
                              timeout=60).status_code

        with ThreadPoolExecutor(8) as pool:
            assert set(pool.map(add, range(40))) == {201}
        thread = httpx.get(f"{url}/v1/users/alice/threads/t/turns", headers=headers,
                           timeout=60).json()
        assert sorted(t["seq"] for t in thread) == list(range(40))  # none lost, none shared
        assert httpx.get(f"{url}/v1/users/bob/threads", headers=headers).status_code == 404
    finally:
        proc.terminate()
        proc.wait(timeout=60)
