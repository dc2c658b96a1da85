"""The :class:`MemoryFilter` value object: values normalized when made, bad ones refused with
the typed errors of the Python API, keywords over a ``filter=`` argument, and its REST form."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from agent_memory import MemoryFilter
from agent_memory.errors import (
    InvalidInputError,
    InvalidScopeError,
    InvalidTimeError,
    UnknownOptionError,
)
from agent_memory.filters import FILTER_FIELDS, VALUE_KINDS, filter_fields
from agent_memory.models import RecordKind


def test_values_are_normalized() -> None:
    lisbon = timezone(timedelta(hours=1))
    value = MemoryFilter(kinds=["fact", RecordKind.TURN], since=datetime(2024, 5, 1, 12),
                         until=datetime(2024, 6, 1, 13, tzinfo=lisbon))
    assert value.kinds == frozenset({RecordKind.FACT, RecordKind.TURN})
    assert value.since == datetime(2024, 5, 1, 12, tzinfo=UTC)  # naive: UTC
    assert value.until == datetime(2024, 6, 1, 12, tzinfo=UTC)
    assert MemoryFilter(kinds="fact").kinds == frozenset({RecordKind.FACT})  # one name
    assert MemoryFilter(kinds=[]).kinds is None  # no kinds: no filter
    assert value == MemoryFilter(kinds=["turn", "fact"], since=datetime(2024, 5, 1, 12, tzinfo=UTC),
                                 until=datetime(2024, 6, 1, 12, tzinfo=UTC))
    assert len({value, MemoryFilter(**value.values())}) == 1  # frozen and hashable


@pytest.mark.parametrize(("bad", "error"), [
    ({"kinds": ["facts"]}, UnknownOptionError),
    ({"thread_id": "t1\x00"}, InvalidScopeError),
    ({"agent_id": " coach"}, InvalidScopeError),
    ({"since": "2024-05-01"}, InvalidTimeError),
    ({"as_of": datetime.max.replace(tzinfo=timezone(timedelta(hours=-5)))}, InvalidTimeError),
    ({"include_superseded": "yes"}, InvalidInputError),
])
def test_bad_values_are_typed_errors(bad, error) -> None:
    with pytest.raises(error):
        MemoryFilter(**bad)


def test_keywords_go_over_the_filter_argument() -> None:
    base = MemoryFilter(kinds=["fact"], thread_id="t1")
    assert MemoryFilter.build(base, {"thread_id": "t2"}) == MemoryFilter(kinds=["fact"],
                                                                         thread_id="t2")
    assert MemoryFilter.build(base, {}) is base
    assert MemoryFilter.build(None, {"agent_id": "a"}) == MemoryFilter(agent_id="a")
    with pytest.raises(TypeError, match="'kind'"):
        MemoryFilter.build(None, {"kind": ["fact"]})
    with pytest.raises(InvalidInputError, match="MemoryFilter"):
        MemoryFilter.build({"kinds": ["fact"]}, {})  # type: ignore[arg-type]
    with pytest.raises(InvalidScopeError):
        MemoryFilter.build(base, {"thread_id": "t 2 "})


def test_rest_form() -> None:
    value = MemoryFilter(kinds=["turn", "fact"], since=datetime(2024, 5, 1, tzinfo=UTC),
                         include_superseded=True)
    assert value.to_json() == {"kinds": ["fact", "turn"], "since": "2024-05-01T00:00:00+00:00",
                               "include_superseded": True}
    assert value.to_query() == {"kind": ["fact", "turn"], "since": "2024-05-01T00:00:00+00:00",
                                "include_superseded": True}
    assert MemoryFilter().to_json() == {}


def test_every_field_says_how_surfaces_show_it() -> None:
    specs = dict(filter_fields())
    assert tuple(specs) == FILTER_FIELDS
    for name, meta in specs.items():
        assert meta["value"] in VALUE_KINDS, name
        assert meta["option"].startswith("--") and meta["help"].endswith("."), name
