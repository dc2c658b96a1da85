"""An offline, deterministic model for the OpenAI Agents SDK (tests, demos, doc examples).

:class:`ScriptedModel` replays fixed replies: a string is an assistant message, a
:class:`ToolCall` a function call the SDK then runs. It records every input it was given
(``model.inputs``), so a test can check what history the agent saw. Plug it in with
``RunConfig(model_provider=ScriptedProvider(model))`` or ``Agent(model=model)``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

try:
    from agents import Model, ModelProvider, ModelResponse, Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("agent_memory.integrations.scripted_agents needs openai-agents: "
                      "pip install 'agent-memory[openai-agents]'") from exc

from ..errors import InvalidInputError


@dataclass(frozen=True)
class ToolCall:
    """A scripted function call: the tool's name and its arguments (a JSON object)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


class ScriptedModel(Model):
    """Replies with ``replies`` in order, one per model call (see the module docstring).

    Args:
        replies: strings (assistant messages) and :class:`ToolCall` s.

    Raises:
        InvalidInputError: called more times than there are replies.
    """

    def __init__(self, replies: Sequence[str | ToolCall]) -> None:
        self.replies = list(replies)
        self.inputs: list[list[Any]] = []
        self.calls = 0

    async def get_response(self, system_instructions: str | None, input: Any,
                           *args: Any, **kwargs: Any) -> ModelResponse:
        """The next scripted reply as a ``ModelResponse`` (``input`` is recorded)."""
        self.inputs.append([{"role": "user", "content": input}] if isinstance(input, str)
                           else list(input))
        if self.calls >= len(self.replies):
            raise InvalidInputError(f"the script has {len(self.replies)} replies; "
                                    f"call {self.calls + 1} has none")
        reply = self.replies[self.calls]
        self.calls += 1
        n = self.calls
        output: list[Any]
        if isinstance(reply, ToolCall):
            output = [ResponseFunctionToolCall(
                type="function_call", id=f"fc_{n}", call_id=f"call_{n}", name=reply.name,
                arguments=json.dumps(reply.arguments), status="completed")]
        else:
            output = [ResponseOutputMessage(
                type="message", id=f"msg_{n}", role="assistant", status="completed",
                content=[ResponseOutputText(type="output_text", text=reply, annotations=[])])]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        """Not scripted: use ``Runner.run``, not ``Runner.run_streamed``."""
        raise NotImplementedError("ScriptedModel does not stream; use Runner.run")


class ScriptedProvider(ModelProvider):
    """A model provider that always returns one :class:`ScriptedModel`."""

    def __init__(self, model: ScriptedModel) -> None:
        self.model = model

    def get_model(self, model_name: str | None) -> Model:
        """The scripted model, whatever the name."""
        return self.model


__all__ = ["ScriptedModel", "ScriptedProvider", "ToolCall"]
