"""ScriptedChatModel answers the real openai SDK over real httpx protocol objects."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from agent_memory.reasoners.scripted import ScriptedChatModel, ScriptedHTTPError

MESSAGES = [{"role": "user", "content": "hello"}]


async def ask(client: openai.AsyncOpenAI, **extra):
    return await client.chat.completions.create(model="m1", messages=MESSAGES, **extra)


async def test_replies_in_order_and_requests_recorded():
    chat = ScriptedChatModel(["first", {"answer": 42}])
    client = chat.async_client()

    one = await ask(client)
    two = await ask(client, temperature=0.5)

    assert one.choices[0].message.content == "first"
    assert one.choices[0].finish_reason == "stop"
    assert one.model == "m1"
    assert json.loads(two.choices[0].message.content) == {"answer": 42}
    assert [r["messages"] for r in chat.requests] == [MESSAGES, MESSAGES]
    assert chat.requests[1]["temperature"] == 0.5
    assert chat.remaining == 0
    assert one.usage.total_tokens > 0


async def test_callable_reply_sees_the_request_body():
    chat = ScriptedChatModel([lambda body: f"you said {body['messages'][-1]['content']}"])
    reply = await ask(chat.async_client())
    assert reply.choices[0].message.content == "you said hello"


async def test_tool_call_reply():
    chat = ScriptedChatModel([
        {"tool_calls": [{"name": "search_insights", "arguments": {"query": "budget", "k": 3}},
                        {"name": "search_interactions", "arguments": "{\"query\": \"car\"}"}]},
        "Final answer.",
    ])
    client = chat.async_client()
    tools = [{"type": "function", "function": {"name": "search_insights",
                                               "parameters": {"type": "object"}}}]
    first = await ask(client, tools=tools)

    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    calls = choice.message.tool_calls
    assert [c.function.name for c in calls] == ["search_insights", "search_interactions"]
    assert json.loads(calls[0].function.arguments) == {"query": "budget", "k": 3}
    assert json.loads(calls[1].function.arguments) == {"query": "car"}
    assert calls[0].id != calls[1].id
    assert chat.requests[0]["tools"][0]["function"]["name"] == "search_insights"
    assert (await ask(client)).choices[0].message.content == "Final answer."


async def test_a_dict_that_merely_has_a_tool_calls_key_is_plain_json():
    chat = ScriptedChatModel([{"tool_calls": [], "note": "data"}])
    reply = await ask(chat.async_client())
    assert json.loads(reply.choices[0].message.content) == {"tool_calls": [], "note": "data"}


async def test_exhausted_script_is_a_clear_http_500():
    chat = ScriptedChatModel(["only one"])
    client = chat.async_client()
    await ask(client)
    with pytest.raises(openai.InternalServerError, match="script exhausted, request 2"):
        await ask(client)
    assert len(chat.requests) == 2  # the failed request is recorded too


async def test_scripted_http_error_reaches_the_sdk_as_its_error_type():
    chat = ScriptedChatModel([ScriptedHTTPError(400, "schema not supported", code="bad_schema")])
    with pytest.raises(openai.BadRequestError, match="schema not supported") as info:
        await ask(chat.async_client())
    assert info.value.status_code == 400
    assert info.value.code == "bad_schema"


async def test_other_endpoints_get_404():
    chat = ScriptedChatModel(["unused"])
    with pytest.raises(openai.NotFoundError, match="only serves"):
        await chat.async_client().embeddings.create(model="e", input=["x"])
    assert chat.remaining == 1 and chat.requests == []


def test_sync_client_and_add():
    chat = ScriptedChatModel()
    chat.add("late reply")
    reply = chat.sync_client().chat.completions.create(model="m", messages=MESSAGES)
    assert reply.choices[0].message.content == "late reply"


async def test_http_client_records_raw_requests():
    chat = ScriptedChatModel(["ok"])
    async with chat.http_client() as http:
        response = await http.post(
            "http://example.invalid/v1/chat/completions", json={"model": "x", "messages": []}
        )
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == "ok"
    assert isinstance(chat.http_requests[0], httpx.Request)
    assert chat.http_requests[0].url.host == "example.invalid"


async def test_handler_also_serves_httpx2_transports():
    httpx2 = pytest.importorskip("httpx2")
    chat = ScriptedChatModel(["via httpx2"])
    client = openai.AsyncOpenAI(
        api_key="k", max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(chat.handler)),
    )
    reply = await ask(client)
    assert reply.choices[0].message.content == "via httpx2"
