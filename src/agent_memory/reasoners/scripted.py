"""A scripted, offline OpenAI-compatible chat completions endpoint, for tests (yours too).

:class:`ScriptedChatModel` is an ``httpx.MockTransport`` handler: the real ``openai`` SDK
builds, sends and parses real HTTP requests and responses, and no byte leaves the process.
It answers ``POST .../chat/completions`` with its scripted replies, in order, and records
every request body.

A reply is one of:

- ``str``: the assistant message content, sent as is;
- ``dict``: sent as JSON text, except ``{"tool_calls": [{"name": ..., "arguments": {...}}]}``
  (optionally with ``"content"``), which becomes an assistant message with tool calls
  (``finish_reason`` ``"tool_calls"``, ids ``call_<request>_<index>``);
- :class:`ScriptedHTTPError`: an error response in the OpenAI error format;
- a callable ``(request_json: dict) -> reply``: called with the request body, returns any of
  the above.

When the script is exhausted the endpoint answers HTTP 500 with a message saying so (the
SDK client from :meth:`ScriptedChatModel.async_client` does not retry).

Example::

    from agent_memory.reasoners import OpenAIReasoner, ScriptedChatModel

    chat = ScriptedChatModel([
        "not json",                                              # malformed: repaired
        {"text": "Caroline adopted a dog.", "key_topics": ["pets"], "evidence": ["t1"]},
    ])
    reasoner = OpenAIReasoner("test-model", client=chat.async_client())
    draft = await reasoner.summarize_thread(None, turns, max_tokens=100)
    assert len(chat.requests) == 2 and chat.remaining == 0
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Union

import httpx

from ..tokens import count_tokens

Reply = Union[str, dict[str, Any], "ScriptedHTTPError", Callable[[dict[str, Any]], Any]]
"""What a script entry may be; see the module docstring."""


@dataclass(frozen=True)
class ScriptedHTTPError:
    """A scripted error response, as an OpenAI-compatible server would send it.

    Attributes:
        status_code: HTTP status (400, 401, 429, 500, ...).
        message: ``error.message`` of the body.
        type: ``error.type`` (``invalid_request_error``, ``rate_limit_error``, ...).
        code: ``error.code``, if any.
        headers: response headers (``{"Retry-After": "0"}``).
    """

    status_code: int
    message: str = "scripted error"
    type: str = "invalid_request_error"
    code: str | None = None
    headers: tuple[tuple[str, str], ...] = ()

    def body(self) -> dict[str, Any]:
        """The JSON body: ``{"error": {"message", "type", "param", "code"}}``."""
        return {
            "error": {"message": self.message, "type": self.type, "param": None, "code": self.code}
        }


class ScriptedChatModel:
    """A fake chat completions endpoint answering from a script.

    Args:
        replies: the replies, in the order requests will get them.
        model: the ``model`` reported in responses when the request names none.

    Attributes:
        requests: every request body received (parsed JSON), in order, errors included.
        http_requests: the matching ``httpx.Request`` objects (URL, headers, query).
    """

    def __init__(self, replies: Iterable[Reply] = (), *, model: str = "scripted-model") -> None:
        self._replies: list[Reply] = list(replies)
        self._next = 0
        self._lock = threading.Lock()
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.http_requests: list[Any] = []

    @property
    def remaining(self) -> int:
        """Number of scripted replies not used yet."""
        return len(self._replies) - self._next

    def add(self, *replies: Reply) -> None:
        """Append replies to the script."""
        with self._lock:
            self._replies.extend(replies)

    # -- the HTTP side ----------------------------------------------------------------------

    def handler(self, request: Any) -> Any:
        """Answer one HTTP request; pass to ``httpx.MockTransport`` (or ``httpx2``'s).

        Returns a response of the same library as ``request``.
        """
        response_cls = _response_class(request)
        path = request.url.path
        if request.method != "POST" or not path.endswith("/chat/completions"):
            return response_cls(
                404,
                json=ScriptedHTTPError(
                    404, f"ScriptedChatModel only serves POST .../chat/completions, got "
                    f"{request.method} {path}", type="not_found_error"
                ).body(),
            )
        try:
            body = json.loads(request.read() or b"{}")
        except json.JSONDecodeError:
            return response_cls(400, json=ScriptedHTTPError(400, "request body is not JSON").body())
        with self._lock:
            self.requests.append(body)
            self.http_requests.append(request)
            index = self._next
            if index >= len(self._replies):
                reply: Reply = ScriptedHTTPError(
                    500,
                    f"ScriptedChatModel: script exhausted, request {index + 1} received but only "
                    f"{len(self._replies)} repl{'y' if len(self._replies) == 1 else 'ies'} "
                    "scripted",
                    type="server_error",
                )
            else:
                reply = self._replies[index]
                self._next += 1
        if callable(reply) and not isinstance(reply, ScriptedHTTPError):
            reply = reply(body)
        if isinstance(reply, ScriptedHTTPError):
            return response_cls(reply.status_code, json=reply.body(),
                                headers=dict(reply.headers))
        return response_cls(200, json=self._completion(body, reply, index))

    def _completion(self, body: dict[str, Any], reply: Any, index: int) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
        finish = "stop"
        if isinstance(reply, dict) and _is_tool_call_reply(reply):
            message["content"] = reply.get("content")
            message["tool_calls"] = [
                {
                    "id": call.get("id") or f"call_{index + 1}_{i}",
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": call["arguments"]
                        if isinstance(call.get("arguments"), str)
                        else json.dumps(call.get("arguments", {})),
                    },
                }
                for i, call in enumerate(reply["tool_calls"])
            ]
            finish = "tool_calls"
        elif isinstance(reply, str):
            message["content"] = reply
        elif isinstance(reply, dict | list):
            message["content"] = json.dumps(reply, ensure_ascii=False)
        else:
            raise TypeError(f"unsupported scripted reply {type(reply).__name__}: {reply!r}")
        prompt_tokens = sum(
            count_tokens(m["content"]) for m in body.get("messages", [])
            if isinstance(m.get("content"), str)
        )
        completion_tokens = count_tokens(json.dumps(message["content"] or message.get("tool_calls")))
        return {
            "id": f"chatcmpl-scripted-{index + 1}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model") or self.model,
            "choices": [
                {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    # -- ready-made clients -----------------------------------------------------------------

    def http_client(self) -> httpx.AsyncClient:
        """An ``httpx.AsyncClient`` whose transport is this endpoint."""
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handler))

    def async_client(self, *, max_retries: int = 0, **options: Any) -> Any:
        """An ``openai.AsyncOpenAI`` wired to this endpoint (``api_key`` ``"test"``).

        Args:
            max_retries: SDK retries; 0 so an error reply is seen at once.
            **options: more ``AsyncOpenAI`` keyword arguments (``base_url``, ``timeout``...).
        """
        import openai  # deferred: importing agent_memory.reasoners must not import openai

        options.setdefault("api_key", "test")
        return openai.AsyncOpenAI(
            http_client=self.http_client(), max_retries=max_retries, **options
        )

    def sync_client(self, *, max_retries: int = 0, **options: Any) -> Any:
        """A synchronous ``openai.OpenAI`` wired to this endpoint."""
        import openai

        options.setdefault("api_key", "test")
        return openai.OpenAI(
            http_client=httpx.Client(transport=httpx.MockTransport(self.handler)),
            max_retries=max_retries,
            **options,
        )


def _is_tool_call_reply(reply: dict[str, Any]) -> bool:
    calls = reply.get("tool_calls")
    return (
        set(reply) <= {"tool_calls", "content"}
        and isinstance(calls, list)
        and all(isinstance(c, dict) and "name" in c for c in calls)
    )


def _response_class(request: Any) -> Any:
    """``Response`` of the library that built ``request`` (httpx or httpx2)."""
    module = sys.modules.get(type(request).__module__.split(".")[0])
    return getattr(module, "Response", httpx.Response)
