"""How many legitimate summary sentences the summary grounding check keeps.

LoCoMo's reference session summaries were written by another system from the same turns: they
stand for the summary a good LLM would write. Each session's reference summary goes through
:func:`agent_memory.grounding.ground_summary` against that session's turns (the check a thread
summary or a session's summary passes before it is stored); the share of its sentences kept is
the check's recall on legitimate text (its refusals of planted claims are tested in
``tests/reasoners/test_grounding.py`` and ``tests/cli/test_demo_poison.py``).

Run: ``python bench/summary_grounding.py [--data PATH]``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
from pathlib import Path

from agent_memory import Settings
from agent_memory.datasets.locomo import load_locomo
from agent_memory.grounding import ground_summary

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "datasets" / "locomo" / "locomo_dev.json"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


async def main(path: Path) -> None:
    settings = Settings.load()
    total_kept = total = 0
    print(f"{'conversation':<14}{'sessions':>9}{'sentences':>11}{'kept':>7}{'share':>8}")
    for sample in load_locomo(path):
        kept = count = sessions = 0
        for session in sample.sessions:
            reference = [s for s in _SENTENCE.split(
                sample.session_summaries.get(session.number, "")) if s.strip()]
            if not reference:
                continue
            text, _ = await ground_summary(settings, " ".join(reference), session.turns, None)
            kept += sum(1 for s in reference if s in text)
            count += len(reference)
            sessions += 1
        print(f"{sample.sample_id:<14}{sessions:>9}{count:>11}{kept:>7}{kept / count:>8.3f}")
        total_kept += kept
        total += count
    print(f"{'overall':<14}{'':>9}{total:>11}{total_kept:>7}{total_kept / total:>8.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="LoCoMo JSON file")
    asyncio.run(main(parser.parse_args().data))
