"""Helpers shared by the benchmark scripts (ingest, search latency, cold CLI, LoCoMo labels).

- :func:`machine` / :func:`print_machine`: what the figures were measured on (CPU model from
  ``/proc/cpuinfo``, usable cores, memory, load average, Python, onnxruntime, numpy, SQLite).
- :func:`percentiles_ms`: p50 / p95 of timings, in milliseconds.
- :func:`peak_rss_mb` / :func:`reset_peak_rss`: the process's peak resident set size, from
  ``/proc/self/status`` (``VmHWM``) with ``resource.getrusage`` as the fallback.
- :func:`locomo_path_arg`: the default LoCoMo dev set path, ``../shared/datasets/locomo``.
- :func:`fingerprint`: how reader labels name a LoCoMo-derived fact without storing its text.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform
import resource
import sqlite3
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
"""The repository root."""
DEFAULT_LOCOMO = ROOT.parent / "shared" / "datasets" / "locomo" / "locomo_dev.json"
"""Where the LoCoMo dev set lives on the project's machines."""


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _mem_total_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024**2  # kB -> GiB
    except OSError:
        pass
    return None


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def usable_cores() -> int:
    """CPU cores this process may run on (``sched_getaffinity``; ``os.cpu_count`` elsewhere)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def machine() -> dict[str, object]:
    """A description of the machine and software versions, as a JSON-able dict.

    Keys: ``cpu`` (model name), ``cores`` (usable), ``mem_gib`` (total RAM, GiB),
    ``load_avg_1m`` (at call time: other work on the machine skews the figures), ``python``,
    ``onnxruntime``, ``numpy``, ``sqlite``, ``platform``.
    """
    mem = _mem_total_gib()
    return {
        "cpu": _cpu_model(),
        "cores": usable_cores(),
        "mem_gib": round(mem, 1) if mem else None,
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "onnxruntime": _version("onnxruntime"),
        "numpy": np.__version__,
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
    }


def print_machine() -> dict[str, object]:
    """Print :func:`machine` on two lines and return it."""
    m = machine()
    print(f"machine: {m['cpu']}, {m['cores']} cores, {m['mem_gib']} GiB, {m['platform']}")
    print(
        f"software: Python {m['python']}, onnxruntime {m['onnxruntime']}, numpy {m['numpy']}, "
        f"SQLite {m['sqlite']}; load average {m['load_avg_1m']} (1 min)"
    )
    return m


def percentiles_ms(seconds: list[float] | np.ndarray) -> dict[str, float]:
    """p50 / p95 / mean / max of timings given in seconds, returned in milliseconds.

    Percentiles are numpy's default (linear interpolation between closest ranks).

    Raises:
        ValueError: ``seconds`` is empty.
    """
    ms = np.asarray(seconds, dtype=float) * 1000
    if ms.size == 0:
        raise ValueError("no timings")
    p50, p95 = np.percentile(ms, [50, 95])
    return {"p50": float(p50), "p95": float(p95), "mean": float(ms.mean()), "max": float(ms.max())}


def _status_kb(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB.

    ``VmHWM`` from ``/proc/self/status`` (which :func:`reset_peak_rss` can reset), else
    ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` (kB on Linux, bytes on macOS).
    """
    hwm = _status_kb("VmHWM")
    if hwm is not None:
        return hwm / 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024**2 if sys.platform == "darwin" else peak / 1024


def current_rss_mb() -> float | None:
    """Current resident set size (``VmRSS``) in MiB, or ``None`` off Linux."""
    rss = _status_kb("VmRSS")
    return rss / 1024 if rss is not None else None


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark of this process to its current RSS (Linux >= 4.0:
    ``echo 5 > /proc/self/clear_refs``). Returns whether it worked."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def rusage_peak_mb(usage: resource.struct_rusage) -> float:
    """``ru_maxrss`` of a ``struct_rusage`` (e.g. from ``os.wait4``) in MiB."""
    return usage.ru_maxrss / 1024**2 if sys.platform == "darwin" else usage.ru_maxrss / 1024


def add_src_to_path() -> None:
    """Make ``src/`` importable when the package is not installed (the venv has it editable)."""
    src = str(ROOT / "src")
    if src not in sys.path:
        sys.path.insert(0, src)


def fingerprint(text: str) -> str:
    """The key reader labels give a fact's text: the first 16 hex digits of its SHA-256 (UTF-8),
    so that no LoCoMo-derived text is stored in ``data/``."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]
