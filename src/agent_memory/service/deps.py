"""Shared pieces of the route modules: the memory dependency and the documented errors."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request

from ..client import AsyncMemory
from .problems import PROBLEM_JSON, Problem


def get_memory(request: Request) -> AsyncMemory:
    """FastAPI dependency: the process's one :class:`AsyncMemory` (opened in the lifespan)."""
    return request.app.state.memory


Memory = Annotated[AsyncMemory, Depends(get_memory)]
"""A route parameter: the process's client."""


def _problem(description: str) -> dict[str, Any]:
    return {"model": Problem, "description": description,
            "content": {PROBLEM_JSON: {}}}


ERRORS: dict[int | str, dict[str, Any]] = {
    401: _problem("No valid credentials."),
    404: _problem("No such record, or a user outside the caller's scope (one body for both)."),
    409: _problem("A conditional write lost to a concurrent one."),
    413: _problem("The request body is larger than the configured limit."),
    422: _problem("Invalid input (the typed error of the Python API, or a schema failure "
                  "listed in `errors`)."),
    502: _problem("The reasoner (LLM) failed."),
    503: _problem("The store or the embedder is unavailable."),
}
"""Problem responses every ``/v1`` route may answer (documented in the OpenAPI document)."""
