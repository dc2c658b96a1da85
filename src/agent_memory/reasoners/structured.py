"""Structured output from a chat model: JSON schema in, validated pydantic model out.

Any reasoner method that asks an LLM for a typed answer goes through :func:`complete_structured`:

1. ask the model (the caller's ``ask`` coroutine sends the messages and returns the raw text);
2. parse the text as JSON (a Markdown code fence around it is tolerated), drop ``null`` values
   of fields whose default is not ``None`` (a model's way of saying "nothing"), validate it
   against the pydantic model, then run the task's own ``check`` (e.g. evidence ids);
3. on failure, append the answer and a repair turn listing the errors, and ask again, at most
   ``max_repairs`` times; then raise :class:`~agent_memory.errors.MalformedOutputError` carrying
   the last raw answer.

:func:`response_format` builds the ``response_format`` request parameter of the chat
completions API: ``{"type": "json_schema", "json_schema": {"name", "schema", "strict"}}``, strict
when the model's schema fits the subset strict mode accepts (every key required, closed
objects, no ``minLength``/``maxLength``/``default``), else the plain schema with ``strict: false``.
"""

from __future__ import annotations

import copy
import json
import re
import types
import typing
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import MalformedOutputError
from ..tokens import count_tokens, truncate_tokens
from . import prompts
from .chunking import message_tokens

T = TypeVar("T", bound=BaseModel)

Message = dict[str, Any]
"""One chat message as the chat completions API takes it (``{"role": ..., "content": ...}``)."""

_DROPPED_KEYWORDS = ("default", "minLength", "maxLength", "title")
"""Keywords strict mode rejects or ignores; pydantic still enforces them after parsing."""


class OutputRejected(ValueError):
    """A parsed answer failed a task-level check; the message is shown to the model in repair."""


class _NotStrict(Exception):
    """The schema uses a construct strict mode cannot express (open objects, ``Any``)."""


def schema_name(model: type[BaseModel]) -> str:
    """The ``json_schema.name`` for ``model``: its class name limited to ``[A-Za-z0-9_-]{1,64}``."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", model.__name__)[:64] or "answer"


def strict_schema(model: type[BaseModel]) -> dict[str, Any] | None:
    """Return ``model``'s JSON schema rewritten for strict structured outputs, or ``None``.

    Every object gets ``additionalProperties: false`` and lists all its properties as required
    (a field with a default must then be answered explicitly; ``Optional`` fields stay nullable).
    Returns ``None`` when the schema has an open object (``dict[str, Any]``) or an untyped
    value, which strict mode cannot express.
    """
    schema = copy.deepcopy(model.model_json_schema())
    defs = schema.get("$defs", {})
    try:
        for name, sub in list(defs.items()):
            defs[name] = _strictify(sub)
        body = _strictify({k: v for k, v in schema.items() if k != "$defs"})
    except _NotStrict:
        return None
    if defs:
        body["$defs"] = defs
    return body


def _strictify(node: dict[str, Any]) -> dict[str, Any]:
    if not node:
        raise _NotStrict("untyped value")
    node = {k: v for k, v in node.items() if k not in _DROPPED_KEYWORDS}
    if "$ref" in node and len(node) > 1:
        node = {"$ref": node["$ref"]}  # strict mode wants a bare $ref
    for key in ("anyOf", "allOf"):
        if key in node:
            node[key] = [_strictify(option) for option in node[key]]
    if "items" in node:
        node["items"] = _strictify(node["items"])
    if node.get("type") == "object":
        props = node.get("properties")
        extra = node.get("additionalProperties", False)
        if not props or extra not in (False, None):
            raise _NotStrict("open object")
        node["properties"] = {name: _strictify(sub) for name, sub in props.items()}
        node["required"] = list(props)
        node["additionalProperties"] = False
    return node


def response_format(model: type[BaseModel], *, mode: str = "json_schema") -> dict[str, Any]:
    """The ``response_format`` request parameter asking for ``model`` as JSON.

    Args:
        model: the pydantic model the answer must validate against.
        mode: ``"json_schema"`` (structured outputs) or ``"json_object"`` (JSON mode, for
            endpoints that reject json_schema; the schema then travels in the prompt only).
    """
    if mode == "json_object":
        return {"type": "json_object"}
    strict = strict_schema(model)
    return {
        "type": "json_schema",
        "json_schema": {
            "name": schema_name(model),
            "schema": strict if strict is not None else model.model_json_schema(),
            "strict": strict is not None,
        },
    }


def schema_text(model: type[BaseModel]) -> str:
    """``model``'s JSON schema as compact JSON text, for the prompt."""
    return json.dumps(model.model_json_schema(), separators=(",", ":"), ensure_ascii=False)


_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def load_json(raw: str) -> Any:
    """Parse ``raw`` as JSON, tolerating a Markdown code fence around it.

    Raises:
        OutputRejected: empty output or not valid JSON (the message says where).
    """
    text = raw.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text:
        raise OutputRejected("the answer was empty; a JSON object is required")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise OutputRejected(f"the answer is not valid JSON ({exc})") from None


def drop_default_nulls(data: Any, model: type[BaseModel]) -> Any:
    """Remove ``null`` values of optional fields whose default is not ``None``, recursively.

    A model with nothing to say for a field that has a default (a list, a score) often answers
    ``null``; dropping the key lets pydantic apply the field's default instead of failing.
    """
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for name, field in model.model_fields.items():
        if name not in out:
            continue
        if out[name] is None and not field.is_required() and field.get_default(
            call_default_factory=True
        ) is not None:
            del out[name]
            continue
        for sub in _nested_models(field.annotation):
            if isinstance(out[name], dict):
                out[name] = drop_default_nulls(out[name], sub)
            elif isinstance(out[name], list):
                out[name] = [drop_default_nulls(item, sub) for item in out[name]]
    return out


def _nested_models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if origin is None:
        return []
    if origin in (typing.Union, types.UnionType, list, tuple, set, frozenset):
        return [m for arg in typing.get_args(annotation) for m in _nested_models(arg)]
    return []


def describe_validation_error(exc: ValidationError) -> str:
    """One line per pydantic error: ``path: message (got: value)``, values cut to 80 chars."""
    lines = []
    for err in exc.errors(include_url=False):
        path = ".".join(str(part) for part in err["loc"]) or "(root)"
        got = json.dumps(err.get("input"), ensure_ascii=False, default=str)
        if len(got) > 80:
            got = got[:77] + "..."
        lines.append(f"- {path}: {err['msg']} (got: {got})")
    return "\n".join(lines)


def parse_output(
    raw: str, model: type[T], check: Callable[[T], T] | None = None
) -> T:
    """Parse and validate one raw answer.

    Args:
        raw: the model's text.
        model: the pydantic model to validate against.
        check: optional task-level check/normaliser; raises :class:`OutputRejected` to refuse.

    Raises:
        OutputRejected: the answer is not JSON, fails validation or fails ``check``; the
            message lists every problem, ready for a repair turn.
    """
    data = drop_default_nulls(load_json(raw), model)
    try:
        value = model.model_validate(data)
    except ValidationError as exc:
        raise OutputRejected(
            "the JSON does not match the schema:\n" + describe_validation_error(exc)
        ) from None
    return check(value) if check is not None else value


async def complete_structured(
    ask: Callable[[list[Message]], Awaitable[str]],
    messages: list[Message],
    model: type[T],
    *,
    max_repairs: int = 2,
    check: Callable[[T], T] | None = None,
    context_tokens: int | None = None,
) -> T:
    """Ask until the answer validates against ``model``, repairing at most ``max_repairs`` times.

    A repair request is the opening messages, the last answer and what was wrong with it
    (earlier rounds are not repeated, so repairs never grow the request). With
    ``context_tokens``, the answer shown back is shortened so that the request leaves a quarter
    of the window for the new answer (a small local model's context is 4,096 tokens).

    Args:
        ask: sends a message list to the model and returns the raw answer text; it raises
            :class:`~agent_memory.errors.ReasonerError` for transport/API failures.
        messages: the opening messages (system + user); not modified.
        model: the pydantic model the answer must validate against.
        max_repairs: extra attempts after the first, each with a repair turn (>= 0).
        check: optional task-level check/normaliser, see :func:`parse_output`.
        context_tokens: the model's context window in tokens, or ``None`` (no limit).

    Returns:
        The validated (and checked) model instance.

    Raises:
        MalformedOutputError: still invalid after the repairs; ``raw`` is the last answer.
        ReasonerError: raised by ``ask``.
    """
    conversation: list[Message] = list(messages)
    raw = ""
    problem = ""
    for _attempt in range(max(0, max_repairs) + 1):
        raw = await ask(conversation)
        try:
            return parse_output(raw, model, check)
        except OutputRejected as exc:
            problem = str(exc)
        conversation = _repair_request(messages, raw, prompts.repair_message(problem),
                                       context_tokens)
    raise MalformedOutputError(
        f"model output failed validation as {model.__name__} after {max_repairs} repair(s): "
        f"{' '.join(problem.split())[:300] or 'invalid'}",
        raw=raw,
    )


def _repair_request(messages: list[Message], raw: str, repair: str,
                    context_tokens: int | None) -> list[Message]:
    """The opening ``messages``, the answer ``raw`` (cut to fit ``context_tokens`` with a
    quarter of it left for the new answer) and the ``repair`` turn."""
    if context_tokens is not None:
        fixed = message_tokens([*messages, {"role": "user", "content": repair}]) + 4
        room = max(0, context_tokens - context_tokens // 4 - fixed)
        if count_tokens(raw) > room:
            raw = truncate_tokens(raw, room) if room else ""
    return [*messages, {"role": "assistant", "content": raw}, {"role": "user", "content": repair}]
