"""WordNet relations in the offline reconciler: the database reader, the word relations and
the contradictions and duplicates they let the reconciler find (real WordNet; skipped without
one). Sentences here are not in the labelled pair sets."""

from __future__ import annotations

import pytest

from agent_memory.errors import ConfigError
from agent_memory.reasoners.extractive.claims import parse_claim
from agent_memory.reasoners.extractive.lexical import compound_differs
from agent_memory.reasoners.extractive.wordnet import WordNet, find_wordnet

from .conftest import relation


def test_reader_finds_every_index_entry(lexicon) -> None:
    wordnet = lexicon.wordnet
    for pos, name in (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")):
        lines = [line.split(" ", 1)[0] for line in
                 (wordnet.folder / f"index.{name}").read_text(errors="replace").splitlines()
                 if not line.startswith("  ")]
        for lemma in lines[:50] + lines[len(lines) // 2: len(lines) // 2 + 50] + lines[-50:]:
            assert wordnet.lemmas(lemma, pos) and wordnet.lemmas(lemma, pos)[0] == lemma
    assert wordnet.lemmas("zzzznotaword", "n") == []


def test_inflections_reach_their_base_forms(lexicon) -> None:
    wordnet = lexicon.wordnet
    assert "puppy" in wordnet.lemmas("puppies", "n")
    assert "allergy" in wordnet.lemmas("allergies", "n")
    assert "drive" in wordnet.lemmas("driving", "v")
    first = wordnet.senses("dog", "n")[0]
    assert "dog" in first.words and any(p.symbol == "@" for p in first.pointers)


def test_word_relations(lexicon) -> None:
    assert lexicon.same("writer", "author")
    assert lexicon.same("film", "movie")
    assert lexicon.same("allergic", "allergy")  # derivation
    assert lexicon.entails("puppy", "dog") and not lexicon.entails("dog", "puppy")
    assert lexicon.entails("Tokyo", "Japan")  # part holonym
    assert lexicon.opposite("employed", "unemployed")
    assert not lexicon.same("dog", "cat") and not lexicon.entails("dog", "cat")
    assert not lexicon.opposite("dog", "cat")
    assert not lexicon.opposite("brother", "sister")  # nouns: different people, not states


@pytest.mark.parametrize(("a", "b"), [
    ("Priya does not have a dog.", "Priya adopted a puppy called Biscuit."),
    ("Omar has never been to Italy.", "Omar spent a month in Rome."),
    ("Lena is employed.", "Lena is unemployed."),
    ("Olga works full time at a bank.", "Olga works part time at the bank now."),  # collocation
    ("Hiro is a junior developer.", "Hiro is a senior developer."),
])
def test_lexical_contradictions(local_embedder, attributes, lexicon, a, b) -> None:
    assert relation(local_embedder, attributes, a, b, lexicon=lexicon) == "contradiction"


@pytest.mark.parametrize(("a", "b"), [
    ("Noor is a writer.", "Noor is an author."),
    ("Felix watches a film every Friday.", "Felix watches a movie every Friday."),
])
def test_lexical_duplicates(local_embedder, attributes, lexicon, a, b) -> None:
    assert relation(local_embedder, attributes, a, b, lexicon=lexicon) == "duplicate"


@pytest.mark.parametrize(("a", "b"), [
    ("Priya works as a nurse.", "Priya works as a nanny."),  # nanny is nurse's 2nd sense
    ("Ana works as a tutor.", "Ana works as a coach."),
    ("Ana works as a chemist.", "Ana works as a pharmacist."),
    ("Ana is an architect.", "Ana is a designer."),
    ("Ana owns a bicycle.", "Ana owns a motorcycle."),  # "+" links words, not synsets
    ("Maria lends money to her brother.", "Maria borrows money from her brother."),
    ("Ana is older than her sister.", "Ana is younger than her sister."),
    ("Ana is left-handed.", "Ana is right-handed."),
    ("Priya has a dog.", "Priya has a cat."),
    ("Omar visited Tokyo.", "Omar visited Osaka."),
    ("Noor owns a dog.", "Noor owns an animal shelter."),
    ("Cleo drinks coffee every morning.", "Cleo drinks decaf coffee every morning."),
    ("Gil speaks fluent French.", "Gil speaks basic French."),  # two adjectives, two values
])
def test_related_words_are_not_merged_when_they_differ(local_embedder, attributes, lexicon,
                                                      a, b) -> None:
    assert relation(local_embedder, attributes, a, b, lexicon=lexicon) != "duplicate"


def test_a_missing_or_broken_folder_is_a_config_error(tmp_path) -> None:
    with pytest.raises(ConfigError, match="not a WordNet database folder"):
        WordNet(tmp_path / "absent")
    (tmp_path / "index.noun").write_text("")
    with pytest.raises(ConfigError, match="not a WordNet database folder"):
        WordNet(tmp_path)
    with pytest.raises(ConfigError):
        find_wordnet(tmp_path / "absent")


def test_none_turns_lexical_relations_off(monkeypatch) -> None:
    assert find_wordnet("none") is None
    monkeypatch.setenv("AGENT_MEMORY_WORDNET", "off")
    assert find_wordnet() is None


def test_the_setting_reaches_the_offline_reasoner(tmp_path, lexicon) -> None:
    from agent_memory.config import Settings
    from agent_memory.reasoners import reasoner_from_settings

    assert reasoner_from_settings(Settings.load(wordnet="none")).lexicon is None
    named = reasoner_from_settings(Settings.load(wordnet=str(lexicon.wordnet.folder)))
    assert named.lexicon is not None and named.lexicon.same("writer", "author")
    with pytest.raises(ConfigError, match="not a WordNet database folder"):
        reasoner_from_settings(Settings.load(wordnet=str(tmp_path)))


def test_a_broken_folder_found_by_looking_is_skipped(tmp_path, monkeypatch, lexicon) -> None:
    import agent_memory.reasoners.extractive.wordnet as wordnet_module

    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "index.noun").write_text("")  # the rest of the database is missing
    monkeypatch.delenv("AGENT_MEMORY_WORDNET", raising=False)
    monkeypatch.setattr(wordnet_module, "CANDIDATE_FOLDERS",
                        (str(broken), str(lexicon.wordnet.folder)))
    found = wordnet_module.find_wordnet()
    assert found is not None and found.folder == lexicon.wordnet.folder
    with pytest.raises(ConfigError, match="AGENT_MEMORY_WORDNET"):
        wordnet_module.find_wordnet(broken)


def test_an_index_of_licence_lines_only_reads_as_empty(tmp_path) -> None:
    for kind in ("index", "data"):
        for name in ("noun", "verb", "adj", "adv"):
            (tmp_path / f"{kind}.{name}").write_bytes(b"  licence text, no newline at the end")
    assert WordNet(tmp_path).lemmas("dog", "n") == []


@pytest.mark.parametrize(("a", "b"), [
    ("Ana sold her old car.", "Ana drives a new car."),  # another car
    ("Ana sold her red car.", "Ana drives a blue car."),
    ("Bo is looking for a new flat.", "Bo lives in a flat."),  # not the new one
])
def test_other_things_of_one_kind_do_not_contradict(local_embedder, attributes, lexicon,
                                                   a, b) -> None:
    assert relation(local_embedder, attributes, a, b, lexicon=lexicon) != "contradiction"


@pytest.mark.parametrize(("a", "b"), [
    ("Ana owns a red car.", "Ana sold her red car."),
    ("Bo is looking for a new flat.", "Bo moved into a new flat."),
])
def test_the_same_thing_still_contradicts(local_embedder, attributes, lexicon, a, b) -> None:
    assert relation(local_embedder, attributes, a, b, lexicon=lexicon) == "contradiction"


def test_adjectives_of_one_cluster_are_one_value(lexicon) -> None:
    assert lexicon.similar("big", "huge")  # satellites of one head
    assert not lexicon.similar("fluent", "basic")


def test_a_noun_modifier_names_another_thing(lexicon) -> None:
    coffee, decaf = (parse_claim(t, "Cleo") for t in ("Cleo drinks coffee.",
                                                      "Cleo drinks decaf coffee."))
    vegetarian, strict = (parse_claim(t, "Jia") for t in ("Jia is a vegetarian.",
                                                          "Jia is a strict vegetarian."))
    assert compound_differs(coffee, decaf, lexicon)
    assert not compound_differs(vegetarian, strict, lexicon)  # an adjective only describes
    assert not compound_differs(coffee, decaf, None)
