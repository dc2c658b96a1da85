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
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from agent_memory import Settings
from agent_memory.grounding import ground_summary
from agent_memory.models import Turn

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "datasets" / "locomo" / "locomo_dev.json"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def session_turns(conv: dict, n: int) -> list[Turn]:
    """Session ``n`` of a LoCoMo conversation as turns, timed from the session's date."""
    when = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y"
                             ).replace(tzinfo=UTC)
    return [Turn(id=t["dia_id"], user_id="u", thread_id=f"session_{n}", role="user",
                 speaker=t["speaker"], content=t["text"], seq=i,
                 created_at=when + timedelta(seconds=i))
            for i, t in enumerate(conv[f"session_{n}"])]


async def main(path: Path) -> None:
    settings = Settings.load()
    total_kept = total = 0
    print(f"{'conversation':<14}{'sessions':>9}{'sentences':>11}{'kept':>7}{'share':>8}")
    for sample in json.loads(path.read_text()):
        conv, summaries = sample["conversation"], sample["session_summary"]
        kept = count = sessions = 0
        n = 1
        while f"session_{n}" in conv:
            reference = [s for s in _SENTENCE.split(summaries.get(f"session_{n}_summary", ""))
                         if s.strip()]
            if reference:
                text, _ = await ground_summary(settings, " ".join(reference),
                                               session_turns(conv, n), None)
                kept += sum(1 for s in reference if s in text)
                count += len(reference)
                sessions += 1
            n += 1
        print(f"{sample['sample_id']:<14}{sessions:>9}{count:>11}{kept:>7}{kept / count:>8.3f}")
        total_kept += kept
        total += count
    print(f"{'overall':<14}{'':>9}{total:>11}{total_kept:>7}{total_kept / total:>8.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="LoCoMo JSON file")
    asyncio.run(main(parser.parse_args().data))
