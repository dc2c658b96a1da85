"""Every endpoint through a real HTTP client against the service on a loopback port."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.service.problems import PROBLEM_JSON


@pytest.fixture(scope="module")
def alice(served):
    with served.client("alice") as client:
        yield client


@pytest.fixture(scope="module")
def loaded(served, alice, conversation):
    """Alice's store holds the two LoCoMo sessions, stored through the batch endpoint."""
    response = alice.post("/v1/users/alice/turns", json={"turns": conversation})
    assert response.status_code == 201, response.text
    return response.json()


def test_health_and_readiness_need_no_key(served) -> None:
    with served.client() as anonymous:
        assert anonymous.get("/healthz").json() == {"status": "ok"}
        assert anonymous.get("/readyz").json() == {"status": "ok"}


def test_batch_add_stores_every_turn_in_thread_order(loaded, conversation, alice) -> None:
    assert [t["id"] for t in loaded] == [t["id"] for t in conversation]
    first_thread = conversation[0]["thread_id"]
    thread = alice.get(f"/v1/users/alice/threads/{first_thread}/turns").json()
    expected = [t["id"] for t in conversation if t["thread_id"] == first_thread]
    assert [t["id"] for t in thread] == expected
    assert [t["seq"] for t in thread] == list(range(len(expected)))
    last_two = alice.get(f"/v1/users/alice/threads/{first_thread}/turns", params={"k": 2})
    assert [t["id"] for t in last_two.json()] == expected[-2:]
    threads = alice.get("/v1/users/alice/threads").json()
    assert threads == list(dict.fromkeys(t["thread_id"] for t in conversation))


def test_add_one_turn_assigns_the_next_seq(alice) -> None:
    response = alice.post("/v1/users/alice/threads/chat-1/turns",
                          json={"role": "user", "content": "I adopted a cat named Miso."})
    assert response.status_code == 201
    turn = response.json()
    assert turn["seq"] == 0 and turn["user_id"] == "alice" and turn["kind"] == "turn"
    again = alice.post("/v1/users/alice/threads/chat-1/turns",
                       json={"role": "agent", "content": "Miso is a lovely name."}).json()
    assert again["seq"] == 1 and again["role"] == "assistant"


@pytest.mark.parametrize("mode", ["vector", "text", "hybrid"])
def test_search_every_mode_finds_the_turn(loaded, alice, mode) -> None:
    hits = alice.post("/v1/users/alice/search", json={
        "query": "adopted a cat named Miso", "mode": mode, "k": 5}).json()
    assert "I adopted a cat named Miso." in [h["record"]["content"] for h in hits[:2]]
    assert set(hits[0]["signals"]) <= {"vector", "text"}
    assert hits[0]["provenance"]["kind"] == "turn"


def test_search_filters(loaded, alice, conversation) -> None:
    thread = conversation[0]["thread_id"]
    hits = alice.post("/v1/users/alice/search", json={
        "query": "support group", "kinds": ["turn"], "thread_id": thread, "k": 20}).json()
    assert hits and all(h["record"]["thread_id"] == thread for h in hits)
    late = datetime(2100, 1, 1, tzinfo=UTC).isoformat()
    assert alice.post("/v1/users/alice/search", json={
        "query": "support group", "since": late}).json() == []


def test_memories_page_through_every_record_once(loaded, alice) -> None:
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params = {"kind": "turn", "limit": 7, **({"cursor": cursor} if cursor else {})}
        page = alice.get("/v1/users/alice/memories", params=params).json()
        seen += [r["id"] for r in page["records"]]
        pages += 1
        cursor = page["cursor"]
        if cursor is None:
            break
    everything = alice.get("/v1/users/alice/memories",
                           params={"kind": "turn", "limit": 1000}).json()
    assert everything["cursor"] is None
    assert seen == [r["id"] for r in everything["records"]]
    assert len(seen) == len(set(seen)) and pages == -(-len(seen) // 7)
    one = alice.get(f"/v1/users/alice/memories/{seen[0]}").json()
    assert one["id"] == seen[0]


def test_a_missing_record_is_a_problem_404(alice) -> None:
    response = alice.get("/v1/users/alice/memories/turn_missing")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith(PROBLEM_JSON)
    assert response.json()["title"] == "Not Found"
    assert alice.get("/v1/users/alice/profile").status_code == 404
    assert alice.get("/v1/users/alice/threads/nothing/summary").status_code == 404


def test_pipeline_steps_summary_facts_profile(loaded, alice, conversation) -> None:
    thread = conversation[0]["thread_id"]
    step = alice.post(f"/v1/users/alice/threads/{thread}/summary").json()
    assert step["step"] and step["written"]
    summary = alice.get(f"/v1/users/alice/threads/{thread}/summary").json()
    assert summary["kind"] == "summary" and summary["content"]
    facts = alice.post(f"/v1/users/alice/threads/{thread}/facts").json()
    assert facts["turns_read"] > 0
    assert alice.post("/v1/users/alice/profile").json()["written"]
    profile = alice.get("/v1/users/alice/profile").json()
    assert profile["kind"] == "profile" and profile["content"]
    assert profile["subject"] in {t["speaker"] for t in conversation} and profile["fields"]
    # the other speaker of the two-person thread has a profile of their own
    other = next(t["speaker"] for t in conversation if t["speaker"] != profile["subject"])
    theirs = alice.get("/v1/users/alice/profile", params={"subject": other}).json()
    assert theirs["subject"] == other and theirs["id"] != profile["id"]
    assert alice.get("/v1/users/alice/profile",
                     params={"subject": profile["subject"].upper()}).json()["id"] == profile["id"]
    assert alice.get("/v1/users/alice/profile", params={"subject": "Nobody"}).status_code == 404
    assert alice.get("/v1/users/alice/profile", params={"subject": ""}).status_code == 422
    update = alice.post("/v1/users/alice/profile/reflect")
    assert update.status_code == 200 and "merged" in update.json()


def test_recall_strategies_explain_scores(loaded, alice) -> None:
    for strategy in ("HARD_LIMIT", "COLLECTION_LIMIT", "SUMMARY"):
        result = alice.post("/v1/users/alice/recall", json={
            "context": "What does Caroline do for the LGBTQ community?",
            "strategy": strategy, "max_memories": 3, "update_access": False}).json()
        assert result["strategy"] == strategy and result["candidates"] > 0
        if strategy != "SUMMARY":
            assert 0 < len(result["memories"]) <= 3
            assert all(0 <= m["score"] <= 1 for m in result["memories"])
        else:
            assert result["summary"]
    fused = alice.post("/v1/users/alice/recall", json={
        "context": "support group", "relevance": "fused"}).json()
    assert fused["memories"]


def test_add_memories_reconcile_history_restore(alice) -> None:
    base = datetime(2024, 1, 1, tzinfo=UTC)
    added = alice.post("/v1/users/alice/memories", json={"items": [
        {"content": "Ana lives in Boston.", "subject": "Ana", "confidence": 0.8,
         "created_at": base.isoformat(), "evidence": ["t1"], "collection": "home"},
        {"content": "Ana lives in Porto.", "subject": "Ana", "confidence": 0.8,
         "created_at": (base + timedelta(days=1)).isoformat(), "evidence": ["t2"]},
        {"content": "   "},
    ]}).json()
    assert [i for i, _ in added["added"]] == [0, 1]
    assert [f["index"] for f in added["failed"]] == [2]
    old, new = (fact for _, fact in added["added"])
    result = alice.post("/v1/users/alice/reconcile", json={"n": 50}).json()
    assert result["contradicted"] >= 1  # alice's extracted facts from earlier tests may also change
    history = alice.get(f"/v1/users/alice/facts/{old['id']}/history").json()
    assert [f["id"] for f in history["replaced_by"]] == [new["id"]]
    restored = alice.post(f"/v1/users/alice/facts/{old['id']}/restore")
    assert restored.status_code == 200 and restored.json()["pinned"] is True
    again = alice.post(f"/v1/users/alice/facts/{old['id']}/restore")
    assert again.status_code == 422  # active now: nothing to undo


def test_collections_bind_list_unbind(alice) -> None:
    url = "/v1/users/alice/agents/planner/collections"
    assert alice.put(url, json={"collections": ["home", "work"]}).json() == {"changed": 2}
    assert sorted(alice.get(url).json()) == ["home", "work"]
    assert alice.request("DELETE", url, json={"collections": ["work"]}).json() == {"changed": 1}
    assert alice.get(url).json() == ["home"]


def test_session_lifecycle(alice) -> None:
    started = alice.post("/v1/users/alice/sessions", json={"session_id": "s-1"})
    assert started.status_code == 201 and started.json() == {"session_id": "s-1"}
    for role, text in [("user", "I want to retire at 60 and move to Portugal."),
                       ("assistant", "Retiring at 60 in Portugal is a clear goal."),
                       ("user", "My risk tolerance is low; I prefer bonds.")]:
        turn = alice.post("/v1/users/alice/sessions/s-1/turns",
                          json={"role": role, "content": text})
        assert turn.status_code == 201
    context = alice.get("/v1/users/alice/sessions/s-1/context").json()["context"]
    assert "Portugal" in context
    state = alice.get("/v1/users/alice/sessions/s-1").json()
    assert len(state["buffered"]) == 3
    ended = alice.post("/v1/users/alice/sessions/s-1/end").json()
    assert ended["session"]["status"] == "completed"
    assert any(s["thread_id"] == "s-1" for s in alice.get("/v1/users/alice/sessions").json())
    assert alice.post("/v1/users/alice/sessions/reflect").status_code == 200
    assert alice.post("/v1/users/alice/sessions/s-1/end").status_code == 422  # ended
    missing = alice.get("/v1/users/alice/sessions/nope/context")
    assert missing.status_code == 404
    answer = alice.post("/v1/users/alice/retrieve-facts",
                        json={"query": "When does the user want to retire?"}).json()
    assert answer["answer"] and answer["calls"]


def test_jobs_status(alice, served) -> None:
    assert alice.get("/v1/users/alice/jobs").json() == []
    assert alice.get("/v1/users/alice/jobs", params={"state": "bogus"}).status_code == 422
    with served.client("admin") as admin:
        assert admin.get("/v1/jobs", params={"state": "queued"}).status_code == 200
    assert alice.get("/v1/jobs").status_code == 404


def test_forget_thread_expire_turns_forget_user(served) -> None:
    with served.client("team") as team:
        user = "/v1/users/team-x"
        assert team.post(f"{user}/threads/t/turns",
                         json={"role": "user", "content": "old news"}).status_code == 201
        assert team.post(f"{user}/threads/u/turns",
                         json={"role": "user", "content": "other thread"}).status_code == 201
        report = team.delete(f"{user}/threads/t").json()
        assert report["records"]["turn"] == 1
        expired = team.post(f"{user}/expire-turns", json={"older_than_seconds": 0}).json()
        assert expired["records"].get("turn") == 1
        team.post(f"{user}/threads/v/turns", json={"role": "user", "content": "again"})
        assert team.delete(user).json()["records"]["turn"] == 1
        assert team.get(f"{user}/threads").json() == []


def test_turns_through_rest_and_python_are_the_same_records(served, conversation, tmp_path,
                                                             local_embedder) -> None:
    import asyncio

    from agent_memory import AsyncMemory, Settings

    turns = conversation[:12]
    with served.client("admin") as admin:
        assert admin.post("/v1/users/same/turns", json={"turns": turns}).status_code == 201
        thread = turns[0]["thread_id"]
        over_rest = admin.get(f"/v1/users/same/threads/{thread}/turns").json()

    async def in_process() -> list[dict]:
        settings = Settings.load(store=str(tmp_path / "direct.db"))
        async with AsyncMemory.open(settings, embedder=local_embedder) as memory:
            await memory.add_turns([{**t, "user_id": "same"} for t in turns])
            return [t.model_dump(mode="json") for t in await memory.get_thread("same", thread)]

    direct = asyncio.run(in_process())
    volatile = {"updated_at", "etag"}
    assert [{k: v for k, v in r.items() if k not in volatile} for r in over_rest] == [
        {k: v for k, v in r.items() if k not in volatile} for r in direct]
