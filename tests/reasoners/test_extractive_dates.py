"""Relative date resolution of the extractive reasoner (pure functions, no data needed)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from agent_memory.text.dates import (
    add_months,
    format_day,
    format_weekday,
    resolve_dates,
)

MON_8_MAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # LoCoMo conv-26 session 1, a Monday


@pytest.mark.parametrize(
    ("text", "expected_text", "expected_date"),
    [
        ("I went to a LGBTQ support group yesterday.",
         "I went to a LGBTQ support group on 7 May 2023.", date(2023, 5, 7)),
        ("Yesterday I ran.", "On 7 May 2023 I ran.", date(2023, 5, 7)),
        # the day as the subject of "was"; "over" as a particle keeps the "on"
        ("Yesterday was crazy.", "7 May 2023 was crazy.", date(2023, 5, 7)),
        ("I'll come over tomorrow.", "I'll come over on 9 May 2023.", date(2023, 5, 9)),
        ("I'm free today", "I'm free on 8 May 2023", date(2023, 5, 8)),
        ("See you tomorrow!", "See you on 9 May 2023!", date(2023, 5, 9)),
        ("We're out tonight", "We're out on the night of 8 May 2023", date(2023, 5, 8)),
        ("I slept badly last night", "I slept badly on the night of 7 May 2023",
         date(2023, 5, 7)),
        ("I baked this morning", "I baked on the morning of 8 May 2023", date(2023, 5, 8)),
        ("tomorrow evening works", "On the evening of 9 May 2023 works", date(2023, 5, 9)),
        ("I met her last week", "I met her the week before 8 May 2023", date(2023, 5, 1)),
        ("busy this week", "busy the week of 8 May 2023", date(2023, 5, 8)),
        ("I start next week", "I start the week after 8 May 2023", date(2023, 5, 15)),
        ("We went camping last weekend", "We went camping the weekend before 8 May 2023",
         date(2023, 5, 6)),
        ("We go camping next weekend", "We go camping the weekend after 8 May 2023",
         date(2023, 5, 13)),
        ("I moved last month", "I moved in April 2023", date(2023, 4, 1)),
        ("due this month", "due in May 2023", date(2023, 5, 1)),
        ("I retire next month", "I retire in June 2023", date(2023, 6, 1)),
        ("I painted it last year", "I painted it in 2022", date(2022, 1, 1)),
        ("a big one this year", "a big one in 2023", date(2023, 1, 1)),
        ("maybe next year", "maybe in 2024", date(2024, 1, 1)),
        ("I saw it last Friday", "I saw it on Friday 5 May 2023", date(2023, 5, 5)),
        ("I'll call next Friday", "I'll call on Friday 12 May 2023", date(2023, 5, 12)),
        ("It was last Monday", "It was on Monday 1 May 2023", date(2023, 5, 1)),
        ("I went to a reading last Fri.", "I went to a reading on Friday 5 May 2023.",
         date(2023, 5, 5)),
        ("I joined a group last Tues", "I joined a group on Tuesday 2 May 2023",
         date(2023, 5, 2)),
        ("see you next Thurs", "see you on Thursday 11 May 2023", date(2023, 5, 11)),
        ("see you next Monday", "see you on Monday 15 May 2023", date(2023, 5, 15)),
        ("I went 3 days ago", "I went on 5 May 2023", date(2023, 5, 5)),
        ("I went three days ago", "I went on 5 May 2023", date(2023, 5, 5)),
        ("a couple of days ago I fell", "On 6 May 2023 I fell", date(2023, 5, 6)),
        ("I left a week ago", "I left the week before 8 May 2023", date(2023, 5, 1)),
        ("two weeks ago I met him", "Two weeks before 8 May 2023 I met him",
         date(2023, 4, 24)),
        ("I quit a month ago", "I quit in April 2023", date(2023, 4, 1)),
        ("I quit 3 months ago", "I quit in February 2023", date(2023, 2, 1)),
        ("I married ten years ago", "I married in 2013", date(2013, 1, 1)),
        ("a year ago", "In 2022", date(2022, 1, 1)),
        ("a few days ago", "A few days before 8 May 2023", date(2023, 5, 5)),
        ("a few years ago", "A few years before 2023", date(2020, 1, 1)),
        # an approximate count keeps its word and stays approximate
        ("we buy in about three years", "we buy around 2026", date(2026, 1, 1)),
        ("I moved here about 2 years ago", "I moved here around 2021", date(2021, 1, 1)),
        ("I quit nearly a year ago", "I quit nearly a year before 2023", date(2022, 1, 1)),
        ("we met just over a month ago", "we met just over a month before May 2023",
         date(2023, 4, 8)),
        ("back in roughly two weeks", "back roughly two weeks after 8 May 2023",
         date(2023, 5, 22)),
        ("I'll be back in 2 days", "I'll be back on 10 May 2023", date(2023, 5, 10)),
        ("in two weeks", "Two weeks after 8 May 2023", date(2023, 5, 22)),
        ("back in a week", "back the week after 8 May 2023", date(2023, 5, 15)),
        ("done in a month", "done in June 2023", date(2023, 6, 1)),
        ("since last year", "since 2022", date(2022, 1, 1)),
        ("until tomorrow", "until 9 May 2023", date(2023, 5, 9)),
        ("I moved here in 2019", "I moved here in 2019", date(2019, 1, 1)),
        ("we met on May 5, 2021", "we met on May 5, 2021", date(2021, 5, 5)),
        ("the party is on 20th of June", "the party is on 20th of June", date(2023, 6, 20)),
    ],
)
def test_rewrites_and_dates(text: str, expected_text: str, expected_date: date) -> None:
    resolved = resolve_dates(text, MON_8_MAY)
    assert resolved.text == expected_text
    assert resolved.date == expected_date


@pytest.mark.parametrize(
    "text",
    [
        "I've done it recently",
        "in the last week things changed",
        "for the next year I travel",
        "this year's festival was fun",
        "I may 2 do it",
        "Last time was fun",
        "nothing dated here at all",
        "the cat sat this sat",
        "I'll meet the last sun of the day",
    ],
)
def test_vague_or_unrelated_text_is_unchanged(text: str) -> None:
    resolved = resolve_dates(text, MON_8_MAY)
    assert resolved.text == text
    assert resolved.date is None


def test_the_other_day_is_anchored_but_not_dated() -> None:
    resolved = resolve_dates("I saw her the other day", MON_8_MAY)
    assert resolved.text == "I saw her a few days before 8 May 2023"
    assert resolved.date is None
    assert resolved.mentions[0].precision == "approx"


def test_this_weekend_depends_on_tense() -> None:
    past = resolve_dates("I went hiking this weekend", MON_8_MAY)
    future = resolve_dates("I'm going hiking this weekend", MON_8_MAY)
    assert past.text == "I went hiking the weekend before 8 May 2023"
    assert past.date == date(2023, 5, 6)
    assert future.text == "I'm going hiking on the weekend of 13 May 2023"
    assert future.date == date(2023, 5, 13)


def test_weekend_said_on_a_sunday() -> None:
    sunday = datetime(2023, 5, 14, 9, 0, tzinfo=UTC)
    assert resolve_dates("fun this weekend", sunday).date == date(2023, 5, 13)
    assert resolve_dates("fun last weekend", sunday).date == date(2023, 5, 6)
    assert resolve_dates("fun next weekend", sunday).date == date(2023, 5, 20)


def test_weekday_arithmetic_over_a_whole_week() -> None:
    start = date(2023, 5, 1)  # Monday
    for offset in range(7):
        ref = start + timedelta(days=offset)
        last = resolve_dates("last Wednesday", ref).date
        nxt = resolve_dates("next Wednesday", ref).date
        assert last is not None and nxt is not None
        assert last.weekday() == 2 and nxt.weekday() == 2
        assert 1 <= (ref - last).days <= 7
        assert 1 <= (nxt - ref).days <= 7


def test_this_weekday_looks_back_in_the_past_tense() -> None:
    thursday = date(2023, 5, 11)
    assert resolve_dates("I went there this Monday", thursday).date == date(2023, 5, 8)
    assert resolve_dates("I go there this Saturday", thursday).date == date(2023, 5, 13)


def test_on_a_weekday_is_read_as_this_weekday() -> None:
    thursday = date(2023, 5, 11)
    past = resolve_dates("My sister had her baby on Tuesday", thursday)
    assert past.text == "My sister had her baby on Tuesday 9 May 2023"
    assert resolve_dates("I start on Monday", thursday).text == "I start on Monday 15 May 2023"
    assert resolve_dates("We hiked on Saturday morning", thursday).text == (
        "We hiked on the morning of Saturday 6 May 2023")
    # a habit, or a weekday with its date already, is left alone
    for text in ("I swim on Tuesdays", "We met on Tuesday 9 May 2023", "on Friday, June 5",
                 "We met on Tuesday, 9 May", "We do karaoke on Monday nights",
                 "I swim on Monday and Wednesday", "The shop is open on Monday to Friday"):
        assert resolve_dates(text, thursday).text == text
    # the sentence's own tense; a past form after "be" or "get" is an adjective
    assert resolve_dates("I met her on Sunday. I'll meet him on Tuesday", thursday).text == (
        "I met her on Sunday 7 May 2023. I'll meet him on Tuesday 16 May 2023")
    assert resolve_dates("I'm getting married on Saturday!", thursday).date == date(2023, 5, 13)
    # a short regular past ("died") and common irregular ones look back too
    for text in ("My grandad died on Sunday", "I broke my wrist on Sunday",
                 "We ate at Nando's on Sunday", "I slept in on Sunday"):
        assert resolve_dates(text, thursday).date == date(2023, 5, 7), text
    # the speaker's "on" stays: "drop by on Friday" is no deadline
    assert resolve_dates("Drop by on Friday", thursday).text == "Drop by on Friday 12 May 2023"
    for text in ("I usually swim on Wednesday", "We went out on Saturday night or Sunday",
                 "I worked on Monday night's show", "I swim on Monday, Wednesday and Friday",
                 "We close on Monday\u2013Friday", "on Friday the 13th"):
        assert resolve_dates(text, thursday).text == text, text
    # what resolution writes reads back as one written time, and is not resolved again
    written = resolve_dates("We hiked on Saturday night", thursday).text
    assert resolve_dates(written, thursday).text == written


@pytest.mark.parametrize(
    ("ref", "text", "expected_text"),
    [
        (date(2023, 1, 1), "yesterday", "On 31 December 2022"),
        (date(2023, 12, 31), "tomorrow", "On 1 January 2024"),
        (date(2023, 1, 15), "last month", "In December 2022"),
        (date(2023, 12, 2), "next month", "In January 2024"),
        (date(2024, 3, 1), "yesterday", "On 29 February 2024"),
        (date(2023, 3, 1), "yesterday", "On 28 February 2023"),
        (date(2023, 1, 3), "last week", "The week before 3 January 2023"),
        (date(2023, 2, 10), "two months ago", "In December 2022"),
        (date(2024, 1, 2), "last year", "In 2023"),
        (date(2023, 1, 2), "last Saturday", "On Saturday 31 December 2022"),
    ],
)
def test_month_and_year_boundaries(ref: date, text: str, expected_text: str) -> None:
    assert resolve_dates(text, ref).text == expected_text


def test_add_months_clamps_the_day() -> None:
    assert add_months(date(2023, 3, 31), -1) == date(2023, 2, 28)
    assert add_months(date(2024, 3, 31), -1) == date(2024, 2, 29)
    assert add_months(date(2023, 1, 31), 13) == date(2024, 2, 29)
    assert add_months(date(2023, 11, 15), 2) == date(2024, 1, 15)


def test_formats() -> None:
    assert format_day(date(2023, 5, 7)) == "7 May 2023"
    assert format_weekday(date(2023, 5, 6)) == "Saturday 6 May 2023"


def test_reference_datetime_is_read_in_its_own_timezone() -> None:
    late = datetime(2023, 5, 8, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert resolve_dates("yesterday", late).date == date(2023, 5, 7)


def test_several_mentions_are_all_rewritten_first_date_reported() -> None:
    resolved = resolve_dates("I moved last month and start work next week.", MON_8_MAY)
    assert resolved.text == (
        "I moved in April 2023 and start work the week after 8 May 2023."
    )
    assert resolved.date == date(2023, 4, 1)
    assert [m.phrase for m in resolved.mentions] == ["last month", "next week"]


MON_2_JUNE_2025 = date(2025, 6, 2)


@pytest.mark.parametrize(
    ("text", "expected_text", "expected_date"),
    [
        ("We moved to Portland in May.", "We moved to Portland in May 2025.", date(2025, 5, 1)),
        ("I met him last March", "I met him in March 2025", date(2025, 3, 1)),
        ("We fly to Lisbon in March", "We fly to Lisbon in March 2026", date(2026, 3, 1)),
        ("We flew to Lisbon in March", "We flew to Lisbon in March 2025", date(2025, 3, 1)),
        ("Our daughter was born in August", "Our daughter was born in August 2024",
         date(2024, 8, 1)),
        ("The lease ends in August", "The lease ends in August 2025", date(2025, 8, 1)),
        ("I have run since early April", "I have run since early April 2025",
         date(2025, 4, 1)),
        ("I start next June", "I start in June 2026", date(2026, 6, 1)),
        ("It was busy last June", "It was busy in June 2024", date(2024, 6, 1)),
        ("Exams are this July", "Exams are in July 2025", date(2025, 7, 1)),
        ("It opens in June", "It opens in June 2025", date(2025, 6, 1)),
        # a verb whose past is its present, right after its subject: the past
        ("We shut down the company in March", "We shut down the company in March 2025",
         date(2025, 3, 1)),
        ("I finally quit my job in April", "I finally quit my job in April 2025",
         date(2025, 4, 1)),
        ("I want to quit in April", "I want to quit in April 2026", date(2026, 4, 1)),
        ("I will quit in April", "I will quit in April 2026", date(2026, 4, 1)),
        # a past form after "be" is an adjective: the sentence is not in the past
        ("I'm booked out until January", "I'm booked out until January 2026",
         date(2026, 1, 1)),
        ("I hope it's healed by October", "I hope it's healed by October 2025",
         date(2025, 10, 1)),
    ],
)
def test_month_names_get_their_year(text: str, expected_text: str, expected_date: date) -> None:
    """A month named without a year is the latest one (past tense, "since", "last") or the
    next one (otherwise, "next") relative to the month the text was said in."""
    resolved = resolve_dates(text, MON_2_JUNE_2025)
    assert resolved.text == expected_text
    assert resolved.date == expected_date
    assert resolved.mentions[0].precision == "month"


@pytest.mark.parametrize("text", [
    "I did six pieces in three days",
    "We finished the whole trail in two weeks",
])
def test_in_a_span_of_time_in_the_past_is_a_duration(text: str) -> None:
    """"in three days" after a past verb says how long something took, not when."""
    resolved = resolve_dates(text, MON_2_JUNE_2025)
    assert resolved.text == text
    assert resolved.mentions == ()


@pytest.mark.parametrize("text", [
    "I may go in May 2024",  # a stated year is kept as written
    "We met on March 5",  # a day: an explicit date, not rewritten
    "May I ask something?",  # no preposition before the month
    "I may move later",
])
def test_month_names_with_a_year_or_a_day_or_no_preposition_are_kept(text: str) -> None:
    assert resolve_dates(text, MON_2_JUNE_2025).text == text


def test_the_written_time_pattern_finds_what_resolution_writes() -> None:
    from agent_memory.text.dates import WRITTEN_TIME

    said = datetime(2023, 7, 10, 12, 0, tzinfo=UTC)  # a Monday
    for spoken in ("I went to a festival last week.", "I went camping a few weeks ago.",
                   "I saw the show last Friday.", "I started a course last month.",
                   "We moved last year."):
        written = resolve_dates(spoken, said).text
        found = [m.group(0) for m in WRITTEN_TIME.finditer(written)]
        assert len(found) == 1, written
        assert WRITTEN_TIME.sub("", written).split()[-1] != "2023."
    assert [m.group(0) for m in WRITTEN_TIME.finditer("Tim has saved $2,023 so far.")] == []
    assert [m.group(0) for m in WRITTEN_TIME.finditer("Tim met 2019 people.")] == []


@pytest.mark.parametrize(
    ("text", "expected_text"),
    [
        # the date's own clause decides, not a past form in another clause of the sentence
        ("The recital is in July and I'm more nervous than I expected",
         "The recital is in July 2025 and I'm more nervous than I expected"),
        ("My cousin's visiting in August, so I hope the spare room is painted by then",
         "My cousin's visiting in August 2025, so I hope the spare room is painted by then"),
        ("Then I'm re-tiling the bathroom this weekend, I ordered the tiles already",
         ("Then I'm re-tiling the bathroom on the weekend of 7 June 2025, I ordered the tiles "
          "already")),
        ("She finally had her surgery in March so I'll drive her to physio",
         "She finally had her surgery in March 2025 so I'll drive her to physio"),
        # "next to" is no word of the future; "I've got" is a present "have"
        ("I opened a stall next to the bakery in April, so now I sell on weekends",
         "I opened a stall next to the bakery in April 2025, so now I sell on weekends"),
        ("Band camp starts in August so I've got the summer free",
         "Band camp starts in August 2025 so I've got the summer free"),
        # a clause with no tense of its own takes the sentence's
        ("On Saturday, I finally finished the quilt",
         "On Saturday 31 May 2025, I finally finished the quilt"),
    ],
)
def test_the_tense_is_the_date_clauses_own(text: str, expected_text: str) -> None:
    assert resolve_dates(text, MON_2_JUNE_2025).text == expected_text
