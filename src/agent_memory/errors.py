"""Every error agent-memory raises, in one tree.

Callers catch :class:`AgentMemoryError` for anything of ours, or a branch of it::

    AgentMemoryError
    ├── InvalidInputError          bad input; nothing was written
    │   ├── MissingScopeError      no (or a blank) user_id / thread_id where one is required
    │   │   └── InvalidScopeError  a scope id that is not a clean string (see below)
    │   ├── EmptyContentError      empty or whitespace-only content
    │   ├── ContentTooLargeError   content longer than the configured limit
    │   ├── UnknownRoleError       a role outside user / assistant / tool / system
    │   ├── DimensionMismatchError a vector whose length is not the store's dimension
    │   ├── ProfileSchemaError     a structured profile that fails its pydantic model
    │   ├── UnknownOptionError     a kind / mode / strategy / state outside its allowed values
    │   ├── InvalidNumberError     a count out of range (k <= 0, k > 1,000), NaN or infinity
    │   ├── InvalidTextError       text that is not valid Unicode (a lone surrogate)
    │   ├── InvalidTimeError       a datetime that cannot be converted to UTC (overflow)
    │   ├── SessionEndedError      a turn or a start for a session that has ended
    │   └── ClientClosedError      a sync ``Memory`` used after ``close()``
    ├── ConfigError                a setting that cannot be used (bad value, missing key)
    ├── StoreError                 the store could not do what was asked
    │   ├── NotAStoreError         the file is not an agent-memory store (or is corrupt)
    │   │   ├── CorruptStoreError  the file failed its integrity check on open (nothing written)
    │   │   └── StoreNotFoundError no file at the path a command needing a store was given
    │   ├── EmbeddingMismatchError the store was built with another embedding model
    │   ├── SchemaVersionError     the store is newer than this library
    │   ├── RecordNotFoundError    no record with that id in the user's partition
    │   │   └── SessionNotFoundError  no session with that id for the user
    │   └── ConflictError          a conditional write lost to a concurrent one (stale version),
    │                              or an id already taken (a turn re-added with other content)
    ├── EmbedderError              the embedding model failed or is unavailable
    │   └── ModelUnavailableError  local weights / runtime missing
    ├── ReasonerError              a reasoning step failed
    │   └── MalformedOutputError   an LLM kept answering with output that fails validation
    └── ServiceError               the memory service (``RemoteMemory``) could not be reached,
                                   or answered a problem type this client has no class for

Scope ids (``user_id``, ``thread_id``, ``agent_id``, ``session_id``) are used exactly as given:
one with surrounding whitespace or a control character (``'victim '``, ``'victim\\x1f'``,
``'\\x00'``), a lone surrogate or a non-string value raises :class:`InvalidScopeError`; it is
never stripped into another user's id.

SDK errors (``sqlite3``, ``openai``, ``azure.cosmos``) are translated where they enter the
library; the original is kept as ``__cause__``.
"""

from __future__ import annotations


class AgentMemoryError(Exception):
    """Base class of every error raised by agent-memory."""


class InvalidInputError(AgentMemoryError, ValueError):
    """The input cannot be accepted; the store is unchanged."""


class MissingScopeError(InvalidInputError):
    """A ``user_id`` (or another required scope such as ``thread_id``) is missing or blank."""


class EmptyContentError(InvalidInputError):
    """Content is empty or only whitespace."""


class ContentTooLargeError(InvalidInputError):
    """Content exceeds the configured maximum length (characters)."""


class UnknownRoleError(InvalidInputError):
    """A turn's role is not one of ``user``, ``assistant``, ``tool``, ``system``."""


class SessionEndedError(InvalidInputError):
    """The session has ended (by this client or any other): it takes no more turns and
    cannot be started again; start a session under a new id."""


class DimensionMismatchError(InvalidInputError):
    """A vector's length differs from the dimension the store was built with."""


class ConfigError(AgentMemoryError, ValueError):
    """A configuration value is invalid or a required one is missing."""


class StoreError(AgentMemoryError):
    """The store failed to carry out an operation."""


class NotAStoreError(StoreError):
    """The file is not an agent-memory store: another program's, corrupt
    (:class:`CorruptStoreError`) or, for a command that needs an existing store, absent
    (:class:`StoreNotFoundError`)."""


class StoreNotFoundError(NotAStoreError):
    """No file at the store path given to a command that needs an existing store
    (``search``, ``facts``, ``restore``, ...): it refuses to create an empty one, so a
    mistyped ``--store`` is not read as "no memories"."""


class CorruptStoreError(NotAStoreError):
    """The SQLite file failed ``PRAGMA quick_check`` when it was opened: pages or indexes
    are damaged. The store refuses it before any write (it never writes to a file that
    failed the check); the message names the file and the way back: restore a backup, or
    salvage what is readable with ``sqlite3 <file> .recover | sqlite3 <new file>``.

    Attributes:
        path: the file.
        problems: the first lines ``quick_check`` reported.
    """

    def __init__(self, message: str, path: str | None = None,
                 problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.problems = list(problems or [])


class EmbeddingMismatchError(StoreError):
    """The store records another embedding model or dimension than the one configured."""


class SchemaVersionError(StoreError):
    """The store was written by a newer version of agent-memory."""


class RecordNotFoundError(StoreError, KeyError):
    """No record with the given id exists in the user's partition."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else "record not found"


class EmbedderError(AgentMemoryError):
    """An embedding model failed."""


class ModelUnavailableError(EmbedderError):
    """The local model's weights or runtime are not installed or cannot be loaded."""


class ReasonerError(AgentMemoryError):
    """A reasoning step (summarize, extract, reflect, ...) failed."""


class MalformedOutputError(ReasonerError):
    """The model's output failed validation even after the repair attempts.

    Attributes:
        raw: the last raw output received.
    """

    def __init__(self, message: str, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw


class ProfileSchemaError(InvalidInputError):
    """A structured profile does not validate against the configured pydantic model; the
    stored profile is unchanged."""


class SessionNotFoundError(RecordNotFoundError):
    """No session with the given id exists for the user (reads never create one)."""


class ConflictError(StoreError):
    """A conditional write found the stored record changed since it was read (its version,
    an ETag in Cosmos DB terms, differs), or a record to create already exists. Nothing was
    written: re-read the record and apply the change again. ``add_turns`` raises it too for
    a turn id that names a stored turn with another thread, role, agent, content or ``seq``
    (a stored turn is never rewritten: store the new turn under a new id).

    Attributes:
        ids: ids of the records whose versions did not match.
    """

    def __init__(self, message: str, ids: list[str] | None = None) -> None:
        super().__init__(message)
        self.ids = list(ids or [])
class InvalidScopeError(MissingScopeError):
    """A scope id (``user_id``, ``thread_id``, ``agent_id``, ``session_id``) is given but is not
    a clean string: not a ``str``, surrounded by whitespace, holding a control character
    (``\\x00``-``\\x1f``, ``\\x7f``-``\\x9f``) or a lone surrogate. Ids are never stripped, so
    ``'victim '`` cannot read user ``victim``'s records. A :class:`MissingScopeError`, so one
    ``except`` clause catches every unusable scope."""


class UnknownOptionError(InvalidInputError):
    """A named option (record kind, search mode, recall strategy, relevance source, job
    state, ...) is not one of its allowed values; the message lists them."""


class InvalidNumberError(InvalidInputError):
    """A number is out of its range: a count such as ``k`` below 1 or above its maximum, or a
    float that is NaN or infinite."""


class InvalidTextError(InvalidInputError):
    """Text (content, query, context) is not a string or cannot be encoded as UTF-8 (it holds
    a lone surrogate such as ``"\\ud800"``)."""


class InvalidTimeError(InvalidInputError):
    """A datetime (or time-to-live) cannot be used: converting it to UTC, or subtracting it
    from now, leaves the range of ``datetime`` (e.g. ``datetime.max`` with a negative
    offset, year 1 with a positive one)."""


class ClientClosedError(InvalidInputError):
    """A sync :class:`~agent_memory.Memory` was called after :meth:`~agent_memory.Memory.close`
    (its event-loop thread is stopped); open a new one."""


class ServiceError(AgentMemoryError):
    """The memory service could not be reached (connection refused, timed out, reset after
    the retries allowed), or it answered an error whose problem ``type`` names no class of
    this module (an older client, a proxy's own error page). Raised by
    :class:`~agent_memory.remote.RemoteMemory`; every known problem type is raised as its own
    class instead (a 409 as :class:`ConflictError`, a 422 as the input error named).

    Attributes:
        status: the HTTP status code, or ``None`` when no response arrived.
        problem_type: the problem's ``type`` URI, when the response was problem details.
    """

    def __init__(self, message: str, status: int | None = None,
                 problem_type: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.problem_type = problem_type
