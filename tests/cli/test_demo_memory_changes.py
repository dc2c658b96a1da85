"""``agent-memory demo``: the later session retires the earlier loan and house budget, the
profile shows only what holds now, per field, with no sentence about the advisor, and every
session summary compresses at least 5:1 (the offline reasoner, a real SQLite file)."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from agent_memory.cli.app import app

runner = CliRunner()


def test_demo_shows_memory_changing(tmp_path) -> None:
    store = tmp_path / "demo.db"
    result = runner.invoke(app, ["demo", "--store", str(store)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.output
    retired = [line for line in out.splitlines() if "(contradict" in line]
    assert any("$12,000 of student loans" in line and "student loan" in line.split("now:")[-1]
               for line in retired)
    assert any("$350,000" in line and "$480,000" in line for line in retired)

    profile = out.split("User profile")[1].split("Hybrid search")[0]
    for now in ("$480,000", "$7,000 of student loans", "nurse", "Anika", "email"):
        assert now in profile, now
    for then in ("$12,000", "$350,000"):
        assert then not in profile, then
    assert not re.search(r"advisor", profile.split("fields:")[0], re.IGNORECASE)
    assert "Finances: " in profile and "conversation time 2025-03-04 to 2025-06-02" in profile
    ratios = [float(r) for r in re.findall(r"compression (\d+\.\d):1", out)]
    assert len(ratios) == 3 and min(ratios) >= 5.0

    shown = runner.invoke(app, ["profile", "--user", "priya", "--store", str(store),
                                "--subject", "Priya"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "user_summary_priya (Priya)" in shown.output and "finances: facts fact_" in shown.output
    missing = runner.invoke(app, ["profile", "--user", "priya", "--store", str(store),
                                  "--subject", "Advisor"])
    assert missing.exit_code == 1 and "no profile for 'Advisor'" in missing.output
