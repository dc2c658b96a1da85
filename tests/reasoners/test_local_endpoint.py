"""The LLM reasoner configured from settings, environment and CLI, and long threads sent in
requests that fit a small model's context window; through the real openai SDK with
ScriptedChatModel as its HTTP transport (no network)."""

from __future__ import annotations

import itertools
import re

import pytest
from typer.testing import CliRunner

from agent_memory.cli.app import app
from agent_memory.config import Settings
from agent_memory.datasets.locomo import load_locomo
from agent_memory.errors import ConfigError
from agent_memory.models import Turn
from agent_memory.reasoners import reasoner_from_settings
from agent_memory.reasoners.chunking import SUMMARY_ANSWER_OVERHEAD, message_tokens
from agent_memory.reasoners.scripted import ScriptedChatModel

SUMMARY = {"text": "Caroline talked about her support group.", "key_topics": ["support"],
           "evidence": []}
TURNS = [Turn(id=f"t{i}", user_id="u1", thread_id="s1", role="user", speaker="Caroline",
              content=text, seq=i) for i, text in enumerate(
    ["I went to an LGBTQ support group yesterday.", "Next month I start counseling."])]
_ID = re.compile(r"^\[([^\]]+)\] ", re.MULTILINE)


def _ids(body: dict) -> list[str]:
    """The turn ids shown in a request's conversation (not its earlier turns)."""
    return _ID.findall(body["messages"][-1]["content"].split("</earlier>")[-1])


def _earlier(body: dict) -> list[str]:
    """The turn ids a fact request shows as earlier talk."""
    text = body["messages"][-1]["content"]
    return _ID.findall(text.split("</earlier>")[0]) if "</earlier>" in text else []


@pytest.fixture
def long_thread(locomo_path):
    """The first 200 turns of the first LoCoMo dev conversation (one fact-extraction batch,
    about 9,000 estimated tokens), as one thread."""
    turns = list(load_locomo(locomo_path)[0].turns())[:200]
    return [t.model_copy(update={"thread_id": "long", "seq": i}) for i, t in enumerate(turns)]


def test_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_REASONER", "compatible:qwen2.5:1.5b")
    monkeypatch.setenv("AGENT_MEMORY_REASONER_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("AGENT_MEMORY_REASONER_API_KEY", "local-secret")
    monkeypatch.setenv("AGENT_MEMORY_REASONER_CONTEXT_TOKENS", "8192")
    settings = Settings.load()
    assert settings.reasoner_base_url == "http://127.0.0.1:11434/v1"
    assert settings.reasoner_api_key.get_secret_value() == "local-secret"
    assert "local-secret" not in repr(settings)
    reasoner = reasoner_from_settings(settings)
    assert reasoner.name == "compatible:qwen2.5:1.5b" and reasoner.context_tokens == 8192


async def test_compatible_reasoner_sends_to_the_configured_url_with_the_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-never-sent-elsewhere")
    chat = ScriptedChatModel([SUMMARY])
    settings = Settings.load(reasoner="compatible:llama3.2", store=":memory:",
                             reasoner_base_url="http://127.0.0.1:8080/v1",
                             reasoner_api_key="llama-key")
    reasoner = reasoner_from_settings(settings, http_client=chat.http_client(), max_retries=0)
    draft = await reasoner.summarize_thread(None, TURNS, max_tokens=100)
    assert draft.text == SUMMARY["text"]
    (request,) = chat.http_requests
    assert str(request.url) == "http://127.0.0.1:8080/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer llama-key"
    assert chat.requests[0]["model"] == "llama3.2"


async def test_openai_reasoner_uses_the_base_url_when_set():
    chat = ScriptedChatModel([SUMMARY])
    settings = Settings.load(reasoner="openai:gpt-4o-mini", store=":memory:",
                             reasoner_base_url="http://proxy.internal:4000/v1",
                             reasoner_api_key="proxy-key")
    reasoner = reasoner_from_settings(settings, http_client=chat.http_client(), max_retries=0)
    await reasoner.summarize_thread(None, TURNS, max_tokens=100)
    assert reasoner.name == "openai:gpt-4o-mini"
    assert str(chat.http_requests[0].url) == "http://proxy.internal:4000/v1/chat/completions"
    assert chat.http_requests[0].headers["authorization"] == "Bearer proxy-key"


def test_compatible_without_a_base_url_names_the_setting():
    settings = Settings.load(reasoner="compatible:llama3.2", store=":memory:")
    with pytest.raises(ConfigError, match="reasoner_base_url"):
        reasoner_from_settings(settings)
    with pytest.raises(ConfigError, match="reasoner_context_tokens"):
        Settings.load(reasoner_context_tokens=1000)


def test_extractive_ignores_the_endpoint_settings():
    settings = Settings.load(reasoner="extractive", reasoner_base_url="http://x/v1",
                             reasoner_api_key="k", store=":memory:")
    assert reasoner_from_settings(settings).name == "extractive"


async def test_long_thread_summary_is_folded_in_requests_that_fit(long_thread):
    def answer(body):
        ids = _ids(body)
        return {"text": f"Summary up to {ids[-1]}.", "key_topics": ["life"],
                "evidence": [ids[0], ids[-1]]}

    chat = ScriptedChatModel([answer] * 20)
    settings = Settings.load(reasoner="compatible:small", reasoner_base_url="http://h/v1",
                             store=":memory:")
    reasoner = reasoner_from_settings(settings, http_client=chat.http_client(), max_retries=0)
    draft = await reasoner.summarize_thread(None, long_thread, max_tokens=200)

    assert len(chat.requests) >= 3  # ~9,000 tokens of turns in a 4,096-token window
    for body in chat.requests:
        assert message_tokens(body["messages"]) + 200 + SUMMARY_ANSWER_OVERHEAD <= 4096
    shown = [i for body in chat.requests for i in _ids(body)]
    assert shown == [t.id for t in long_thread]  # every turn once, in order
    # each request after the first carries the previous answer as its previous summary
    for before, body in zip(chat.requests, chat.requests[1:], strict=False):
        expected = f"Summary up to {_ids(before)[-1]}."
        assert f"<previous_summary>\n{expected}\n</previous_summary>" in body["messages"][-1]["content"]
    assert draft.text == f"Summary up to {long_thread[-1].id}."
    assert draft.evidence[0] == long_thread[0].id and long_thread[-1].id in draft.evidence


async def test_long_thread_facts_come_from_every_request(long_thread):
    def answer(body):
        first = _ids(body)[0]
        return {"facts": [{"text": f"Caroline said a fact in {first}.", "subject": "Caroline",
                           "category": "event", "confidence": 0.9, "importance": 5,
                           "evidence": _ids(body), "occurred_at": None}]}

    chat = ScriptedChatModel([answer] * 40)
    settings = Settings.load(reasoner="compatible:small", reasoner_base_url="http://h/v1",
                             reasoner_context_tokens=3000, store=":memory:")
    reasoner = reasoner_from_settings(settings, http_client=chat.http_client(), max_retries=0)
    result = await reasoner.extract_facts(long_thread)

    for body in chat.requests:
        assert message_tokens(body["messages"]) + 3000 // 4 <= 3000
    # the vague "Caroline said a fact in ..." drops the numbers some turns state: those turns
    # are asked again narrower, after their request; the thread's requests cover it in order
    main = [b for b in chat.requests if "about its speaker" not in b["messages"][0]["content"]]
    assert len(main) >= 5
    assert [f.evidence[0] for f in result.facts] == [_ids(b)[0] for b in chat.requests]
    assert [i for b in main for i in _ids(b)] == [t.id for t in long_thread]
    # each request after the first shows the turns just before its own as earlier talk
    assert not _earlier(main[0])
    for before, body in itertools.pairwise(main):
        assert _earlier(body) and _earlier(body)[-1] == _ids(before)[-1]


async def test_a_turn_longer_than_the_window_is_cut(long_thread):
    huge = long_thread[0].model_copy(update={"content": "word " * 6000})
    fact = {"text": "A fact.", "evidence": [long_thread[0].id, long_thread[1].id]}
    chat = ScriptedChatModel([{"facts": [fact]}] * 4)
    settings = Settings.load(reasoner="compatible:small", reasoner_base_url="http://h/v1",
                             store=":memory:")
    reasoner = reasoner_from_settings(settings, http_client=chat.http_client(), max_retries=0)
    await reasoner.extract_facts([huge, long_thread[1]])
    # two fact requests; "A fact." names no one and is dropped, so a turn it was the only
    # fact of may be asked again, narrower
    main = [b for b in chat.requests if "about its speaker" not in b["messages"][0]["content"]]
    assert len(main) == 2
    assert all(message_tokens(b["messages"]) + 1024 <= 4096 for b in chat.requests)


def test_cli_reasoner_options_reach_the_settings(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENT_MEMORY_REASONER_BASE_URL", raising=False)
    data = tmp_path / "t.jsonl"
    data.write_text('{"user_id": "u", "thread_id": "t", "role": "user", "content": "hi"}\n')
    store = str(tmp_path / "m.db")
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", str(data), "--store", store, "--no-pipeline",
                                 "--reasoner", "compatible:qwen"])
    assert result.exit_code == 2 and "reasoner_base_url" in result.output
    result = runner.invoke(app, ["ingest", str(data), "--store", store, "--no-pipeline",
                                 "--reasoner", "compatible:qwen",
                                 "--reasoner-base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 0, result.output
