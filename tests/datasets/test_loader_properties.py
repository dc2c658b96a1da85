"""Property-based tests of the dataset loaders: any JSON shaped like a LoCoMo sample or a
turn line either loads or raises :class:`~agent_memory.errors.InvalidInputError`, never
another exception (so ``agent-memory ingest`` answers ``error: <Class>: ...``, exit 2)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.datasets.jsonl import parse_turn_line
from agent_memory.datasets.locomo import parse_sample
from agent_memory.errors import InvalidInputError

DEEP = os.environ.get("AGENT_MEMORY_DEEP_PROPERTIES", "").strip() not in ("", "0")
RUN = settings(max_examples=(2000 if DEEP else 150), deadline=None, derandomize=not DEEP,
               database=None, suppress_health_check=list(HealthCheck))

LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20),
                   st.floats(allow_nan=True), st.text(max_size=12),
                   st.sampled_from(["\ud800", "\x00", "D1:1", "1:56 pm on 8 May, 2023",
                                    "11:59 pm on 31 December, 9999", "user", "9999-12-31T23:59:59-01:00",
                                    "0001-01-01T00:00:00+05:00"]))
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8)
TURN = st.one_of(VALUES, st.fixed_dictionaries(
    {"dia_id": st.one_of(st.just("D1:1"), VALUES), "speaker": st.one_of(st.just("A"), VALUES),
     "text": st.one_of(st.just("hi"), VALUES)}, optional={"blip_caption": VALUES,
                                                          "img_url": VALUES}))
SAMPLE = st.one_of(VALUES, st.fixed_dictionaries({
    "sample_id": st.one_of(st.just("s1"), VALUES),
    "qa": st.one_of(st.just([]), VALUES),
    "conversation": st.one_of(VALUES, st.fixed_dictionaries({
        "speaker_a": st.one_of(st.just("A"), VALUES), "speaker_b": st.one_of(st.just("B"), VALUES),
        "session_1_date_time": st.one_of(st.just("1:56 pm on 8 May, 2023"), VALUES),
        "session_1": st.one_of(st.lists(TURN, max_size=40), VALUES)}))}))
LINE = st.one_of(VALUES, st.fixed_dictionaries(
    {"user_id": st.one_of(st.just("u"), VALUES), "thread_id": st.one_of(st.just("t"), VALUES),
     "role": st.one_of(st.just("user"), VALUES), "content": st.one_of(st.just("hi"), VALUES)},
    optional={"created_at": VALUES, "metadata": VALUES, "id": VALUES, "speaker": VALUES,
              "agent_id": VALUES}))


@given(raw=SAMPLE)
@RUN
def test_locomo_samples_load_or_raise_typed(raw) -> None:
    try:
        parse_sample(raw)
    except InvalidInputError:
        pass


@given(obj=LINE)
@RUN
def test_turn_lines_load_or_raise_typed(obj) -> None:
    try:
        parse_turn_line(obj)
    except InvalidInputError:
        pass
