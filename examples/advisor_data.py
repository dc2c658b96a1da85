"""Scripted conversations of one financial-advice client, shared by the demo scenarios.

Three past sessions (dated, so summaries and the init block show real dates) and a long
session for the compression demo. Written for this project.
"""

from __future__ import annotations

from datetime import UTC, datetime

USER = "client-42"

PAST_SESSIONS: list[tuple[str, datetime, list[tuple[str, str]]]] = [
    ("2024-12-04-intake", datetime(2024, 12, 4, 12, 0, tzinfo=UTC), [
        ("user", "Hi, I'm Dana. I am 38 years old, married, and we have a daughter."),
        ("assistant", "Welcome, Dana. What brings you in today?"),
        ("user", "I want to retire by 2045 and I have about $120k in my 401k."),
        ("assistant", "Good. Is the 401k with your current employer?"),
        ("user", "Yes, and I also have an old 401k from my previous job I never rolled over."),
        ("assistant", "We can roll it into an IRA; a direct rollover avoids the tax withholding."),
        ("user", "I am worried about taxes if I roll it over into a Roth IRA."),
        ("assistant", "A Roth conversion is taxable now, a traditional IRA rollover is not."),
        ("user", "I prefer to keep it simple, so let's do the traditional IRA."),
        ("assistant", "Agreed: a direct rollover of the old 401k into a traditional IRA."),
        ("user", "I prefer quarterly reviews by email."),
        ("assistant", "Quarterly email reviews it is."),
    ]),
    ("2024-12-06-risk", datetime(2024, 12, 6, 13, 0, tzinfo=UTC), [
        ("user", "I filled in the risk questionnaire you sent."),
        ("assistant", "Thanks. Your answers suggest a moderate risk tolerance."),
        ("user", "I am nervous about market volatility after the 2022 drop."),
        ("assistant", "A 60/40 stock and bond split would soften the swings."),
        ("user", "I am comfortable with a moderate risk portfolio, 60/40 sounds right."),
        ("assistant", "I will set up the 60/40 allocation in the IRA."),
        ("user", "We are also saving for a down payment on a house by 2027."),
        ("assistant", "Then that money belongs in a high-yield savings account, not stocks."),
    ]),
    ("2025-01-10-checkin", datetime(2025, 1, 10, 9, 30, tzinfo=UTC), [
        ("user", "Hello again, just checking in."),
        ("assistant", "Hi Dana, good to hear from you."),
        ("user", "The rollover went through last week."),
        ("assistant", "Great, the IRA now holds the old 401k balance."),
    ]),
]

LONG_SESSION: list[tuple[str, str]] = [
    ("user", "Can we go over my budget today?"),
    ("assistant", "Sure. What are your monthly take-home pay and fixed costs?"),
    ("user", "We take home about $9,000 a month and the mortgage would be $2,800."),
    ("assistant", "That keeps housing near 31% of take-home pay, which is reasonable."),
    ("user", "Childcare is another $1,500 a month."),
    ("assistant", "So fixed costs are about $4,300 before food and transport."),
    ("user", "I am worried we are not saving enough for our daughter's college."),
    ("assistant", "A 529 plan gives tax-free growth for education costs."),
    ("user", "How much should we put into a 529 each month?"),
    ("assistant", "Starting with $300 a month would cover a good share of a state school."),
    ("user", "Let's do $300 a month then."),
    ("assistant", "I will note $300 a month into a 529 plan."),
    ("user", "Should I still max out my 401k?"),
    ("assistant", "Get the full employer match first, then split between 401k and the 529."),
    ("user", "My employer matches 4% of salary."),
    ("assistant", "Then contribute at least 4% to capture the whole match."),
    ("user", "Okay, 4% to the 401k plus the 529."),
    ("assistant", "Good plan. Anything else on your mind?"),
]


async def replay_past_sessions(memory, *, longterm: bool = True, profile_model=None) -> None:
    """Replay :data:`PAST_SESSIONS` through the memory keeper (each ended and reflected on),
    then run long-term reflection when ``longterm``; prints one line per session. A session
    the store already holds (a second run on the same ``--store``) is not replayed again."""
    from datetime import timedelta

    stored = {s.thread_id for s in await memory.list_sessions(USER)}
    for session_id, start, turns in PAST_SESSIONS:
        if session_id in stored:
            print(f"session {session_id}: already in the store")
            continue
        await memory.start_session(USER, session_id)
        for n, (role, text) in enumerate(turns):
            await memory.add_session_turn(USER, session_id, role, text,
                                          created_at=start + timedelta(minutes=2 * n))
        ended = await memory.end_session(USER, session_id)
        print(f"session {session_id}: {len(turns)} turns, reflection "
              f"{ended.reflection.reflection_flag} ({len(ended.reflection.insights)} insights)")
    if longterm:
        update = await memory.run_longterm_reflection(USER, profile_model)
        print(f"long-term reflection merged {len(update.merged)} insights into the profile")
