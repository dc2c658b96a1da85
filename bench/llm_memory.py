"""LoCoMo memory quality through an OpenAI-compatible LLM server, beside the offline reasoner.

Runs ``agent-memory eval locomo-memory``'s evaluation
(:func:`agent_memory.eval.memory.evaluate_locomo_memory`: ingest with the full pipeline, then
score facts, summaries and profiles against LoCoMo's references) twice on the same subset of
the dev set: with the offline ``extractive`` reasoner and with ``compatible:<model>`` at
``--base-url``. Prints the figures side by side, with the wall time of each run.

A small local model is slow (a 1.5B model on two CPU cores takes minutes per session), so the
subset is small: ``--conversations`` (default 1) and, optionally, ``--sessions`` (only the
first K sessions of each conversation; the references are cut to the same sessions).

Usage::

    python bench/llm_memory.py --base-url http://127.0.0.1:8765/v1 --model qwen15 \\
        [--conversations 1] [--sessions 3] [--timeout 600] [--response-format json_object] \\
        [--json-out figures.json] [PATH_TO_locomo_dev.json]

LoCoMo is CC BY-NC: it is read to measure, nothing of it is written to the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from _common import DEFAULT_LOCOMO

from agent_memory.config import Settings
from agent_memory.datasets.locomo import LocomoSample, load_locomo
from agent_memory.errors import ReasonerError
from agent_memory.eval.memory import evaluate_locomo_memory

ROWS = [
    ("facts", "facts"),
    ("facts", "per_observation"),
    ("facts", "matched_precision"),
    ("facts", "recall"),
    ("facts", "precision"),
    ("facts", "attribution"),
    ("facts", "unreadable_share"),
    ("facts", "per_session"),
    ("summaries", "compression_mean"),
    ("summaries", "at_target"),
    ("summaries", "rouge1_recall"),
    ("profile", "tokens_mean"),
    ("profile", "own_share"),
]
"""(section, figure) pairs printed, when the report has them."""


def subset(samples: list[LocomoSample], conversations: int,
           sessions: int | None) -> list[LocomoSample]:
    """The first ``conversations`` samples, each cut to its first ``sessions`` sessions (with
    the references of those sessions only); questions are dropped (not scored here)."""
    out = []
    for sample in samples[:conversations]:
        if sessions is None:
            out.append(sample.model_copy(update={"questions": []}))
            continue
        kept = sample.sessions[:sessions]
        numbers = {s.number for s in kept}
        out.append(sample.model_copy(update={
            "sessions": kept, "questions": [],
            "observations": [o for o in sample.observations if o.session in numbers],
            "session_summaries": {n: t for n, t in sample.session_summaries.items()
                                  if n in numbers},
        }))
    return out


async def run(samples: list[LocomoSample], settings: Settings) -> tuple[dict[str, Any], float]:
    """The overall figures of one evaluation and its wall time in seconds."""
    start = time.perf_counter()
    report = await evaluate_locomo_memory(samples, settings)
    return report.to_dict(), time.perf_counter() - start


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8765/v1")
    parser.add_argument("--model", required=True, help="the server's model name, e.g. qwen15")
    parser.add_argument("--conversations", type=int, default=1, help="how many (default 1)")
    parser.add_argument("--sessions", type=int, default=None,
                        help="only the first K sessions of each conversation")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="reasoner_timeout in seconds (default 600)")
    parser.add_argument("--response-format", default="auto",
                        choices=("auto", "json_schema", "json_object"))
    parser.add_argument("--context-tokens", type=int, default=4096)
    parser.add_argument("--json-out", type=Path, default=None)
    args = parser.parse_args()
    if args.conversations < 1 or (args.sessions is not None and args.sessions < 1):
        parser.error("--conversations and --sessions must be >= 1")

    samples = subset(load_locomo(args.path), args.conversations, args.sessions)
    turns = sum(len(s.turns) for sample in samples for s in sample.sessions)
    observations = sum(len(sample.observations) for sample in samples)
    print(f"LoCoMo subset: {', '.join(s.sample_id for s in samples)}; "
          f"{sum(len(s.sessions) for s in samples)} sessions, {turns} turns, "
          f"{observations} reference observations")

    offline, offline_s = asyncio.run(run(samples, Settings.load(reasoner="extractive")))
    print(f"offline (extractive): {offline_s:.0f} s")
    llm_settings = Settings.load(
        reasoner=f"compatible:{args.model}", reasoner_base_url=args.base_url,
        reasoner_timeout=args.timeout, reasoner_response_format=args.response_format,
        reasoner_context_tokens=args.context_tokens)
    try:
        llm, llm_s = asyncio.run(run(samples, llm_settings))
        print(f"compatible:{args.model}: {llm_s:.0f} s")
    except ReasonerError as exc:  # print the offline column anyway, and why
        print(f"compatible:{args.model} failed: {exc}")
        llm, llm_s = {"overall": {}}, float("nan")

    label = f"compatible:{args.model}"
    print(f"\n| figure | extractive | {label} |\n|---|---:|---:|")
    for section, name in ROWS:
        left = offline["overall"].get(section, {}).get(name)
        right = llm["overall"].get(section, {}).get(name)
        if left is not None or right is not None:
            print(f"| {section}.{name} | {_cell(left)} | {_cell(right)} |")
    left_flags = offline["overall"].get("facts", {}).get("readability") or {}
    right_flags = llm["overall"].get("facts", {}).get("readability") or {}
    for flag in sorted(set(left_flags) | set(right_flags)):
        print(f"| readability.{flag} | {_cell(left_flags.get(flag))} | "
              f"{_cell(right_flags.get(flag))} |")
    print(f"| wall time (s) | {offline_s:.0f} | {llm_s:.0f} |")
    if args.json_out:
        args.json_out.write_text(json.dumps(
            {"subset": [s.sample_id for s in samples], "sessions": args.sessions,
             "extractive": offline, label: llm,
             "seconds": {"extractive": round(offline_s, 1), label: round(llm_s, 1)}},
            indent=2))


if __name__ == "__main__":
    main()
