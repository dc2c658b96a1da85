"""The JSON-lines turn format: reading, writing, line-numbered errors, the documented example."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from agent_memory.datasets.jsonl import default_turn_id, dump_jsonl, iter_jsonl, load_jsonl
from agent_memory.datasets.locomo import load_locomo
from agent_memory.errors import (
    EmptyContentError,
    InvalidInputError,
    MissingScopeError,
    UnknownRoleError,
)
from agent_memory.models import Role, Turn

DOC = Path(__file__).resolve().parents[2] / "docs" / "jsonl-format.md"


def _write(path: Path, *lines: object) -> Path:
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
        encoding="utf-8",
    )
    return path


def _line(**overrides) -> dict:
    base = {"user_id": "u1", "thread_id": "t1", "role": "user", "content": "hello"}
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not ...}


def test_reads_turns_with_all_fields(tmp_path):
    path = _write(
        tmp_path / "t.jsonl",
        _line(content="I'm saving for a house.", speaker="Alice", agent_id="advisor",
              created_at="2024-03-01T10:15:00+01:00", id="turn-1",
              metadata={"tool_name": "x"}),
        "",
        "   ",
        _line(role="agent", content="Noted."),
    )
    first, second = load_jsonl(path)
    assert isinstance(first, Turn)
    assert first.id == "turn-1" and first.speaker == "Alice" and first.agent_id == "advisor"
    assert first.created_at == datetime(2024, 3, 1, 9, 15, tzinfo=UTC)
    assert first.metadata == {"tool_name": "x"} and first.role is Role.USER
    assert second.role is Role.ASSISTANT and second.speaker is None and second.metadata == {}
    assert second.seq == -1  # the store assigns seq on write


def test_naive_timestamps_are_utc(tmp_path):
    (turn,) = load_jsonl(_write(tmp_path / "t.jsonl", _line(created_at="2024-03-01T09:00:00")))
    assert turn.created_at == datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def test_default_ids_are_deterministic_and_per_thread(tmp_path):
    path = _write(
        tmp_path / "t.jsonl",
        _line(content="same"),
        _line(content="same"),
        _line(thread_id="t2", content="same"),
        _line(user_id="u2", content="same"),
    )
    ids = [t.id for t in load_jsonl(path)]
    assert ids == [t.id for t in load_jsonl(path)]
    assert len(set(ids)) == 4
    assert ids[0] == default_turn_id("u1", "t1", 0, "same")
    assert ids[1] == default_turn_id("u1", "t1", 1, "same")
    assert ids[2] == default_turn_id("u1", "t2", 0, "same")
    assert ids[3] == default_turn_id("u2", "t1", 0, "same")
    assert re.fullmatch(r"turn_[0-9a-f]{32}", ids[0])


@pytest.mark.parametrize(
    ("line", "error", "message"),
    [
        ("{not json", InvalidInputError, "invalid JSON"),
        ("[1, 2]", InvalidInputError, "expected a JSON object, got list .a LoCoMo JSON file"),
        (_line(user_id=...), InvalidInputError, "missing required key.*user_id"),
        (_line(user_id="  "), MissingScopeError, "user_id"),
        (_line(thread_id=""), MissingScopeError, "thread_id"),
        (_line(role="bot"), UnknownRoleError, "role.*bot"),
        (_line(content=""), EmptyContentError, "content"),
        (_line(content=5), InvalidInputError, "content"),
        (_line(created_at="last tuesday"), InvalidInputError, "created_at"),
        (_line(metadata=[1]), InvalidInputError, "metadata"),
        (_line(seq=3), InvalidInputError, "unknown key.*seq"),
    ],
)
def test_errors_name_the_line(tmp_path, line, error, message):
    path = _write(tmp_path / "bad.jsonl", _line(), "", line)
    with pytest.raises(error, match=f"bad.jsonl line 3: .*{message}"):
        load_jsonl(path)


def test_streaming_yields_good_lines_before_the_bad_one(tmp_path):
    path = _write(tmp_path / "t.jsonl", _line(), _line(role="bot"))
    stream = iter_jsonl(path)
    assert next(stream).content == "hello"
    with pytest.raises(UnknownRoleError, match="line 2"):
        next(stream)


def test_unreadable_files(tmp_path):
    with pytest.raises(InvalidInputError, match="cannot read"):
        load_jsonl(tmp_path / "absent.jsonl")
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(json.dumps(_line()).encode() + b"\n" + b'{"content": "caf\xe9"}\n')
    with pytest.raises(InvalidInputError, match="line 2: not UTF-8"):
        load_jsonl(bad)


def test_byte_order_mark_is_tolerated(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(_line()).encode() + b"\n")
    assert load_jsonl(path)[0].content == "hello"


def test_round_trip_keeps_every_field(tmp_path):
    turns = [
        Turn(id="a", user_id="u", thread_id="t", role="user", content="naïve café ☕",
             speaker="Zoë",
             created_at=datetime(2024, 1, 1, 12, tzinfo=timezone(timedelta(hours=2))),
             metadata={"k": [1, {"x": None}]}),
        Turn(id="b", user_id="u", thread_id="t", role="tool", agent_id="ag", content="{}",
             metadata={"tool_name": "f", "tool_call_id": "c1"}),
    ]
    path = tmp_path / "out.jsonl"
    assert dump_jsonl(turns, path) == 2
    again = load_jsonl(path)
    assert [t.model_dump(exclude={"updated_at"}) for t in again] == [
        t.model_dump(exclude={"updated_at"}) for t in turns
    ]


def test_dump_requires_thread_and_keeps_old_file_on_error(tmp_path):
    path = _write(tmp_path / "out.jsonl", _line())
    before = path.read_text()
    with pytest.raises(InvalidInputError, match="thread_id"):
        dump_jsonl([Turn(id="x", user_id="u", role="user", content="c")], path)
    with pytest.raises(InvalidInputError, match="JSON"):
        dump_jsonl([Turn(id="x", user_id="u", thread_id="t", role="user", content="c",
                         metadata={"when": object()})], path)
    assert path.read_text() == before


def test_locomo_round_trip(tmp_path, locomo_path):
    samples = load_locomo(locomo_path)
    turns = [t for s in samples for t in s.turns()]
    path = tmp_path / "locomo.jsonl"
    assert dump_jsonl(turns, path) == len(turns) == 2760
    again = load_jsonl(path)
    # seq is not part of the format (the store assigns it); every other field survives
    fields = {"id", "user_id", "thread_id", "agent_id", "role", "speaker", "content",
              "created_at", "metadata"}
    assert [t.model_dump(include=fields) for t in again] == [
        t.model_dump(include=fields) for t in turns
    ]


def test_documented_example_parses(tmp_path):
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```jsonl\n(.*?)```", text, re.DOTALL).group(1)
    turns = load_jsonl(_write(tmp_path / "example.jsonl", block))
    assert [t.role.value for t in turns] == ["user", "assistant", "tool", "user"]
    assert {t.thread_id for t in turns} == {"2024-03-01-planning", "2024-03-08-follow-up"}
    assert turns[2].metadata["tool_call_id"] == "call_1"
    assert turns[3].id == "alice-0002-0"
