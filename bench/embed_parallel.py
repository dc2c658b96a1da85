"""How the local embedder runs a large call: batch order and parallelism, on ingest's texts.

The texts are the 2,760 LoCoMo dev turns as ingest indexes them (each with its previous turn,
default ``turn_context_tokens``), embedded in chunks of 512 as ``ingest_threads`` does. Each
configuration runs ``--rounds`` times, interleaved (so that load on the machine hits them
alike); printed per configuration: best and median texts/s (wall), CPU seconds per run (all
threads), and the lowest cosine of its vectors against the first configuration's.

Configurations:

- ``workers``: the default: batches sorted by token length, run side by side, one core each;
- ``intra-op``: one batch at a time split across the cores by onnxruntime (``threads`` = cores,
  ``workers=1``), the earlier default;
- ``one-core``: ``threads=1, workers=1`` (what one core does);
- ``unsorted``: as ``workers`` but batches in input order (7 texts each, as many batches as the
  sorted run makes): what sorting by length saves.

Usage: ``python bench/embed_parallel.py [--rounds 3] [--only NAME ...]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

import numpy as np
from _common import DEFAULT_LOCOMO, add_src_to_path, print_machine, usable_cores

add_src_to_path()

from agent_memory.cli.ingest import load_batches
from agent_memory.embedders.local import LocalEmbedder
from agent_memory.indexing import previous_turns, vector_texts
from agent_memory.stores.base import CONTENT

CHUNK = 512
"""Texts per call, as ``ingest_threads`` stores turns (``chunk_turns``)."""


class UnsortedEmbedder(LocalEmbedder):
    """The default embedder with batches taken in input order instead of by length."""

    def _batches(self, order: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
        inputs = np.arange(len(order))
        return [inputs[i : i + 7] for i in range(0, len(inputs), 7)]


def ingest_texts() -> list[str]:
    """The ``content`` vector texts of the LoCoMo dev turns, as ingest builds them."""
    turns = [t for b in load_batches(DEFAULT_LOCOMO, "locomo") for t in b.turns]
    context = asyncio.run(previous_turns(turns))
    return [vector_texts(t, context.get(t.id))[CONTENT] for t in turns]


def configurations() -> dict[str, LocalEmbedder]:
    cores = usable_cores()
    return {
        "workers": LocalEmbedder(),
        "intra-op": LocalEmbedder(threads=cores, workers=1),
        "one-core": LocalEmbedder(threads=1, workers=1),
        "unsorted": UnsortedEmbedder(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="configuration names to run")
    args = parser.parse_args()
    print_machine()
    texts = ingest_texts()
    configs = configurations()
    if args.only:
        configs = {name: configs[name] for name in args.only}
    for embedder in configs.values():
        embedder.load()
        embedder.embed_sync(texts[:64])  # warm-up
    walls: dict[str, list[float]] = {name: [] for name in configs}
    cpus: dict[str, list[float]] = {name: [] for name in configs}
    reference: np.ndarray | None = None
    cosine: dict[str, float] = {}
    for round_ in range(args.rounds):
        for name, embedder in configs.items():
            cpu, start = time.process_time(), time.perf_counter()
            out = np.concatenate(
                [embedder.embed_sync(texts[i : i + CHUNK]) for i in range(0, len(texts), CHUNK)]
            )
            walls[name].append(time.perf_counter() - start)
            cpus[name].append(time.process_time() - cpu)
            reference = out if reference is None else reference
            cosine[name] = float(np.min(np.sum(out * reference, axis=1)))
        print(
            f"round {round_ + 1}: "
            + ", ".join(f"{n} {len(texts) / walls[n][-1]:.0f}/s" for n in configs)
            + f"; load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    print(f"\n{len(texts)} texts in calls of {CHUNK}, {args.rounds} rounds:")
    for name in configs:
        rates = [len(texts) / w for w in walls[name]]
        print(
            f"  {name:9s} best {max(rates):4.0f} texts/s, median {statistics.median(rates):4.0f}; "
            f"CPU {statistics.median(cpus[name]):.1f} s per run; min cosine vs first "
            f"{cosine[name]:.7f}"
        )
    for embedder in configs.values():
        embedder.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
