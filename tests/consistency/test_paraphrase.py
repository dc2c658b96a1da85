"""Duplicates worded differently, and containment that is not restatement, on new sentences."""

from __future__ import annotations

from agent_memory.reasoners.extractive.claims import stem_term, terms_of

from .conftest import relation


def test_doubled_consonant_folds_to_the_base_form() -> None:
    assert stem_term("running") == stem_term("run") == "run"
    assert stem_term("planned") == stem_term("plan")
    assert stem_term("falling") == "fall"  # a base-form double stays


def test_repetition_adverbs_are_not_terms() -> None:
    assert terms_of("is swimming in the lake again") == terms_of("swims in the lake")
    assert terms_of("teaches piano once more") == terms_of("teaches piano now")


def test_a_restatement_with_again_is_a_duplicate(local_embedder, attributes) -> None:
    assert relation(local_embedder, attributes, "Omar is running the bakery again.",
                    "Omar runs the bakery.", "Omar") == "duplicate"


def test_a_privative_modifier_is_not_a_restatement(local_embedder, attributes) -> None:
    assert relation(local_embedder, attributes, "Lena is a former nurse.",
                    "Lena is a nurse.", "Lena") != "duplicate"
    assert relation(local_embedder, attributes, "Lena almost finished the Vienna marathon.",
                    "Lena finished the Vienna marathon.", "Lena") != "duplicate"
    assert relation(local_embedder, attributes, "Lena is a registered nurse.",
                    "Lena is a nurse.", "Lena") == "duplicate"


def test_same_number_reworded_is_a_duplicate(local_embedder, attributes) -> None:
    assert relation(local_embedder, attributes, "Sami spends 90 minutes a day on his commute.",
                    "Sami's daily commute is 90 minutes.", "Sami") == "duplicate"
    assert relation(local_embedder, attributes, "Sami spends 90 minutes a day on his commute.",
                    "Sami's daily commute is 45 minutes.", "Sami") != "duplicate"
