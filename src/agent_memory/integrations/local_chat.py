"""An offline Agent Framework chat client: deterministic answers, real tool calling.

:class:`LocalChatClient` needs no model and no network, so agents (and their context
providers) can be exercised end to end in tests, demos and CI. Its policy, per request:

1. the last message is a tool result -> answer ``"From memory: <result>"``;
2. the last user message asks about the past (a question mentioning remember, discuss,
   last time, before, earlier, previous, my ...) and a tool named
   ``retrieve_user_facts`` is offered -> call it with the user's text as ``query``;
3. otherwise -> a short acknowledgement quoting the first line of the instructions' profile
   section, so a reader can see the memory reached the model.

Every request (messages and options, instructions included) is kept in :attr:`requests`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    Message,
)

RECALL_TOOL = "retrieve_user_facts"
_ASKS_ABOUT_PAST = re.compile(
    r"\b(remember|discuss\w*|last time|before|earlier|previous\w*|told you|what do you know|"
    r"my\b)", re.IGNORECASE)


class LocalChatClient(FunctionInvocationLayer, BaseChatClient):
    """A deterministic, offline chat client (see the module docstring).

    Attributes:
        requests: ``(messages, options)`` of every model call, in order.
    """

    OTEL_PROVIDER_NAME = "agent-memory-local"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.requests: list[tuple[list[Message], dict[str, Any]]] = []

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any],
        **kwargs: Any,
    ) -> Any:
        if stream:
            raise NotImplementedError("LocalChatClient does not stream; call run() without "
                                      "stream=True")

        async def respond() -> ChatResponse:
            checked = await self._validate_options(options)
            self.requests.append((list(messages), checked))
            return ChatResponse(messages=[self._reply(list(messages), checked)],
                                response_id=f"local-{len(self.requests)}")

        return respond()

    def _reply(self, messages: list[Message], options: dict[str, Any]) -> Message:
        last = messages[-1] if messages else None
        if last is not None and last.role == "tool":
            results = [c.result for c in last.contents if c.type == "function_result"]
            text = "\n".join(str(r) for r in results if r is not None) or "nothing"
            return Message(role="assistant", contents=[f"From memory: {text}"])
        tools = [getattr(t, "name", None) for t in options.get("tools") or []]
        question = last.text if last is not None and last.role == "user" else ""
        if RECALL_TOOL in tools and question.strip().endswith("?") and \
                _ASKS_ABOUT_PAST.search(question):
            call = Content.from_function_call(call_id=f"call_{len(self.requests)}",
                                              name=RECALL_TOOL, arguments={"query": question})
            return Message(role="assistant", contents=[call])
        return Message(role="assistant", contents=[self._acknowledge(options)])

    @staticmethod
    def _acknowledge(options: dict[str, Any]) -> str:
        instructions = str(options.get("instructions") or "")
        _head, found, rest = instructions.partition("### User profile\n")
        first = rest.splitlines()[0].strip() if found and rest.strip() else ""
        if first and not first.startswith("("):
            return f"Noted. I remember: {first}"
        return "Noted."
