"""JSON-mode fallback through the openai SDK's transport: an error body naming the response
format at any status (llama.cpp's server answers HTTP 500), and the fixed modes."""

from __future__ import annotations

import pytest

from agent_memory import Settings
from agent_memory.errors import ConfigError, ReasonerError
from agent_memory.reasoners import ScriptedChatModel, ScriptedHTTPError, reasoner_from_settings
from agent_memory.reasoners.openai import OpenAIReasoner

from .test_openai_reasoner import GOOD_FACTS, TURNS

LLAMA_CPP_500 = ScriptedHTTPError(
    500, "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input "
    "should be 'text' or 'json_object'", type="server_error")


async def test_500_whose_body_names_the_format_falls_back_to_json_mode():
    chat = ScriptedChatModel([LLAMA_CPP_500, GOOD_FACTS, GOOD_FACTS])
    reasoner = OpenAIReasoner("qwen", client=chat.async_client())
    assert len((await reasoner.extract_facts(TURNS)).facts) == 2
    await reasoner.extract_facts(TURNS)
    assert [r["response_format"]["type"] for r in chat.requests] == [
        "json_schema", "json_object", "json_object"]


async def test_500_about_something_else_is_an_error_not_a_fallback():
    chat = ScriptedChatModel([ScriptedHTTPError(500, "out of memory", type="server_error")])
    with pytest.raises(ReasonerError, match="HTTP 500.*out of memory"):
        await OpenAIReasoner("qwen", client=chat.async_client()).extract_facts(TURNS)
    assert len(chat.requests) == 1


async def test_json_object_setting_asks_json_mode_from_the_first_request():
    chat = ScriptedChatModel([GOOD_FACTS])
    reasoner = OpenAIReasoner("qwen", client=chat.async_client(), response_format="json_object")
    await reasoner.extract_facts(TURNS)
    assert chat.requests[0]["response_format"] == {"type": "json_object"}


async def test_json_schema_setting_never_falls_back():
    chat = ScriptedChatModel([LLAMA_CPP_500])
    reasoner = OpenAIReasoner("qwen", client=chat.async_client(), response_format="json_schema")
    with pytest.raises(ReasonerError, match="HTTP 500"):
        await reasoner.extract_facts(TURNS)
    assert len(chat.requests) == 1


def test_setting_reaches_the_reasoner_and_bad_values_are_refused(monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_REASONER_RESPONSE_FORMAT", "json_object")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    reasoner = reasoner_from_settings(Settings.load(reasoner="openai:gpt-test"))
    assert reasoner.response_format == "json_object"
    assert reasoner_from_settings(Settings.load(reasoner="extractive")).name == "extractive"
    with pytest.raises(ConfigError, match="reasoner_response_format"):
        Settings.load(reasoner_response_format="yaml")
    with pytest.raises(ConfigError, match="response_format"):
        OpenAIReasoner("x", api_key="k", response_format="yaml")
