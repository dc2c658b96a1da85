"""reasoner_timeout and the retry policy of the LLM reasoner (reasoners/openai_retry.py),
through the real openai SDK over an httpx MockTransport (ScriptedChatModel): a timed-out
request is never sent again; a request the server provably dropped is."""

from __future__ import annotations

import httpx
import openai
import pytest
from typer.testing import CliRunner

from agent_memory.cli.reasoner_options import reasoner_overrides
from agent_memory.config import Settings
from agent_memory.errors import ConfigError, ReasonerError
from agent_memory.reasoners import reasoner_from_settings
from agent_memory.reasoners.openai import OpenAIReasoner
from agent_memory.reasoners.openai_retry import retry_after
from agent_memory.reasoners.scripted import ScriptedChatModel, ScriptedHTTPError

from .test_openai_reasoner import GOOD_FACTS, TURNS


def _reasoner(chat: ScriptedChatModel, **options) -> OpenAIReasoner:
    """A compatible reasoner building its own SDK client (so its own retry settings apply)
    over the scripted transport."""
    return OpenAIReasoner("qwen-test", base_url="http://local.test/v1",
                          http_client=chat.http_client(), **options)


def _raise(error: type[Exception]):
    def reply(body: dict):
        raise error("scripted transport failure")
    return reply


async def test_a_timed_out_request_is_not_sent_again():
    chat = ScriptedChatModel([_raise(httpx.ReadTimeout), GOOD_FACTS])
    reasoner = _reasoner(chat, timeout=7.5, max_retries=3)
    with pytest.raises(ReasonerError, match=r"within 7.5 s \(reasoner_timeout\); not re-sent") \
            as info:
        await reasoner.extract_facts(TURNS)
    assert isinstance(info.value.__cause__, openai.APITimeoutError)
    assert len(chat.requests) == 1 and chat.remaining == 1


async def test_the_timeout_reaches_the_sdk_client():
    reasoner = _reasoner(ScriptedChatModel(), timeout=321.0)
    assert reasoner.chat.client.timeout == 321.0
    assert reasoner.chat.client.max_retries == 0  # the SDK would re-send timed-out requests


@pytest.mark.parametrize("failure", [httpx.ConnectError, httpx.ConnectTimeout,
                                     httpx.RemoteProtocolError])
async def test_a_request_the_server_never_took_is_sent_again(failure):
    chat = ScriptedChatModel([_raise(failure), GOOD_FACTS])
    result = await _reasoner(chat, max_retries=1).extract_facts(TURNS)
    assert len(result.facts) == 2 and len(chat.requests) == 2


@pytest.mark.parametrize("status", [429, 503, 408])
async def test_busy_statuses_are_retried_after_retry_after(status):
    busy = ScriptedHTTPError(status, "busy", type="server_error", headers=(("Retry-After", "0"),))
    chat = ScriptedChatModel([busy, busy, GOOD_FACTS])
    result = await _reasoner(chat, max_retries=2).extract_facts(TURNS)
    assert len(result.facts) == 2 and len(chat.requests) == 3


async def test_retries_are_bounded_by_max_retries():
    busy = ScriptedHTTPError(503, "loading model", type="server_error",
                             headers=(("Retry-After", "0"),))
    chat = ScriptedChatModel([busy, busy, GOOD_FACTS])
    with pytest.raises(ReasonerError, match="HTTP 503"):
        await _reasoner(chat, max_retries=1).extract_facts(TURNS)
    assert len(chat.requests) == 2


async def test_a_retry_after_longer_than_a_minute_is_not_waited_for():
    busy = ScriptedHTTPError(429, "later", type="rate_limit_error",
                             headers=(("Retry-After", "3600"),))
    chat = ScriptedChatModel([busy, GOOD_FACTS])
    with pytest.raises(ReasonerError, match="HTTP 429"):
        await _reasoner(chat, max_retries=3).extract_facts(TURNS)
    assert len(chat.requests) == 1


@pytest.mark.parametrize("status", [500, 502, 504])
async def test_server_errors_and_gateway_timeouts_are_not_retried(status):
    chat = ScriptedChatModel([ScriptedHTTPError(status, "boom", type="server_error"), GOOD_FACTS])
    with pytest.raises(ReasonerError, match=f"HTTP {status}"):
        await _reasoner(chat, max_retries=3).extract_facts(TURNS)
    assert len(chat.requests) == 1


def test_retry_after_reads_seconds_milliseconds_and_dates():
    assert retry_after(httpx.Headers({"Retry-After": "2"})) == 2.0
    assert retry_after(httpx.Headers({"retry-after-ms": "1500"})) == 1.5
    assert retry_after(httpx.Headers({"Retry-After": "Thu, 01 Jan 1970 00:00:00 GMT"})) == 0.0
    assert retry_after(httpx.Headers({})) is None


def test_reasoner_timeout_setting_from_environment_and_overrides(monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_REASONER_TIMEOUT", "450")
    assert Settings.load().reasoner_timeout == 450.0
    settings = Settings.load(**reasoner_overrides("compatible:qwen15", "http://local.test/v1",
                                                  None, "json_object", 900.0))
    assert settings.reasoner_timeout == 900.0
    reasoner = reasoner_from_settings(settings)
    assert isinstance(reasoner, OpenAIReasoner) and reasoner.timeout == 900.0
    assert reasoner.chat.client.timeout == 900.0
    with pytest.raises(ConfigError, match="reasoner_timeout"):
        Settings.load(reasoner_timeout=0)
    with pytest.raises(ConfigError, match="timeout"):
        OpenAIReasoner("m", base_url="http://local.test/v1", timeout=-1)


def test_cli_takes_reasoner_timeout():
    from agent_memory.cli.app import app

    result = CliRunner().invoke(app, ["demo", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "--reasoner-timeout" in result.output
    bad = CliRunner().invoke(app, ["demo", "--reasoner-timeout", "0"])
    assert bad.exit_code != 0
