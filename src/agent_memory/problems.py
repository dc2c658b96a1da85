"""Typed errors as problem details (RFC 9457, ``application/problem+json``): the table both
the service (:mod:`agent_memory.service.problems`) and the remote client read.

One table, :data:`PROBLEMS`, gives every class of :mod:`agent_memory.errors` its status,
title and ``type`` URI; a class missing from it answers as its nearest listed base class.
Every 404 for a record has one body, :data:`NOT_FOUND` (no id, no message), so a caller cannot
tell a record that does not exist from one outside its key's scope. No web framework here: the
remote client installs without the service extra.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from . import errors as e

PROBLEM_JSON = "application/problem+json"
"""Media type of problem details (RFC 9457 section 3)."""


class Problem(BaseModel):
    """An RFC 9457 problem details object.

    Attributes:
        type: a URI naming the problem type (``urn:agent-memory:problem:<slug>``).
        title: short, the same for every occurrence of the type.
        status: the HTTP status code.
        detail: this occurrence, in words.
        errors: for schema failures, one entry per invalid field.
    """

    model_config = ConfigDict(extra="allow")

    type: str = "about:blank"
    title: str
    status: int
    detail: str | None = None
    errors: list[dict[str, Any]] | None = Field(default=None)


@dataclass(frozen=True)
class ProblemType:
    """How one error class answers: ``status``, ``title`` and ``slug`` (the URI's last part)."""

    status: int
    title: str
    slug: str

    @property
    def uri(self) -> str:
        """``urn:agent-memory:problem:<slug>``."""
        return f"urn:agent-memory:problem:{self.slug}"


PROBLEMS: dict[type[e.AgentMemoryError], ProblemType] = {
    e.AgentMemoryError: ProblemType(500, "Internal Error", "internal"),
    e.InvalidInputError: ProblemType(422, "Invalid Input", "invalid-input"),
    e.MissingScopeError: ProblemType(422, "Missing Scope", "missing-scope"),
    e.InvalidScopeError: ProblemType(422, "Invalid Scope", "invalid-scope"),
    e.EmptyContentError: ProblemType(422, "Empty Content", "empty-content"),
    e.ContentTooLargeError: ProblemType(422, "Content Too Large", "content-too-large"),
    e.UnknownRoleError: ProblemType(422, "Unknown Role", "unknown-role"),
    e.DimensionMismatchError: ProblemType(422, "Dimension Mismatch", "dimension-mismatch"),
    e.ProfileSchemaError: ProblemType(422, "Profile Schema Error", "profile-schema"),
    e.UnknownOptionError: ProblemType(422, "Unknown Option", "unknown-option"),
    e.InvalidNumberError: ProblemType(422, "Invalid Number", "invalid-number"),
    e.InvalidTextError: ProblemType(422, "Invalid Text", "invalid-text"),
    e.InvalidTimeError: ProblemType(422, "Invalid Time", "invalid-time"),
    e.SessionEndedError: ProblemType(422, "Session Ended", "session-ended"),
    # A sync Memory used after close(): never raised by the service's async client.
    e.ClientClosedError: ProblemType(500, "Client Closed", "client-closed"),
    e.ConfigError: ProblemType(500, "Configuration Error", "config"),
    e.StoreError: ProblemType(503, "Store Unavailable", "store"),
    e.NotAStoreError: ProblemType(500, "Not A Store", "not-a-store"),
    e.CorruptStoreError: ProblemType(500, "Corrupt Store", "corrupt-store"),
    # Raised by the CLI's read-only commands: a service opens its store before serving.
    e.StoreNotFoundError: ProblemType(500, "Store Not Found", "store-not-found"),
    e.EmbeddingMismatchError: ProblemType(500, "Embedding Mismatch", "embedding-mismatch"),
    e.SchemaVersionError: ProblemType(500, "Schema Version", "schema-version"),
    e.RecordNotFoundError: ProblemType(404, "Not Found", "not-found"),
    e.SessionNotFoundError: ProblemType(404, "Not Found", "not-found"),
    e.ConflictError: ProblemType(409, "Conflict", "conflict"),
    e.EmbedderError: ProblemType(503, "Embedder Unavailable", "embedder"),
    e.ModelUnavailableError: ProblemType(503, "Model Unavailable", "model-unavailable"),
    e.ReasonerError: ProblemType(502, "Reasoner Failed", "reasoner"),
    e.MalformedOutputError: ProblemType(502, "Malformed Model Output", "malformed-output"),
    # Raised by RemoteMemory: a server calling another memory service that failed.
    e.ServiceError: ProblemType(502, "Upstream Service Failed", "service"),
}
"""Status, title and type of every error class (tests walk the tree of :mod:`..errors`)."""

NOT_FOUND = Problem(type=PROBLEMS[e.RecordNotFoundError].uri, title="Not Found", status=404,
                    detail="no such record for this user")
"""The one body of every record 404: a real miss and a user outside the key's scope alike."""

UNAUTHORIZED = Problem(type="urn:agent-memory:problem:unauthorized", title="Unauthorized",
                       status=401, detail="a valid API key is required (Authorization: "
                       "Bearer <key> or X-API-Key)")
"""The body of a request without a valid key (missing, unknown, malformed or revoked)."""

BODY_TOO_LARGE_TYPE = "urn:agent-memory:problem:body-too-large"


def problem_type(error: type[BaseException]) -> ProblemType:
    """The :class:`ProblemType` of an error class: its own entry, else its nearest base's."""
    for cls in error.__mro__:
        if cls in PROBLEMS:
            return PROBLEMS[cls]  # type: ignore[index]
    return PROBLEMS[e.AgentMemoryError]


def problem_of(error: e.AgentMemoryError) -> Problem:
    """The problem details of a raised error (every not-found error answers :data:`NOT_FOUND`)."""
    kind = problem_type(type(error))
    if kind.status == 404:
        return NOT_FOUND
    detail = str(error) if kind.status < 500 else f"{type(error).__name__}: {error}"
    return Problem(type=kind.uri, title=kind.title, status=kind.status, detail=detail)
