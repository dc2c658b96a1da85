"""Typed errors as HTTP problem details (RFC 9457, ``application/problem+json``): the
service's FastAPI handlers. The table (:data:`PROBLEMS`: every class of
:mod:`agent_memory.errors` with its status, title and ``type`` URI) is
:mod:`agent_memory.problems`, shared with the remote client. Body shape::

    {"type": "urn:agent-memory:problem:conflict", "title": "Conflict", "status": 409,
     "detail": "<the error's message>"}

plus ``errors`` (a list of ``{"loc", "msg", "type"}``) for a request that fails the
schema. Every 404 a route answers for a record has one body, :data:`NOT_FOUND` (no id, no
message), so a caller cannot tell a record that does not exist from one outside its key's
scope (:mod:`.auth`).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import errors as e
from ..problems import (
    BODY_TOO_LARGE_TYPE,
    NOT_FOUND,
    PROBLEM_JSON,
    PROBLEMS,
    UNAUTHORIZED,
    Problem,
    ProblemType,
    problem_of,
    problem_type,
)

__all__ = [
    "BODY_TOO_LARGE_TYPE", "NOT_FOUND", "PROBLEMS", "PROBLEM_JSON", "UNAUTHORIZED", "Problem",
    "ProblemType", "install", "problem_of", "problem_response", "problem_type",
]


def problem_response(problem: Problem, headers: dict[str, str] | None = None) -> JSONResponse:
    """``problem`` as a response with the problem media type."""
    return JSONResponse(problem.model_dump(exclude_none=True), status_code=problem.status,
                        media_type=PROBLEM_JSON, headers=headers)


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value if not isinstance(value, str) else value.encode(
            "utf-8", "backslashreplace").decode("utf-8")
    return repr(value)


def install(app: FastAPI) -> None:
    """Register the handlers that turn errors into problem details on ``app``."""

    async def agent_memory_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, e.AgentMemoryError)
        return problem_response(problem_of(exc))

    async def validation_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        found = [{"loc": _json_safe(list(err.get("loc", ()))), "msg": str(err.get("msg")),
                  "type": str(err.get("type"))} for err in exc.errors()]
        kind = PROBLEMS[e.InvalidInputError]
        first = found[0] if found else {"loc": [], "msg": "invalid request"}
        where = ".".join(str(p) for p in first["loc"])
        return problem_response(Problem(
            type=kind.uri, title=kind.title, status=422,
            detail=f"{where}: {first['msg']}".encode("utf-8", "backslashreplace").decode(),
            errors=found))

    async def http_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 404:
            return problem_response(NOT_FOUND)
        if exc.status_code == 401:
            return problem_response(UNAUTHORIZED, {"WWW-Authenticate": "Bearer"})
        title = {405: "Method Not Allowed", 413: "Content Too Large"}.get(
            exc.status_code, "Error")
        return problem_response(Problem(title=title, status=exc.status_code,
                                        detail=str(exc.detail)), dict(exc.headers or {}))

    app.add_exception_handler(e.AgentMemoryError, agent_memory_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
