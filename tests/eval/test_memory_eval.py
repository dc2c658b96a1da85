"""Memory quality against references: the metrics on hand-made cases with known answers (real
local embedder), and ``eval locomo-memory`` end to end on part of a LoCoMo conversation."""

from __future__ import annotations

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from agent_memory.cli.app import app
from agent_memory.errors import InvalidInputError
from agent_memory.eval.memory import evaluate_locomo_memory
from agent_memory.eval.memory_metrics import (
    ExtractedFact,
    FactCounts,
    ProfileCounts,
    ReferenceFact,
    SourceSentence,
    read_subject,
    score_facts,
    score_profile,
    score_summary,
    split_sentences,
    tracing_text,
)
from agent_memory.eval.readability import count_readability, readability_flags
from agent_memory.tokens import count_tokens

NAMES = ["Melanie", "Caroline"]
SUPPORT = ReferenceFact(
    text="Caroline attended an LGBTQ support group recently and found the transgender stories "
         "inspiring.", speaker="Caroline", evidence=["c:D1:3"])
PAINTING = ReferenceFact(
    text="Melanie painted a lake sunrise last year which holds special meaning to her.",
    speaker="Melanie", evidence=["c:D1:14"])


def _facts(embedder, observations, facts):
    return score_facts(observations, embedder.embed_sync([o.text for o in observations]),
                       facts, embedder.embed_sync([f.text for f in facts]), NAMES)


def test_a_paraphrase_citing_the_evidence_turn_covers(local_embedder):
    fact = ExtractedFact(text="Caroline went to a LGBTQ support group and the transgender "
                              "stories inspired her.", subject="Caroline", evidence=["c:D1:3"])
    counts = _facts(local_embedder, [SUPPORT, PAINTING], [fact])
    assert counts == FactCounts(observations=2, covered=1, attributed=1, facts=1, citing=1,
                                matched=1)
    assert counts.recall == 0.5 and counts.precision == 1.0 and counts.attribution == 1.0
    assert counts.matched_precision == 1.0 and counts.per_observation == 0.5


def test_the_same_words_citing_another_turn_do_not_cover(local_embedder):
    fact = ExtractedFact(text=SUPPORT.text, subject="Caroline", evidence=["c:D1:4"])
    counts = _facts(local_embedder, [SUPPORT], [fact])
    assert (counts.covered, counts.citing) == (0, 0)
    assert counts.recall == 0.0 and counts.precision == 0.0 and counts.attribution is None


def test_an_unrelated_fact_citing_the_turn_does_not_cover_but_counts_for_precision(
        local_embedder):
    fact = ExtractedFact(text="Caroline is going swimming with the kids.", subject="Caroline",
                         evidence=["c:D1:3"])
    counts = _facts(local_embedder, [SUPPORT], [fact])
    assert (counts.covered, counts.citing, counts.precision) == (0, 1, 1.0)
    assert counts.matched == 0 and counts.matched_precision == 0.0


def test_matched_precision_counts_facts_not_observations(local_embedder):
    """Two paraphrases of one observation both match it (a fact an annotator also wrote),
    while recall counts the observation once; a fact citing another turn never matches."""
    first = ExtractedFact(text="Caroline went to an LGBTQ support group and found the "
                               "transgender stories inspiring.", evidence=["c:D1:3"])
    second = first.model_copy(update={"text": "Caroline attended an LGBTQ support group."})
    elsewhere = first.model_copy(update={"evidence": ["c:D1:9"]})
    counts = _facts(local_embedder, [SUPPORT, PAINTING], [first, second, elsewhere])
    assert (counts.covered, counts.matched, counts.facts) == (1, 2, 3)
    assert counts.matched_precision == pytest.approx(2 / 3)
    assert counts.per_observation == 1.5


def test_readability_flags_each_failure():
    texts = ["Kai lives in Boston and work as a pharmacist.",
             "It's awesome having stuff around that make Melanie and others think.",
             "Here's a pic of the car Dave is restoring.",
             "Do you like camping, Caroline?",
             "Thanks so much for the support, Melanie!",
             "Went to a support group on 7 May 2023.",
             "Caroline went to a support group on 7 May 2023."]
    flags = readability_flags(texts, ["Caroline Smith", "Melanie", "Kai", "Dave"])
    assert flags == [{"multi_claim"}, {"leading_pronoun", "first_second_person"},
                     {"leading_pronoun", "chatter"},
                     {"question", "first_second_person"}, {"chatter"},
                     {"no_named_subject"}, set()]
    counts = count_readability(texts, ["Caroline", "Melanie", "Kai", "Dave"])
    assert (counts.unreadable, counts.leading_pronoun, counts.chatter) == (6, 2, 2)
    assert (counts + counts).unreadable == 12


@pytest.mark.parametrize(("text", "dangling"), [
    ("Kai keeps it on the desk to plan each week.", True),
    ("A neighbour built it for Dana's tenth birthday.", True),  # its own subject: not it
    ("Dana sketched this after a walk by the river.", True),
    ("Kai hopes it'll teach him more about pricing.", True),
    ("Kai's nephews adored it.", True),
    ("Kai's nephews argued about it.", True),  # after a preposition: still its verb's subject
    ("Dana is thrilled about it.", True),  # a speaker's name stands for no thing
    ("Happy Kai can still ride it on weekends.", True),
    ("Dana sketched it after a walk by the river.", True),
    ("The quilt matters to Dana as it reminds her of her aunt.", False),
    ("Dana thinks it's vital to vote in every election.", False),  # the situation
    ("Kai pushes on, although it's been exhausting.", False),
    ("Dana still believes that nursing is her calling.", False),
    ("Kai glazed this mug at a night class.", False),
    ("Kai owns a Vespa and rides it to the office.", False),
    ("Dana moved to Leeds and adores it.", False),
    ("Kai finds it hard to wake early.", False),
    ("Dana prefers to keep it short.", False),
    ("Kai loves it when the market is quiet.", False),
])
def test_a_pronoun_with_nothing_to_stand_for_is_flagged(text, dangling):
    flags = readability_flags([text], ["Dana", "Kai"])[0]
    assert ("dangling_reference" in flags) is dangling


def test_attribution_reads_the_subject_field_then_the_leading_name(local_embedder):
    wrong = ExtractedFact(text="Melanie painted that lake sunrise in 2022.", subject="Caroline",
                          evidence=["c:D1:14"])
    assert _facts(local_embedder, [PAINTING], [wrong]).attribution == 0.0
    unnamed = wrong.model_copy(update={"subject": None})
    assert _facts(local_embedder, [PAINTING], [unnamed]).attribution == 1.0
    # the best covering fact decides: the closer paraphrase names the wrong person
    close = ExtractedFact(text="Melanie painted a lake sunrise last year, special to her.",
                          subject="Caroline", evidence=["c:D1:14"])
    counts = _facts(local_embedder, [PAINTING], [unnamed, close])
    assert (counts.covered, counts.attributed, counts.facts) == (1, 0, 2)


def test_read_subject():
    assert read_subject("Caroline", "Melanie is here.", NAMES) == "Caroline"
    assert read_subject(None, "melanie's kids love camping.", NAMES) == "Melanie"
    assert read_subject("  ", "The kids love camping with Melanie.", NAMES) is None
    assert read_subject(None, "Melanies are flowers.", NAMES) is None


def test_observations_without_evidence_are_not_counted(local_embedder):
    blank = SUPPORT.model_copy(update={"evidence": []})
    assert _facts(local_embedder, [blank], []) == FactCounts()


def test_counts_add_up():
    total = FactCounts(observations=2, covered=1) + FactCounts(observations=3, covered=3, facts=4)
    assert (total.observations, total.covered, total.facts, total.recall) == (5, 4, 4, 0.8)
    assert (ProfileCounts(sentences=2, own=1) + ProfileCounts(sentences=2, own=2)).own_share == 0.75


def test_vector_counts_must_match(local_embedder):
    with pytest.raises(InvalidInputError, match="expected 1 and 0 embeddings"):
        score_facts([SUPPORT], local_embedder.embed_sync([SUPPORT.text, "x"]), [],
                    local_embedder.embed_sync([]), NAMES)


def test_summary_compression_and_rouge_recall():
    thread = ["I moved to Lisbon in March, and the flat is tiny but bright!",
              "Lisbon sounds lovely. Did you find work there yet?",
              "Yes, I start at a bakery next week."]
    reference = "Ann moved to Lisbon and starts at a bakery."
    summary = "Ann moved to Lisbon; she starts work at a bakery."
    score = score_summary(thread, summary, reference)
    assert score.thread_tokens == sum(count_tokens(t) for t in thread) == 36
    assert score.summary_tokens == count_tokens(summary) == 12
    assert score.compression == pytest.approx(36 / 12)
    # every reference word but "and" is in the summary (stemmed: moved/move, starts/start)
    assert score.rouge1_recall == pytest.approx(8 / 9)
    assert score_summary(thread, reference, reference).rougeL_recall == 1.0
    with pytest.raises(InvalidInputError, match="empty summary"):
        score_summary(thread, "  ", reference)


def test_split_sentences_and_tracing_text():
    profile = ("[15 July 2023] Melanie: Here's our latest work! It took a week.\n"
               "Caroline is 34. She lives in Lisbon... mostly")
    assert split_sentences(profile) == [
        "[15 July 2023] Melanie: Here's our latest work!", "It took a week.",
        "Caroline is 34.", "She lives in Lisbon... mostly"]
    assert tracing_text("[15 July 2023] Melanie: Caroline's art is great", NAMES) == \
        "art is great"
    # the group written for "we" goes with the name: the turn said "we"
    assert tracing_text("Melanie and family ate good food.", NAMES) == "ate good food."
    assert tracing_text("Caroline and her partner moved.", NAMES) == "moved."


def _profile(embedder, profile, turns):
    sources = [SourceSentence(text=s, speaker=who, role=role)
               for who, role, text in turns for s in split_sentences(text)]
    return score_profile(
        profile, embedder.embed_sync([tracing_text(s, NAMES) for s in split_sentences(profile)]),
        sources, embedder.embed_sync([tracing_text(s.text, NAMES) for s in sources]), NAMES)


def test_profile_sentences_from_the_other_speaker_or_the_assistant_are_not_own(local_embedder):
    turns = [
        ("Caroline", "user", "I'm putting together an LGBTQ art show next month. So excited!"),
        ("Melanie", "user", "Wow, Caroline! We went camping with the kids in the forest."),
        ("Advisor", "assistant", "What would you like to focus on today?"),
    ]
    profile = ("Caroline is putting together an LGBTQ art show next month.\n"
               "Caroline went camping with the kids in the forest.\n"
               "Advisor: What would you like to focus on today?\n"
               "Caroline is putting together an LGBTQ art show next month!")
    counts = _profile(local_embedder, profile, turns)
    assert (counts.sentences, counts.own, counts.duplicates) == (4, 2, 1)
    assert counts.tokens == count_tokens(profile) and counts.own_share == 0.5


def test_an_empty_profile_scores_nothing(local_embedder):
    assert _profile(local_embedder, "", [("Caroline", "user", "Hi!")]) == ProfileCounts(profiles=1)


@pytest.mark.dataset
def test_eval_locomo_memory_end_to_end(locomo_path, tmp_path):
    """Three sessions of the first conversation through the command: ingest with the
    pipeline, then scores that stay in range; the references are never stored."""
    raw = json.loads(locomo_path.read_text())[0]
    keep = {1, 2, 3}
    conversation = {k: v for k, v in raw["conversation"].items()
                    if not k.startswith("session_") or int(k.split("_")[1]) in keep}
    sample = {**raw, "conversation": conversation,
              "observation": {f"session_{n}_observation": raw["observation"][
                  f"session_{n}_observation"] for n in keep},
              "session_summary": {f"session_{n}_summary": raw["session_summary"][
                  f"session_{n}_summary"] for n in keep},
              "qa": []}
    data, store, out = tmp_path / "part.json", tmp_path / "m.db", tmp_path / "out" / "m.json"
    data.write_text(json.dumps([sample]))
    result = CliRunner().invoke(app, ["eval", "locomo-memory", str(data), "--store", str(store),
                                      "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "conv-26" in result.output and "ROUGE" in result.output
    figures = json.loads(out.read_text())
    assert set(figures["conversations"]) == {"conv-26"}
    overall = figures["overall"]
    n_observations = sum(len(v) for n in keep
                         for v in raw["observation"][f"session_{n}_observation"].values())
    assert overall["sessions"] == 3 and overall["facts"]["observations"] == n_observations
    assert 0 < overall["facts"]["covered"] <= n_observations
    assert 0 <= overall["facts"]["citing"] <= overall["facts"]["facts"]
    assert overall["facts"]["per_session"] == pytest.approx(overall["facts"]["facts"] / 3, 1e-3)
    facts = overall["facts"]
    assert facts["per_observation"] == pytest.approx(facts["facts"] / n_observations, 1e-3)
    assert 0 < facts["matched"] <= facts["citing"]
    assert facts["matched_precision"] == pytest.approx(facts["matched"] / facts["facts"], 1e-3)
    assert 0 <= facts["readability"]["unreadable"] <= facts["facts"]
    assert "Readability" in result.output
    summaries = overall["summaries"]
    assert summaries["n"] == 3 and summaries["missing"] == 0
    assert [s["session"] for s in figures["conversations"]["conv-26"]["summaries"]["sessions"]
            ] == [1, 2, 3]
    assert summaries["compression_min"] > 0 and 0 < summaries["rouge1_recall"] <= 1
    # one profile per speaker, each sentence traced to that speaker's own turns
    profile = overall["profile"]
    assert profile["profiles"] == 2 and profile["sentences"] > 0
    assert profile["own"] >= 0.9 * profile["sentences"]
    assert sum(profile["fields"].values()) >= profile["sentences"] // 2 > 0
    # measured, never fed: no stored record holds a reference summary or observation
    with sqlite3.connect(store) as db:
        stored = "\n".join(str(row) for table, in db.execute(
            "SELECT name FROM sqlite_master WHERE type='table'") for row in db.execute(
            f'SELECT * FROM "{table}"'))
    references = list(sample["session_summary"].values()) + [
        text for n in keep for items in raw["observation"][f"session_{n}_observation"].values()
        for text, _ in items]
    assert not [r for r in references if r in stored]
    # a second run reuses the store (nothing ingested again) and gives the same figures
    again = CliRunner().invoke(app, ["eval", "locomo-memory", str(data), "--store", str(store),
                                     "--json", str(out)])
    assert again.exit_code == 0 and "Ingested" not in again.output
    assert json.loads(out.read_text()) == figures


@pytest.mark.dataset
def test_evaluate_locomo_memory_runs_any_reasoner_in_one_call(locomo_path):
    """The API another bench calls: one session of one conversation, ingested into a
    temporary store with the reasoner given as a ready object, then scored."""
    import asyncio

    from agent_memory.datasets.locomo import load_locomo
    from agent_memory.reasoners.extractive import ExtractiveReasoner

    sample = load_locomo(locomo_path)[0]
    sample = sample.model_copy(update={
        "sessions": sample.sessions[:1],
        "observations": [o for o in sample.observations if o.session == 1]})
    report = asyncio.run(evaluate_locomo_memory([sample], reasoner=ExtractiveReasoner(
        wordnet="none")))
    (label, figures), (overall, _) = report.rows()
    assert (label, overall) == ("conv-26", "overall")
    assert figures["sessions"] == 1 and figures["facts"]["observations"] == len(
        sample.observations) > 0
    assert figures["facts"]["facts"] > 0 and figures["facts"]["recall"] > 0


def test_the_report_tables_fit_80_columns_with_full_size_figures():
    """Five conversations' worth of counts: no cell cut short ("0/2…") at 80 columns."""
    from rich.console import Console

    from agent_memory.cli.evaluate_memory import report_tables
    from agent_memory.eval.memory import ConversationReport, MemoryReport, SessionSummaryScore
    from agent_memory.eval.memory_metrics import FactCounts, ProfileCounts
    from agent_memory.eval.readability import ReadabilityCounts

    summary = SessionSummaryScore(session=1, thread_tokens=5000, summary_tokens=990,
                                  compression=5.05, rouge1_recall=0.41, rougeL_recall=0.24)
    report = MemoryReport(conversations=[ConversationReport(
        sample_id=f"conv-{n}", sessions=32,
        facts=FactCounts(observations=1210, covered=685, attributed=1158, facts=1164,
                         citing=913, matched=793),
        readability=ReadabilityCounts(multi_claim=171, unreadable=174),
        summaries=[summary] * 32, missing_summaries=0,
        profile=ProfileCounts(profiles=2, tokens=798, sentences=299, own=290, duplicates=10))
        for n in range(5)])
    console = Console(width=80, record=True)
    for table in report_tables(report):
        console.print(table)
    text = console.export_text()
    assert "\u2026" not in text and "10/299" in text
    assert max(len(line) for line in text.splitlines()) <= 80
