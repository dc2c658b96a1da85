"""How rightly the offline reasoner files LoCoMo facts into profile fields, against a reader.

``data/profile_field_labels.jsonl`` holds a reader's labels of 650 facts the offline extractor
wrote from the LoCoMo dev conversations: for each, the field of the default profile schema a
careful person would file it under, or ``none`` (the labelling rule of ``data/README.md``),
given by a reader who saw neither the field model nor its output. A label names its fact by
``sample_id``, the ``dia_id`` of the fact's first evidence turn and the first 16 hex digits of
the SHA-256 of the fact's text: no LoCoMo text is stored. Splits: ``tune`` (140 facts of
conv-26 and conv-30; the threshold and the regularisation were chosen on them), ``dev`` (210
of conv-41/42/43, read during development) and ``heldout`` (300 more of conv-41/42/43, set
aside before any choice).

The script runs the offline extractor over every session (as the pipeline does, without the
grounding check and reconciliation), finds the labelled facts among its facts (a label whose
fact the extractor no longer writes is counted as missing), and prints per split, for the
nearest-prototype rule and for the learned field model:

- filed: labelled facts given a field; *right*: share of those in the reader's field;
- recall: share of the facts the reader filed that are filed in that field;
- none filed: facts the reader left out that are filed anyway;
- the profiles: each person's facts filed, the older of two near-duplicates left out and the
  rest rendered within 400 tokens, as the pipeline does (``newest_distinct`` and
  ``render_profile`` of :mod:`agent_memory.profile_schema`), and of the shown statements that are
  labelled, the share in the reader's field and the share the reader left out.

    PYTHONPATH=src python bench/profile_fields_locomo.py [--locomo PATH]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from _common import DEFAULT_LOCOMO, fingerprint

from agent_memory.datasets.locomo import dia_id_of, load_locomo
from agent_memory.profile_schema import Statement, newest_distinct, render_profile, schema_fields
from agent_memory.reasoners.extractive.facts import extract_facts
from agent_memory.reasoners.extractive.profile import FieldIndex
from agent_memory.reasoners.extractive.select import shared_embedder

LABELS = Path(__file__).resolve().parents[1] / "data" / "profile_field_labels.jsonl"
SPLITS = ("tune", "dev", "heldout")



def locomo_facts(path: Path) -> dict[tuple[str, str | None], list[tuple[str, str]]]:
    """Every fact the offline extractor writes per (sample, subject): ``(key, text)`` in
    order, ``key`` = ``"sample|dia_id|fingerprint"``."""
    people: dict[tuple[str, str | None], list[tuple[str, str]]] = defaultdict(list)
    for sample in load_locomo(path):
        for session in sample.sessions:
            for fact in extract_facts(session.turns).facts:
                dia = dia_id_of(fact.evidence[0], sample.sample_id)
                key = f"{sample.sample_id}|{dia}|{fingerprint(fact.text)}"
                people[(sample.sample_id, fact.subject)].append((key, fact.text))
    return people


def score(name: str, index: FieldIndex, people: dict, labels: dict[str, tuple[str, str]]) -> None:
    """Print the figures of one way of filing (see the module docstring)."""
    fields = index.fields
    counts: dict[str, defaultdict[str, int]] = {s: defaultdict(int) for s in SPLITS}
    for (_, subject), facts in people.items():
        placed = index.assign([t for _, t in facts], [subject] * len(facts))
        for (key, _), a in zip(facts, placed, strict=True):
            if key in labels:
                field, split = labels[key]
                c = counts[split]
                c["found"] += 1
                c["reader filed"] += field != "none"
                c["reader none"] += field == "none"
                if a.field:
                    c["filed"] += 1
                    c["right"] += a.field == field
                    c["none filed"] += field == "none"
        statements = [Statement(field=a.field, text=t, fact_id=key, order=n, score=a.score)
                      for n, ((key, t), a) in enumerate(zip(facts, placed, strict=True))
                      if a.field]
        _, shown = render_profile(newest_distinct(statements), fields, 400)
        for f in shown:
            for key in f.facts:
                if key in labels:
                    field, split = labels[key]
                    counts[split]["shown"] += 1
                    counts[split]["shown right"] += field == f.name
                    counts[split]["shown none"] += field == "none"
    for split in SPLITS:
        c = counts[split]
        print(f"  {name:10} {split:8} found {c['found']:3}  filed {c['filed']:3}  right "
              f"{c['right'] / max(1, c['filed']):.3f}  recall "
              f"{c['right'] / max(1, c['reader filed']):.3f}  none filed "
              f"{c['none filed']}/{c['reader none']}  | profiles: shown {c['shown']:3}  right "
              f"{c['shown right'] / max(1, c['shown']):.3f}  left out by the reader "
              f"{c['shown none'] / max(1, c['shown']):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    args = parser.parse_args()
    if not args.locomo.exists():
        raise SystemExit(f"LoCoMo dev set not found: {args.locomo}")
    labels = {}
    for line in LABELS.read_text().splitlines():
        item = json.loads(line)
        labels[f"{item['sample_id']}|{item['dia_id']}|{item['fact_sha256']}"] = (
            item["field"], item["split"])
    people = locomo_facts(args.locomo)
    embed = shared_embedder().embed_sync
    print(f"{len(labels)} labels; {sum(len(f) for f in people.values())} facts written")
    score("prototypes", FieldIndex(embed, schema_fields()), people, labels)
    score("model", FieldIndex(embed, schema_fields(), learned=embed), people, labels)


if __name__ == "__main__":
    main()
