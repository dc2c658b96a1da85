"""Authentication: API keys (Bearer and X-API-Key), failures, revocation, trusted-header
mode, ``--no-auth`` only on loopback, and the ``keys`` commands."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from agent_memory import AsyncMemory, Settings
from agent_memory.cli.app import app as cli
from agent_memory.errors import ConfigError, InvalidInputError
from agent_memory.service import KeyStore, ServiceSettings, create_app, parse_scope_header
from agent_memory.service.keys import Scope, check_scope
from agent_memory.service.problems import PROBLEM_JSON

from .conftest import serve


def _unauthorized(response) -> None:
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.headers["content-type"].startswith(PROBLEM_JSON)
    assert response.json()["status"] == 401


def test_requests_without_a_valid_key_answer_401(served) -> None:
    url = "/v1/users/alice/threads"
    with served.client() as anonymous:
        _unauthorized(anonymous.get(url))
        _unauthorized(anonymous.get("/openapi.json"))
        _unauthorized(anonymous.get(url, headers={"Authorization": "Bearer nonsense"}))
        good = served.secrets["alice"]
        wrong_secret = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
        _unauthorized(anonymous.get(url, headers={"Authorization": f"Bearer {wrong_secret}"}))
        _unauthorized(anonymous.get(url, headers={"Authorization": f"Basic {good}"}))
    with served.client("revoked") as revoked:
        _unauthorized(revoked.get(url))


def test_bearer_and_x_api_key_headers_are_accepted(served) -> None:
    with served.client(**{"X-API-Key": served.secrets["alice"]}) as client:
        assert client.get("/v1/users/alice/threads").status_code == 200
    with served.client("alice") as client:
        assert client.get("/openapi.json").json()["info"]["title"] == "agent-memory"


def test_revoking_a_key_takes_effect_on_the_next_request(served) -> None:
    created = served.keys.create(check_scope("acme", ["alice"], None, False))
    headers = {"Authorization": f"Bearer {created.secret}"}
    with served.client(**headers) as client:
        assert client.get("/v1/users/alice/threads").status_code == 200
        served.keys.revoke(created.key.id)
        _unauthorized(client.get("/v1/users/alice/threads"))


def test_key_file_stores_only_hashes(served) -> None:
    raw = served.keys.path.read_bytes()
    for secret in served.secrets.values():
        assert secret.split("_", 2)[2].encode() not in raw


def test_scopes() -> None:
    prefix = Scope(tenant="t", user_prefix="team-")
    assert prefix.allows("team-a") and not prefix.allows("team") and not prefix.allows("x")
    assert not Scope(tenant="t", users=("bob",)).allows("bob ")  # never normalized
    with pytest.raises(InvalidInputError):
        check_scope("t", ["a"], "p", False)  # two kinds of scope
    with pytest.raises(InvalidInputError):
        check_scope("t", [], None, False)  # none


def test_scope_header_format() -> None:
    assert parse_scope_header("tenant=acme; users=alice,bob%2Cjr") == Scope(
        tenant="acme", users=("alice", "bob,jr"))
    assert parse_scope_header("tenant=acme; prefix=acme%3A").user_prefix == "acme:"
    assert parse_scope_header("tenant=acme; admin").admin
    for bad in ("users=alice", "tenant=acme", "tenant=acme; users=", "tenant=a; role=x",
                "tenant=a; users=a; admin"):
        with pytest.raises(InvalidInputError):
            parse_scope_header(bad)


def test_scope_header_reads_admin_strictly() -> None:
    assert parse_scope_header("tenant=acme; admin=true").admin
    assert parse_scope_header("tenant=acme; admin=TRUE").admin
    for value in ("no", "false", "0", "", "off", "yes", "1", "true,false"):
        with pytest.raises(InvalidInputError, match="admin"):
            parse_scope_header(f"tenant=acme; admin={value}")


def test_trusted_header_with_a_false_admin_is_401(tmp_path, local_embedder) -> None:
    settings = Settings.load(store=str(tmp_path / "memory.db"))
    app = create_app(settings, service=ServiceSettings.load(trusted_header="X-User-Scope"),
                     memory=AsyncMemory(settings, embedder=local_embedder))
    running = serve(app, KeyStore(tmp_path / "unused.db"))
    try:
        with running.client(**{"X-User-Scope": "tenant=acme; users=alice"}) as client:
            assert client.post("/v1/users/alice/threads/t/turns", json={
                "role": "user", "content": "hello"}).status_code == 201
        with running.client() as client:
            for value in ("no", "false", "0"):
                _unauthorized(client.get("/v1/users/alice/threads", headers={
                    "X-User-Scope": f"tenant=t; admin={value}"}))
                _unauthorized(client.get("/v1/jobs", headers={
                    "X-User-Scope": f"tenant=t; admin={value}"}))
    finally:
        running.stop()


def test_trusted_header_mode(tmp_path, local_embedder) -> None:
    settings = Settings.load(store=str(tmp_path / "memory.db"))
    app = create_app(settings, service=ServiceSettings.load(trusted_header="X-User-Scope"),
                     memory=AsyncMemory(settings, embedder=local_embedder))
    running = serve(app, KeyStore(tmp_path / "unused.db"))
    try:
        with running.client(**{"X-User-Scope": "tenant=acme; users=alice"}) as client:
            assert client.post("/v1/users/alice/threads/t/turns", json={
                "role": "user", "content": "hello"}).status_code == 201
            assert client.get("/v1/users/bob/threads").status_code == 404
        with running.client() as client:
            _unauthorized(client.get("/v1/users/alice/threads"))
            _unauthorized(client.get("/v1/users/alice/threads",
                                     headers={"X-User-Scope": "tenant=acme"}))
    finally:
        running.stop()


def test_no_auth_is_refused_off_loopback() -> None:
    for host in ("0.0.0.0", "192.168.1.10", "example.com", "::"):
        with pytest.raises(ConfigError, match="loopback"):
            ServiceSettings.load(no_auth=True, host=host)
    for host in ("127.0.0.1", "::1", "localhost", "127.0.0.2"):
        assert ServiceSettings.load(no_auth=True, host=host).no_auth
    result = CliRunner().invoke(cli, ["serve", "--no-auth", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "loopback" in result.output


def test_no_auth_on_loopback_acts_as_admin(tmp_path, local_embedder) -> None:
    settings = Settings.load(store=str(tmp_path / "memory.db"))
    app = create_app(settings, service=ServiceSettings.load(no_auth=True),
                     memory=AsyncMemory(settings, embedder=local_embedder))
    running = serve(app, KeyStore(tmp_path / "unused.db"))
    try:
        with running.client() as client:
            assert client.get("/v1/users/anyone/threads").json() == []
            assert client.get("/v1/jobs").status_code == 200
    finally:
        running.stop()


def test_keys_commands_create_list_revoke(tmp_path) -> None:
    runner = CliRunner()
    store = str(tmp_path / "m.db")
    made = runner.invoke(cli, ["keys", "create", "--tenant", "acme", "--user", "alice",
                               "--user", "bob", "--store", store])
    assert made.exit_code == 0, made.output
    secret = made.stdout.strip().splitlines()[-1]
    assert secret.startswith("am_")
    keys = KeyStore(tmp_path / "m.db.keys.db")
    assert keys.verify(secret) == Scope(tenant="acme", users=("alice", "bob"))
    listed = runner.invoke(cli, ["keys", "list", "--store", store])
    key_id = secret.split("_")[1]
    assert key_id in listed.output and secret.split("_", 2)[2] not in listed.output
    assert runner.invoke(cli, ["keys", "revoke", key_id, "--store", store]).exit_code == 0
    assert keys.verify(secret) is None
    missing = runner.invoke(cli, ["keys", "revoke", "000000000000", "--store", store])
    assert missing.exit_code == 2
    both = runner.invoke(cli, ["keys", "create", "--tenant", "acme", "--admin", "--user", "a",
                               "--store", store])
    assert both.exit_code == 2 and "exactly one" in both.output
    elsewhere = str(tmp_path / "typo.db")  # another store's key file: said, not just empty
    listed = runner.invoke(cli, ["keys", "list", "--store", elsewhere], env={"COLUMNS": "300"})
    assert listed.exit_code == 0 and f"no API key file at {elsewhere}.keys.db" in listed.output
    assert key_id not in listed.output
