"""The agent-memory CLI, run in-process with typer's CliRunner on real files."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from agent_memory.cli.app import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


def write_jsonl(path):
    rows = [
        {"user_id": "dana", "thread_id": "trip", "role": "user", "speaker": "Dana",
         "content": "I am flying to Osaka on 3 April to see my grandmother.",
         "created_at": "2024-03-01T09:00:00Z"},
        {"user_id": "dana", "thread_id": "trip", "role": "assistant",
         "content": "Lovely! Do you need hotel suggestions?", "created_at": "2024-03-01T09:01:00Z"},
        {"user_id": "dana", "thread_id": "trip", "role": "user", "speaker": "Dana",
         "content": "No thanks, I will stay with my cousin Kenji.",
         "created_at": "2024-03-01T09:02:00Z"},
        {"user_id": "eli", "thread_id": "gym", "role": "user", "speaker": "Eli",
         "content": "I lift weights three times a week.", "created_at": "2024-03-02T09:00:00Z"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")


def test_ingest_search_summary_profile(tmp_path):
    data, store = tmp_path / "turns.jsonl", tmp_path / "m.db"
    write_jsonl(data)
    result = runner.invoke(app, ["ingest", str(data), "--format", "jsonl", "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert "Ingested 4 turns in 2 threads of 2 users" in result.output

    result = runner.invoke(app, ["search", "Where is Dana travelling?", "--user", "dana",
                                 "--store", str(store), "--json", "-k", "3"])
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert hits and "Osaka" in hits[0]["record"]["content"]
    assert all(h["record"]["user_id"] == "dana" for h in hits)
    assert {"vector", "text"} & set(hits[0]["signals"]) and hits[0]["provenance"]["evidence"]

    result = runner.invoke(app, ["search", "weights", "--user", "dana", "--store", str(store),
                                 "--mode", "text", "--json"])
    assert result.exit_code == 0 and json.loads(result.output) == []  # eli's turn stays his

    table = runner.invoke(app, ["search", "Osaka", "--user", "dana", "--store", str(store)])
    assert table.exit_code == 0 and "Osaka" in table.output and "trip" in table.output

    result = runner.invoke(app, ["summary", "--user", "dana", "--thread", "trip",
                                 "--store", str(store)])
    assert result.exit_code == 0 and "summary_dana_trip" in result.output
    result = runner.invoke(app, ["profile", "--user", "dana", "--store", str(store)])
    assert result.exit_code == 0 and "user_summary_dana" in result.output
    result = runner.invoke(app, ["profile", "--user", "nobody", "--store", str(store)])
    assert result.exit_code == 1 and "run ingest or the pipeline first" in result.output
    result = runner.invoke(app, ["profile", "--user", "dana", "--subject", "Kenji",
                                 "--store", str(store)])
    assert result.exit_code == 1 and "profiles there: Dana (--subject NAME)" in result.output


def test_the_search_table_shows_the_text_at_80_columns(tmp_path, monkeypatch):
    """At 80 columns the text column keeps its words readable (was cut to ~12 characters
    a line); a fact names the turn it cites, a turn does not repeat itself."""
    data, store = tmp_path / "turns.jsonl", tmp_path / "m.db"
    write_jsonl(data)
    assert runner.invoke(app, ["ingest", str(data), "--store", str(store)]).exit_code == 0
    assert runner.invoke(app, ["facts", "--user", "dana", "--store", str(store)]).exit_code == 0
    monkeypatch.setenv("COLUMNS", "80")
    table = runner.invoke(app, ["search", "Where is Dana flying to see her grandmother?",
                                "--user", "dana", "--store", str(store), "-k", "3"])
    assert table.exit_code == 0, table.output
    lines = table.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any("I am flying to Osaka on 3" in line for line in lines), table.output
    assert sum("from turn_" in line for line in lines) == 1  # the fact cites its turn


def test_errors_are_one_clear_line(tmp_path):
    not_a_store = tmp_path / "notes.txt"
    not_a_store.write_text("just some notes\n")
    result = runner.invoke(app, ["search", "x", "--user", "u", "--store", str(not_a_store)])
    assert result.exit_code == 2 and "NotAStoreError" in result.output
    assert not_a_store.read_text() == "just some notes\n"
    assert runner.invoke(app, ["reconcile", "--user", "u", "--store",
                               str(tmp_path / "m.db")]).exit_code == 0
    result = runner.invoke(app, ["search", "x", "--user", " ", "--store", str(tmp_path / "m.db")])
    assert result.exit_code == 2 and "MissingScopeError" in result.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"user_id": "u", "thread_id": "t", "role": "user", "content": "ok"}\n'
                   '{"user_id": "u", "thread_id": "t", "role": "bard", "content": "hi"}\n')
    result = runner.invoke(app, ["ingest", str(bad), "--store", str(tmp_path / "m.db")])
    assert result.exit_code == 2 and "line 2" in result.output


def test_demo_runs_end_to_end():
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    for expected in ("generate_thread_summary", "extract_facts", "user_summary_priya",
                     "search: 'Does she have children?'", "Anika"):
        assert expected in result.output


def kai_moves(store) -> str:
    """A store where Kai lived in Boston, then moved to Portland, reconciled (Boston retired);
    returns the Boston fact's id."""
    import asyncio
    from datetime import UTC, datetime

    from agent_memory import AsyncMemory, Settings

    async def build() -> str:
        async with AsyncMemory.open(Settings.load(store=str(store))) as memory:
            added = await memory.add_memories("kai", [
                {"content": "Kai lives in Boston.", "subject": "Kai",
                 "created_at": datetime(2024, 1, 10, tzinfo=UTC)},
                {"content": "Kai moved to Portland in May 2025.", "subject": "Kai",
                 "created_at": datetime(2025, 6, 20, tzinfo=UTC),
                 "valid_from": datetime(2025, 5, 1, tzinfo=UTC)}])
            await memory.reconcile_memories("kai")
            return added.added[0][1].id

    return asyncio.run(build())


def test_facts_and_search_as_of(tmp_path):
    """``facts --as-of`` and ``search --as-of`` show the facts valid then, with their valid
    time; without it, the current ones."""
    store = tmp_path / "m.db"
    kai_moves(store)
    base = ["--user", "kai", "--store", str(store)]
    result = runner.invoke(app, ["facts", *base, "--as-of", "2024-06-15"])
    assert result.exit_code == 0, result.output
    assert "Boston" in result.output and "Portland" not in result.output
    assert "2024-01-10 -> 2025-05-01" in result.output
    result = runner.invoke(app, ["facts", *base, "--json"])
    assert [f["content"] for f in json.loads(result.output)] == [
        "Kai moved to Portland in May 2025."]
    result = runner.invoke(app, ["search", "Where does Kai live?", *base, "--kind", "fact",
                                 "--as-of", "2024-06-15", "--json"])
    assert result.exit_code == 0, result.output
    assert [h["record"]["content"] for h in json.loads(result.output)] == [
        "Kai lives in Boston."]
    result = runner.invoke(app, ["facts", *base, "--as-of", "June"])
    assert result.exit_code != 0 and "as-of" in result.output


def test_history_shows_the_audit_events_of_a_retired_and_restored_fact(tmp_path):
    """``history`` on a fact reconciliation retired prints what replaced it and each audit
    event (time, action, details) as a table, and again after ``restore``."""
    store = tmp_path / "m.db"
    fact_id = kai_moves(store)
    base = ["--user", "kai", "--store", str(store)]
    result = runner.invoke(app, ["history", fact_id, *base])
    assert result.exit_code == 0, result.output
    assert "replaced by" in result.output and "Portland" in result.output
    assert "superseded" in result.output and "contradict" in result.output
    assert "P(contradiction)" in result.output  # the decision's rationale, in its column
    assert runner.invoke(app, ["restore", fact_id, *base]).exit_code == 0
    result = runner.invoke(app, ["history", fact_id, *base])
    assert result.exit_code == 0, result.output
    assert "restored" in result.output


def test_eval_locomo_tables_fit_80_columns(tmp_path):
    """``eval locomo`` prints recall_any@k and recall_all@k as two tables that fit an 80-column
    terminal with every header whole (a tiny LoCoMo-format file written here)."""
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([{
        "sample_id": "s1",
        "qa": [{"question": "Where did A move?", "answer": "Oslo", "evidence": ["D1:1"],
                "category": 1}],
        "conversation": {"speaker_a": "A", "speaker_b": "B",
                         "session_1_date_time": "10:15 am on 3 June, 2024",
                         "session_1": [
                             {"speaker": "A", "dia_id": "D1:1", "text": "I moved to Oslo."},
                             {"speaker": "B", "dia_id": "D1:2", "text": "How is the weather?"}]},
    }]))
    result = runner.invoke(app, ["eval", "locomo", str(data)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "recall_any@k" in result.output and "recall_all@k" in result.output
    assert "k=10" in result.output and "1 multi-hop" in result.output and "…" not in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80


def test_reconcile_lists_what_it_retired_and_rebuilds_the_profile(tmp_path):
    """ingest then reconcile, as the README shows: the retired fact is named with the one that
    holds now, and the profile no longer shows it."""
    rows = [
        {"user_id": "dana", "thread_id": "jan", "role": "user", "speaker": "Dana",
         "content": "I live in Leeds and I work as a graphic designer.",
         "created_at": "2024-01-10T09:00:00Z"},
        {"user_id": "dana", "thread_id": "may", "role": "user", "speaker": "Dana",
         "content": "Big news: I moved to Glasgow in April.",
         "created_at": "2024-05-20T09:00:00Z"},
    ]
    data, store = tmp_path / "turns.jsonl", tmp_path / "m.db"
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert runner.invoke(app, ["ingest", str(data), "--store", str(store)]).exit_code == 0
    before = runner.invoke(app, ["profile", "--user", "dana", "--store", str(store)])
    assert "Leeds" in before.output and "Glasgow" in before.output
    result = runner.invoke(app, ["reconcile", "--user", "dana", "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert "contradicted 1" in result.output
    assert "Dana lives in Leeds. (contradict; now: Dana moved to Glasgow" in result.output
    assert "profiles rebuilt: user_summary_dana" in result.output
    after = runner.invoke(app, ["profile", "--user", "dana", "--store", str(store)])
    assert "Leeds" not in after.output and "Glasgow" in after.output
    again = runner.invoke(app, ["reconcile", "--user", "dana", "--store", str(store), "--json"])
    assert json.loads(again.output) == {"kept": 2, "merged": 0, "contradicted": 0,
                                        "profiles": []}

    # the short ids the tables show are accepted back; a retired fact says so
    listed = runner.invoke(app, ["memories", "--user", "dana", "--store", str(store), "--kind",
                                 "fact", "--include-superseded"])
    assert "(retired: contradict) Dana lives in Leeds." in " ".join(listed.output.split())
    short = next(line.split()[0] for line in listed.output.splitlines() if "Leeds" in line)
    assert len(short) == len("fact_") + 8
    shown = runner.invoke(app, ["history", short, "--user", "dana", "--store", str(store)])
    assert shown.exit_code == 0 and "Dana lives in Leeds." in shown.output
    assert "Glasgow" in shown.output  # what replaced it
    unknown = runner.invoke(app, ["history", "fact_00000000", "--user", "dana", "--store",
                                  str(store)])
    assert unknown.exit_code != 0 and "no fact 'fact_00000000'" in unknown.output
