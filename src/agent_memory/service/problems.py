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
from ..validation import json_safe

__all__ = [
    "BODY_TOO_LARGE_TYPE", "NOT_FOUND", "PROBLEMS", "PROBLEM_JSON", "UNAUTHORIZED", "Problem",
    "ProblemType", "install", "problem_of", "problem_response", "problem_type",
]


def problem_response(problem: Problem, headers: dict[str, str] | None = None) -> JSONResponse:
    """``problem`` as a response with the problem media type (every string made valid
    UTF-8, so a refusal that quotes a lone surrogate still serialises)."""
    return JSONResponse(json_safe(problem.model_dump(exclude_none=True)),
                        status_code=problem.status,
                        media_type=PROBLEM_JSON, headers=headers)




def install(app: FastAPI) -> None:
    """Register the handlers that turn errors into problem details on ``app``."""

    async def agent_memory_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, e.AgentMemoryError)
        return problem_response(problem_of(exc))

    async def validation_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        for err in exc.errors():  # a library check run inside the schema: its own type
            cause = (err.get("ctx") or {}).get("error")
            if isinstance(cause, e.AgentMemoryError):
                return problem_response(problem_of(cause))
        found = [{"loc": json_safe(list(err.get("loc", ()))), "msg": str(err.get("msg")),
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
