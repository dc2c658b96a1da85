"""The value rules of :mod:`agent_memory.validation` on their own: one rule per kind of value,
the same at every entry point."""

from __future__ import annotations

import base64
import json
import math
from datetime import UTC, datetime

import numpy as np
import pytest

from agent_memory import validation as check
from agent_memory.errors import (
    DimensionMismatchError,
    InvalidInputError,
    InvalidNumberError,
    InvalidScopeError,
    InvalidTextError,
    InvalidTimeError,
    MissingScopeError,
)
from agent_memory.remote._http import Routes
from agent_memory.stores.paging import decode_cursor, encode_cursor


@pytest.mark.parametrize("bad", ["a/b", "/", ".", "..", "x" * 256, "a\x00", " a", "\ud800"])
def test_scope_ids_must_be_one_clean_path_segment(bad) -> None:
    with pytest.raises(InvalidScopeError):
        check.scope(bad)
    with pytest.raises(InvalidScopeError):
        Routes.user_path(bad, "threads")  # the remote client refuses before any request


def test_good_ids_pass_unchanged() -> None:
    for good in ("alice", "acme:alice", "a.b", "...", "x" * 255, "é😀", "a b"):
        assert check.scope(good) == good
    assert check.record_id("summary_" + "u" * 255 + "_" + "t" * 255)
    with pytest.raises(MissingScopeError):
        check.scope("")
    with pytest.raises(InvalidInputError):
        check.record_id("")
    assert check.optional_record_id(None) is None


def test_metadata_is_json_only() -> None:
    assert check.metadata({"a": [1, 2.5, None, True, {"b": "c"}]}) == {
        "a": [1, 2.5, None, True, {"b": "c"}]}
    assert check.metadata(None) == {}
    for bad, error in (({"a": math.nan}, InvalidNumberError), ({"a": -math.inf}, InvalidNumberError),
                       ({"a": 2**64}, InvalidNumberError), ({"\udc80": 1}, InvalidTextError),
                       ({"a": ["\ud800"]}, InvalidTextError), ({1: 1}, InvalidInputError),
                       ({"a": b"x"}, InvalidInputError), ({"a": datetime.now(UTC)},
                                                          InvalidInputError),
                       ([1], InvalidInputError)):
        with pytest.raises(error):
            check.metadata(bad)


def test_times_from_mappings_are_iso_strings() -> None:
    assert check.moment_input("2024-05-01T10:00:00+02:00", "t").hour == 8
    for bad in (10**12, 1.5, "yesterday", "9999-12-31T23:59:59-01:00", None):
        with pytest.raises(InvalidTimeError):
            check.moment_input(bad, "t")


def test_vectors() -> None:
    assert check.vector([0.5, 0.5], 2, "v").dtype == np.float32
    for bad, error in (("0.1,0.2", InvalidNumberError), (b"\x00" * 8, InvalidNumberError),
                       (["a", "b"], InvalidNumberError), ([1.0, math.nan], InvalidNumberError),
                       ([1.0], DimensionMismatchError), ([[1.0, 2.0]], DimensionMismatchError)):
        with pytest.raises(error):
            check.vector(bad, 2, "v")


def test_cursors_decode_strictly() -> None:
    position = (1_700_000_000.5, 3, "turn_1")
    assert decode_cursor(encode_cursor(position)) == position
    for raw in ("[0, 1e400, \"x\"]", "[1e400, 0, \"x\"]", "[0, " + "9" * 400 + ", \"x\"]",
                "[" * 5000, "[true, 1, \"x\"]", "[0, 1, null]", "\"x\""):
        cursor = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
        with pytest.raises(InvalidInputError, match="cursor"):
            decode_cursor(cursor)


def test_json_safe_echoes_anything_as_strict_json() -> None:
    echoed = check.json_safe({"\ud800": [math.nan, b"x", {1, 2}, "a\udfffb"],
                              "deep": json.loads("[" * 40 + "]" * 40)})
    json.dumps(echoed, allow_nan=False).encode("utf-8")
