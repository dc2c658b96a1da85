"""The OpenAPI document: the committed ``docs/openapi.json`` is what the app serves, and a
Schemathesis run against the served document finds no 5xx and no response off its schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from typer.testing import CliRunner

from agent_memory.cli.app import app as cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = 12
"""Generated requests per operation (bounded: about 35 operations on a 2-core machine)."""


@pytest.fixture(scope="module")
def document(served) -> dict:
    with served.client("admin") as admin:
        response = admin.get("/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_committed_document_is_what_the_app_serves(document) -> None:
    committed = json.loads((ROOT / "docs" / "openapi.json").read_text())
    assert committed == document, ("docs/openapi.json is stale: run "
                                   "`agent-memory serve --openapi docs/openapi.json`")


def test_serve_writes_the_document(tmp_path, document) -> None:
    out = tmp_path / "openapi.json"
    result = CliRunner().invoke(cli, ["serve", "--openapi", str(out), "--store",
                                      str(tmp_path / "m.db")])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text()) == document


def test_error_responses_are_problem_details(document) -> None:
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")):
                    assert list(response["content"]) == ["application/problem+json"], (
                        method, path, status)


def _operations() -> list[tuple[str, str]]:
    committed = json.loads((ROOT / "docs" / "openapi.json").read_text())
    return [(method.upper(), path) for path, operations in committed["paths"].items()
            for method in operations]


@pytest.fixture(scope="module")
def api_schema(document, served):
    schema = schemathesis.openapi.from_dict(document)
    schema.config.update(base_url=served.url)
    return schema


@pytest.mark.parametrize(("method", "path"), _operations(), ids=" ".join)
def test_generated_requests_get_no_5xx_and_conform(api_schema, served, method, path) -> None:
    operation = api_schema[path][method]
    headers = {"Authorization": f"Bearer {served.secrets['admin']}"}
    checks = [schemathesis.checks.not_a_server_error, status_code_conformance,
              content_type_conformance, response_schema_conformance]

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def run(case) -> None:
        case.call_and_validate(headers=headers, checks=checks)

    run()
