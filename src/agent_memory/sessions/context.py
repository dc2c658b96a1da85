"""The text of the memory context an agent gets (the layout of seed 001 section 4.2).

::

    <session_initialization>
    ### User profile
    {profile text, then "- field: value" lines of its structured part}

    ### Recent sessions
    - 2024-12-04 12:00 UTC: {summary of that session}
    </session_initialization>

    ### This session so far
    {cumulative summary of the turns already folded into interactions}

    ### Recent turns
    user: ...
    assistant: ...

The initialization block is built once at session start (and stored with the session, so a
resumed session shows the same block). A section with nothing to say holds a one-line
placeholder so the layout never changes shape. Turn lines are ``speaker: text`` when the
speaker's name is known, else ``role: text`` (the flattening of seed 001).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..models import ThreadSummary, Turn, UserProfile

NO_PROFILE = "(no profile yet)"
NO_SESSIONS = "(no earlier sessions)"
NO_SUMMARY = "(nothing summarized yet)"
NO_TURNS = "(no turns yet)"


def turn_line(turn: Turn) -> str:
    """One turn as ``author: text`` on one line (inner newlines become spaces)."""
    return f"{turn.author}: {' '.join(turn.content.split())}"


def flatten(turns: Sequence[Turn]) -> str:
    """Turns as ``author: text`` lines, oldest first (an interaction's content)."""
    return "\n".join(turn_line(t) for t in turns)


def _value(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "; ".join(str(v) for v in value)
    return str(value)


def profile_text(profile: UserProfile | None) -> str:
    """The profile's text plus one ``- field: value`` line per structured field that adds
    something (values already quoted in the text are left out)."""
    if profile is None:
        return NO_PROFILE
    text = profile.content.strip()
    lines = [text]
    for name, value in (profile.structured or {}).items():
        if isinstance(value, list | tuple):  # what the text already says is not repeated
            value = [v for v in value if str(v) not in text]
        elif isinstance(value, str) and value in text:
            value = None
        if value not in (None, "", [], {}):
            lines.append(f"- {name}: {_value(value)}")
    return "\n".join(lines)


def session_line(summary: ThreadSummary) -> str:
    """``- YYYY-MM-DD HH:MM UTC: summary`` (the session's end time, else its last update)."""
    when = summary.end_time or summary.updated_at
    return f"- {when:%Y-%m-%d %H:%M} UTC: {' '.join(summary.content.split())}"


def init_block(profile: UserProfile | None, recent: Sequence[ThreadSummary]) -> str:
    """The session initialization block: profile + recent session summaries (oldest first)."""
    sessions = "\n".join(session_line(s) for s in recent) or NO_SESSIONS
    return (
        "<session_initialization>\n"
        f"### User profile\n{profile_text(profile)}\n\n"
        f"### Recent sessions\n{sessions}\n"
        "</session_initialization>"
    )


def render_context(init: str, summary: str | None, active: Sequence[Turn]) -> str:
    """The whole context: init block, cumulative summary, active turns."""
    turns = flatten(active) or NO_TURNS
    return (
        f"{init}\n\n"
        f"### This session so far\n{(summary or '').strip() or NO_SUMMARY}\n\n"
        f"### Recent turns\n{turns}"
    )
