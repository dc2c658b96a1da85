"""Calibrate and measure the grounding check on LoCoMo's reference observations.

LoCoMo ships, per session and speaker, ``observation``: facts written by another system, each
citing the dia_id of its evidence turn. They are the legitimate claims a good reasoner makes, so
they measure how many true facts the check would refuse; the same observation cited against a
different turn of the same session (the next turn by the same speaker) measures how many
misattributed claims it catches. Thresholds are chosen on the first half of the
conversations (tuning) and reported on the second half (held out). The turn-level injection detector is run
on every turn of the dev set; every flagged turn is printed.

Usage::

    python bench/grounding_calibration.py [--dataset PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from agent_memory.datasets.locomo import PHOTO_TEMPLATE
from agent_memory.embedders.local import LocalEmbedder
from agent_memory.grounding.support import (
    lexical_support,
    unsupported_names,
    unsupported_numbers,
)
from agent_memory.text.injection import injection_reason

DEFAULT = Path(__file__).resolve().parents[2] / "shared/datasets/locomo/locomo_dev.json"


def _rows(sample: dict) -> list[dict]:
    conv = sample["conversation"]
    speakers = [conv["speaker_a"], conv["speaker_b"]]
    turns, when = {}, {}
    for key, value in conv.items():
        if key.startswith("session_") and isinstance(value, list):
            stamp = datetime.strptime(conv[f"{key}_date_time"], "%I:%M %p on %d %B, %Y")
            for t in value:
                if t.get("blip_caption"):  # as ingested (agent_memory.datasets.locomo)
                    t = {**t, "text": PHOTO_TEMPLATE.format(text=t["text"],
                                                             caption=t["blip_caption"])}
                turns[t["dia_id"]] = t
                when[t["dia_id"]] = stamp.replace(tzinfo=UTC)
    order = list(turns)
    rows = []
    for per_speaker in sample["observation"].values():
        for speaker, items in per_speaker.items():
            for text, cites in items:
                ids = [c.strip() for c in str(cites).replace(",", ";").split(";")]
                ids = [i for i in ids if i in turns]
                if not ids:
                    continue
                # a wrong citation: the next turn of the same speaker that is not cited
                start = order.index(ids[0])
                wrong = next((i for i in order[start + 1:] + order[:start]
                              if turns[i]["speaker"] == speaker and i not in ids), None)
                rows.append({"text": text, "ids": ids, "wrong": wrong, "turns": turns,
                             "when": when, "speakers": speakers})
    return rows


def _scores(rows: list[dict], embedder: LocalEmbedder, key: str) -> list[dict]:
    out = []
    texts = [r["text"] for r in rows]
    claim_vecs = embedder.embed_sync(texts)
    for r, vec in zip(rows, claim_vecs, strict=True):
        ids = r["ids"] if key == "ids" else [r["wrong"]]
        if ids == [None]:
            continue
        evidence = [r["turns"][i]["text"] for i in ids]
        turn_vecs = embedder.embed_sync(evidence)
        joined = "\n".join(evidence)
        out.append({
            "lexical": lexical_support(r["text"], joined, r["speakers"]),
            "cosine": float(np.max(turn_vecs @ vec)),
            "numbers": unsupported_numbers(r["text"], joined, [r["when"][i] for i in ids]),
            "names": unsupported_names(r["text"], joined, r["speakers"]),
        })
    return out


def _pass(s: dict, lexical: float, cosine: float) -> bool:
    return (not s["numbers"] and not s["names"] and s["lexical"] >= lexical
            and s["cosine"] >= cosine)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=DEFAULT)
    args = parser.parse_args()
    data = json.loads(args.dataset.read_text())
    embedder = LocalEmbedder()
    cut = (len(data) + 1) // 2
    halves = {f"tuning (conv 1-{cut})": data[:cut],
              f"held out (conv {cut + 1}-{len(data)})": data[cut:]}
    scored = {}
    for name, samples in halves.items():
        rows = [r for s in samples for r in _rows(s)]
        scored[name] = (_scores(rows, embedder, "ids"), _scores(rows, embedder, "wrong"))
    true, _ = next(iter(scored.values()))
    print("tuning half: quantiles of the true observations' scores")
    for field in ("lexical", "cosine"):
        values = np.array([s[field] for s in true])
        print(f"  {field}: " + ", ".join(f"p{q}={np.percentile(values, q):.2f}"
                                         for q in (1, 2, 5, 10, 25, 50)))
    print("  numbers refused:", sum(bool(s["numbers"]) for s in true),
          "names refused:", sum(bool(s["names"]) for s in true), "of", len(true))
    print("\nthresholds (lexical, cosine): share of true observations kept / wrong citations "
          "refused")
    for lexical, cosine in ((0.0, 0.0), (0.2, 0.15), (0.2, 0.2), (0.25, 0.2), (0.3, 0.2),
                            (0.3, 0.25), (0.3, 0.3), (0.4, 0.35)):
        cells = []
        for name, (t, w) in scored.items():
            kept = sum(_pass(s, lexical, cosine) for s in t) / len(t)
            caught = sum(not _pass(s, lexical, cosine) for s in w) / len(w)
            cells.append(f"{name}: kept {kept:.3f} of {len(t)}, refused {caught:.3f} of {len(w)}")
        print(f"  ({lexical:.2f}, {cosine:.2f})  " + " | ".join(cells))
    turns = [t for s in data for k, v in s["conversation"].items()
             if k.startswith("session_") and isinstance(v, list) for t in v]
    flagged = [(t["dia_id"], injection_reason(t["text"]), t["text"]) for t in turns
               if injection_reason(t["text"])]
    print(f"\ninjection detector: {len(flagged)} of {len(turns)} LoCoMo dev turns flagged")
    for row in flagged:
        print("  ", row)


if __name__ == "__main__":
    asyncio.run(asyncio.sleep(0))
    main()
