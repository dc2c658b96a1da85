"""The shipped conformance suite as a third party runs it: from its own test file, in a
separate pytest process with pytest-asyncio in strict mode, against a store of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import agent_memory
import agent_memory.testing as suite
from agent_memory.stores.base import Capability
from agent_memory.testing import JobQueueConformance, StoreConformance, requires
from agent_memory.testing._harness import required_capabilities

SRC = Path(agent_memory.__file__).resolve().parents[1]

THIRD_PARTY = '''
import pytest

from agent_memory.stores.base import Capability
from agent_memory.stores.sqlite import SQLiteStore
from agent_memory.testing import JobQueueConformance, StoreConformance


class TextOnlyStore(SQLiteStore):
    """A store that declares neither ranked search, collections nor a job queue."""

    capabilities = frozenset({Capability.PERSISTENT})


@pytest.fixture
def store_factory(tmp_path):
    return lambda: TextOnlyStore(tmp_path / "memory.db", vector_index="exact")


class TestTextOnlyStore(StoreConformance):
    pass


class TestTextOnlyQueue(JobQueueConformance):
    pass
'''


def run_pytest(tmp_path: Path, module: str) -> dict[str, tuple[str, str]]:
    """Run ``module`` as ``test_third_party_store.py`` in a fresh pytest process (strict
    asyncio mode, no configuration of ours); returns test name -> (outcome, skip message)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_mode = strict\n")
    (tmp_path / "test_third_party_store.py").write_text(module)
    report = tmp_path / "report.xml"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
         f"--junitxml={report}", "test_third_party_store.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert report.exists(), done.stdout + done.stderr
    outcomes = {}
    for case in ET.parse(report).iter("testcase"):
        name = f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name')}"
        skipped = case.find("skipped")
        failed = case.find("failure") is not None or case.find("error") is not None
        outcome = "failed" if failed else "skipped" if skipped is not None else "passed"
        outcomes[name] = (outcome, "" if skipped is None else skipped.get("message", ""))
    return outcomes


def expected_outcomes(cls: type, declared: frozenset[Capability]) -> dict[str, str]:
    """Test method name -> the skip reason it must get, or "" when it must run."""
    out = {}
    for name in dir(cls):
        if not name.startswith("test_"):
            continue
        needed = required_capabilities(getattr(cls, name)) | required_capabilities(cls)
        missing = [c for c in Capability if c in needed and c not in declared]
        out[name] = ", ".join(f"Capability.{c.name}" for c in missing)
    return out


def test_declared_missing_capabilities_are_skipped_with_their_reason(tmp_path: Path) -> None:
    outcomes = run_pytest(tmp_path, THIRD_PARTY)
    assert outcomes and not [n for n, (o, _) in outcomes.items() if o == "failed"]

    declared = frozenset({Capability.PERSISTENT})
    for cls, prefix in ((StoreConformance, "TestTextOnlyStore"),
                        (JobQueueConformance, "TestTextOnlyQueue")):
        for method, missing in expected_outcomes(cls, declared).items():
            cases = {n: v for n, v in outcomes.items()
                     if n.split("[")[0] == f"{prefix}::{method}"}
            assert cases, f"{prefix}::{method} did not run"
            for outcome, message in cases.values():
                if missing:
                    assert outcome == "skipped"
                    assert message.endswith(f"TextOnlyStore does not declare {missing}")
                else:
                    assert outcome == "passed"

    skipped = sorted({n.split("[")[0] for n, (o, _) in outcomes.items() if o == "skipped"})
    store_skips = [n for n in skipped if n.startswith("TestTextOnlyStore")]
    assert store_skips == [
        "TestTextOnlyStore::test_indexed_gives_back_text_and_vectors_bit_for_bit",
        "TestTextOnlyStore::test_indexed_needs_a_user",
        "TestTextOnlyStore::test_indexed_record_without_vectors_has_none",
        "TestTextOnlyStore::test_one_pushed_down_search_returns_every_signals_rank_and_score",
        "TestTextOnlyStore::test_recorded_embedding_before_open",
        "TestTextOnlyStore::test_text_scores_do_not_depend_on_other_users",
        "TestTextOnlyStore::test_text_search_ranks_the_rare_term_first",
        "TestTextOnlyStore::test_users_lists_every_user_with_records_sorted",
        "TestTextOnlyStore::test_vector_search_fills_k_when_one_record_holds_the_top_rows",
        "TestTextOnlyStore::test_vector_search_multi_field_returns_each_record_once",
        "TestTextOnlyStore::test_vector_search_ranks_by_cosine",
    ]
    queue_cases = [v for n, v in outcomes.items() if n.startswith("TestTextOnlyQueue")]
    assert len(queue_cases) >= 14
    assert {v for v in queue_cases} == {
        ("skipped", "TextOnlyStore does not declare Capability.JOB_QUEUE")}


def test_the_documented_example_runs_as_written(tmp_path: Path) -> None:
    doc = suite.__doc__
    example = doc.split("::\n", 1)[1].split("\nThe fixtures", 1)[0]
    outcomes = run_pytest(tmp_path, textwrap.dedent(example))
    assert len(outcomes) >= 70
    assert {o for o, _ in outcomes.values()} == {"passed"}


def test_requires_refuses_strings() -> None:
    with pytest.raises(TypeError, match="Capability members"):
        requires("vector_search")  # type: ignore[arg-type]


def test_the_library_imports_without_pytest() -> None:
    code = textwrap.dedent("""
        import sys
        sys.modules["pytest"] = None  # any import of pytest now fails
        import agent_memory, agent_memory.stores.sqlite, agent_memory.jobs, agent_memory.cli.app
        try:
            import agent_memory.testing
        except ImportError as exc:
            print(exc)
    """)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "pip install 'agent-memory[testing]'" in done.stdout
