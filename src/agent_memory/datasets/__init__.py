"""Conversation datasets as agent-memory turns: LoCoMo and our own JSON-lines format."""

from .jsonl import default_turn_id, dump_jsonl, iter_jsonl, load_jsonl, turn_to_json
from .locomo import (
    CATEGORY_NAMES,
    LocomoQuestion,
    LocomoSample,
    LocomoSession,
    dia_id_of,
    load_locomo,
    normalize_evidence,
    parse_session_date,
    thread_id,
    turn_id,
)

__all__ = [
    "CATEGORY_NAMES",
    "LocomoQuestion",
    "LocomoSample",
    "LocomoSession",
    "default_turn_id",
    "dia_id_of",
    "dump_jsonl",
    "iter_jsonl",
    "load_jsonl",
    "load_locomo",
    "normalize_evidence",
    "parse_session_date",
    "thread_id",
    "turn_id",
    "turn_to_json",
]
