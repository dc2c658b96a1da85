"""Token estimates: counting and cutting a text to a token budget."""

from __future__ import annotations

from agent_memory.tokens import count_tokens, truncate_tokens


def test_count_tokens_counts_words_and_punctuation() -> None:
    assert count_tokens("I'm here, Ana!") == 7  # I, ', m, here, ",", Ana, "!"
    assert count_tokens("  \n ") == 0


def test_truncate_cuts_before_the_first_token_past_the_limit() -> None:
    text = "Went to a support group, yesterday.  It helped."
    assert truncate_tokens(text, 5) == "Went to a support group"
    assert truncate_tokens(text, 6) == "Went to a support group,"
    assert truncate_tokens(text, 7) == "Went to a support group, yesterday"
    assert truncate_tokens(text, 8) == "Went to a support group, yesterday."
    assert truncate_tokens(text, 0) == "" and truncate_tokens(text, -1) == ""


def test_truncate_keeps_a_text_within_the_limit_unchanged() -> None:
    assert truncate_tokens("two words  \n", 2) == "two words  \n"  # trailing space kept
    assert truncate_tokens("ab", 1) == "ab"
    assert truncate_tokens("", 3) == ""


def test_truncate_treats_every_unicode_space_as_a_separator() -> None:
    text = "caf\u00e9\u2003na\u00efve\u00a0\U0001f600 end"
    assert count_tokens(text) == 4
    assert truncate_tokens(text, 3) == "caf\u00e9\u2003na\u00efve\u00a0\U0001f600"
    assert truncate_tokens(text, 1) == "caf\u00e9"
