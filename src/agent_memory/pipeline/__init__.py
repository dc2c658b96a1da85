"""The pipeline steps of seed 000, each idempotent and incremental.

``generate_thread_summary``, ``extract_facts`` and ``generate_user_summary`` read what exists,
load only what is new, call the reasoner, embed the output and upsert it under deterministic ids.
Running a step twice with no new turns changes nothing.
"""

from .context import Components, StepResult
from .facts import extract_facts
from .thread_summary import generate_thread_summary
from .user_summary import generate_user_summary

__all__ = [
    "Components",
    "StepResult",
    "extract_facts",
    "generate_thread_summary",
    "generate_user_summary",
]
