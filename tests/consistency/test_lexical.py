"""WordNet in the offline reconciler: the database reader and the word relations the learned
decision reads as features (real WordNet; skipped without one)."""

from __future__ import annotations

import pytest

from agent_memory.errors import ConfigError
from agent_memory.reasoners.extractive.lexical import word_relations
from agent_memory.reasoners.wordnet import WordNet, find_wordnet


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
    import agent_memory.reasoners.wordnet as wordnet_module

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


def test_adjectives_of_one_cluster_are_one_value(lexicon) -> None:
    assert lexicon.similar("big", "huge")  # satellites of one head
    assert not lexicon.similar("fluent", "basic")


def test_relations_between_the_words_where_two_claims_differ(lexicon) -> None:
    assert word_relations(("owns", "motorcycle"), ("owns", "motorbike"), lexicon)[0] == 1
    assert word_relations(("got", "puppy"), ("got", "dog"), lexicon)[1] == 1
    assert word_relations(("works", "full-time"), ("works", "part-time"), lexicon)[2] == 1
    assert word_relations(("has", "dog"), ("has", "cat"), lexicon)[:3] == (0, 0, 0)
    assert word_relations(("has", "son"), ("has", "daughter"), lexicon)[3] == 1
    assert word_relations(("owns", "motorcycle"), ("owns", "motorbike"), lexicon)[3] == 0
    assert word_relations(("owns", "motorcycle"), ("owns", "motorbike"), None) == (0, 0, 0, 0)
