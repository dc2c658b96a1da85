"""Any local embedding model: a sentence-transformers (or plain Hugging Face) folder exported
once to ONNX, then run like the bundled model.

The folder's own configuration decides the pipeline, as sentence-transformers reads it:

- ``modules.json``: Transformer -> Pooling -> optional Dense layers -> optional Normalize
  (a folder without it: the encoder, mean pooling, normalisation);
- ``1_Pooling/config.json``: ``pooling_mode`` (``mean``, ``cls``, ``max``, ``lasttoken``), or the
  older ``pooling_mode_*_tokens`` flags;
- ``<n>_Dense/config.json`` + ``model.safetensors``: linear layers with Identity or Tanh;
- ``sentence_bert_config.json``: ``max_seq_length`` (tokens per text);
- ``config_sentence_transformers.json``: ``prompts``, the prefixes put before queries
  (``query``) and documents (``document``, or ``passage`` / ``corpus``), e.g. EmbeddingGemma's
  ``"task: search result | query: "`` and ``"title: none | text: "``.

:func:`export_folder` traces the whole pipeline (encoder, pooling, dense layers) into one graph
``(input_ids, attention_mask) -> sentence_embedding`` with torch, checks it against the eager
module (cosine >= :data:`~agent_memory.embedders.export.MIN_EXPORT_COSINE`), and writes it with
the tokenizer and a ``manifest.json`` (model name, dimension, maximum length, prefixes) into
``<agent_memory_home()>/models/<name>``. :class:`~agent_memory.embedders.local.LocalEmbedder`
runs the export; the store records ``local:<name>`` and the dimension, so it refuses vectors of
another model.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, EmbedderError, ModelUnavailableError
from . import export

FOLDER_EXPORT_COMMAND = "agent-memory model export --from"
"""The command that exports a folder (followed by the folder's path)."""
DOCUMENT_PROMPT_KEYS = ("document", "passage", "corpus", "text")
"""Keys of ``prompts`` taken as the document prefix, first found wins."""
_ACTIVATIONS = ("torch.nn.modules.linear.Identity", "torch.nn.modules.activation.Tanh")


def _json(path: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(path.read_text()))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc


def read_pipeline(source: Path) -> dict[str, Any]:
    """The embedding pipeline a model folder describes (see the module doc).

    Returns:
        ``{"pooling": str, "dense": [Path, ...], "normalize": bool, "max_seq_length": int,
        "prompts": {"query": str, "document": str}}``.

    Raises:
        ConfigError: not a model folder (no ``config.json``), or a module, pooling mode or
            activation this runtime does not support.
    """
    if not (source / "config.json").is_file():
        raise ConfigError(f"{source} is not a model folder (no config.json)")
    modules = json.loads((source / "modules.json").read_text()) if (
        source / "modules.json").is_file() else None
    pooling, dense, normalize = "mean", [], True
    if modules is not None:
        normalize = False
        for module in sorted(modules, key=lambda m: m.get("idx", 0)):
            kind = str(module.get("type", "")).rsplit(".", 1)[-1]
            path = source / module.get("path", "")
            if kind == "Transformer":
                continue
            if kind == "Pooling":
                pooling = _pooling_mode(_json(path / "config.json"), path)
            elif kind == "Dense":
                activation = _json(path / "config.json").get("activation_function", "")
                if activation not in _ACTIVATIONS:
                    raise ConfigError(f"{path}: activation {activation!r} is not supported")
                dense.append(path)
            elif kind == "Normalize":
                normalize = True
            else:
                raise ConfigError(f"{source}: module {module.get('type')!r} is not supported")
    st_config = _json(source / "sentence_bert_config.json")
    hf_config = _json(source / "config.json")
    max_len = int(st_config.get("max_seq_length")
                  or min(int(hf_config.get("max_position_embeddings", 512)), 512))
    prompts = _json(source / "config_sentence_transformers.json").get("prompts") or {}
    document = next((prompts[k] for k in DOCUMENT_PROMPT_KEYS if prompts.get(k)), "")
    return {"pooling": pooling, "dense": dense, "normalize": normalize,
            "max_seq_length": max_len,
            "prompts": {"query": prompts.get("query", ""), "document": document}}


def _pooling_mode(config: dict[str, Any], where: Path) -> str:
    mode = config.get("pooling_mode")
    if mode is None:  # sentence-transformers < 5: one flag per mode
        flags = {"cls": "pooling_mode_cls_token", "mean": "pooling_mode_mean_tokens",
                 "max": "pooling_mode_max_tokens", "lasttoken": "pooling_mode_lasttoken"}
        chosen = [name for name, key in flags.items() if config.get(key)]
        mode = chosen[0] if len(chosen) == 1 else None
    if mode not in ("mean", "cls", "max", "lasttoken"):
        raise ConfigError(f"{where}: pooling {config} is not supported (one of mean, cls, max, "
                          "lasttoken)")
    return str(mode)


def export_dir(name: str) -> Path:
    """Where the export of model ``name`` lives: ``<agent_memory_home()>/models/<name>``."""
    return export.agent_memory_home() / "models" / name


def export_folder(source: Path | str, *, name: str | None = None, target: Path | None = None,
                  force: bool = False, query_prefix: str | None = None,
                  document_prefix: str | None = None) -> Path:
    """Export the model folder ``source`` to ONNX (once).

    Args:
        source: a sentence-transformers or Hugging Face model folder.
        name: the model's name in ``local:<name>`` and in stores (default: the folder's name).
        target: where to write (default :func:`export_dir` of ``name``).
        force: export again over a finished export.
        query_prefix / document_prefix: override the folder's ``prompts``.

    Returns:
        The export directory (``model.onnx``, ``tokenizer.json``, ``manifest.json``).

    Raises:
        ConfigError: not a supported model folder.
        ModelUnavailableError: torch or transformers is not installed.
        EmbedderError: the export failed or disagrees with torch (nothing is kept).
    """
    source = Path(source).expanduser().resolve()
    pipeline = read_pipeline(source)
    name = (name or source.name).strip()
    if not name or "/" in name or name.startswith("."):
        raise ConfigError(f"bad model name {name!r}: one path segment, e.g. 'embeddinggemma-300m'")
    directory = Path(target) if target is not None else export_dir(name)
    if not force and export.is_exported(directory):
        return directory
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise ModelUnavailableError(
            f"exporting {source} needs {exc.name}: run `{export.INSTALL_HINT}`") from exc
    directory.mkdir(parents=True, exist_ok=True)
    with export._quiet():
        encoder = AutoModel.from_pretrained(str(source), attn_implementation="eager").eval()
    module = _pipeline_module(torch, encoder, pipeline).eval()
    tokenizer = _tokenizer(source, pipeline["max_seq_length"])
    tmp = export._temp_path(directory, export.ONNX_FILE)
    try:
        ids, mask = _encode(tokenizer, ["a short example", "a somewhat longer example text"])
        with export._quiet(), torch.no_grad():
            torch.onnx.export(
                module, (torch.from_numpy(ids), torch.from_numpy(mask)), str(tmp),
                input_names=["input_ids", "attention_mask"], output_names=["sentence_embedding"],
                dynamic_axes={"input_ids": {0: "batch", 1: "sequence"},
                              "attention_mask": {0: "batch", 1: "sequence"},
                              "sentence_embedding": {0: "batch"}},
                opset_version=export.OPSET, dynamo=False)
        min_cosine, dim = _verify(torch, module, tokenizer, tmp)
        digest = export._sha256(tmp)
        export._atomic_write(directory / export.TOKENIZER_FILE, tokenizer.to_str().encode())
        os.replace(tmp, directory / export.ONNX_FILE)
    except EmbedderError:
        raise
    except Exception as exc:  # the exporter raises many unrelated types
        raise EmbedderError(f"ONNX export of {source} failed: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    prompts = dict(pipeline["prompts"])
    if query_prefix is not None:
        prompts["query"] = query_prefix
    if document_prefix is not None:
        prompts["document"] = document_prefix
    manifest = {
        "model": name, "source": str(source), "output": "sentence_embedding",
        "dim": dim, "max_seq_length": pipeline["max_seq_length"], "pooling": pipeline["pooling"],
        "dense_layers": len(pipeline["dense"]), "prompts": prompts,
        "onnx_file": export.ONNX_FILE, "onnx_sha256": digest, "opset": export.OPSET,
        "torch_version": str(torch.__version__), "verified_min_cosine": min_cosine,
        "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    export._atomic_write(directory / export.MANIFEST_FILE, json.dumps(manifest, indent=2).encode())
    return directory


def _pipeline_module(torch: Any, encoder: Any, pipeline: dict[str, Any]) -> Any:
    """``(input_ids, attention_mask) -> sentence_embedding`` as one torch module."""
    layers = []
    for path in pipeline["dense"]:
        config = _json(path / "config.json")
        linear = torch.nn.Linear(config["in_features"], config["out_features"],
                                 bias=config.get("bias", True))
        weights = _load_weights(torch, path)
        linear.load_state_dict({k.removeprefix("linear."): v for k, v in weights.items()})
        layers.append(linear)
        if config["activation_function"].endswith("Tanh"):
            layers.append(torch.nn.Tanh())
    pooling = pipeline["pooling"]

    class Pipeline(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            self.dense = torch.nn.Sequential(*layers)

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            hidden = self.encoder(input_ids=input_ids,
                                  attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            if pooling == "cls":
                pooled = hidden[:, 0]
            elif pooling == "max":
                pooled = (hidden + (mask - 1.0) * 1e9).max(dim=1).values
            elif pooling == "lasttoken":  # right padding: the last real token
                last = attention_mask.sum(dim=1) - 1
                pooled = hidden[torch.arange(hidden.shape[0]), last]
            else:
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
            return self.dense(pooled)

    return Pipeline()


def _load_weights(torch: Any, path: Path) -> dict[str, Any]:
    if (path / "model.safetensors").is_file():
        from safetensors.torch import load_file  # ships with transformers

        return dict(load_file(str(path / "model.safetensors")))
    if (path / "pytorch_model.bin").is_file():
        return dict(torch.load(str(path / "pytorch_model.bin"), weights_only=True))
    raise ConfigError(f"{path} holds no model.safetensors or pytorch_model.bin")


def _tokenizer(source: Path, max_len: int) -> Any:
    from tokenizers import Tokenizer

    if (source / export.TOKENIZER_FILE).is_file():
        tokenizer = Tokenizer.from_file(str(source / export.TOKENIZER_FILE))
    else:  # a slow tokenizer only (vocab.txt, sentencepiece): let transformers convert it
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(source)).backend_tokenizer
    tokenizer.enable_truncation(max_length=max_len)
    tokenizer.no_padding()
    return tokenizer


def _encode(tokenizer: Any, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    encodings = tokenizer.encode_batch(texts)
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(texts), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, e in enumerate(encodings):
        ids[row, : len(e.ids)] = e.ids
        mask[row, : len(e.ids)] = 1
    return ids, mask


def _verify(torch: Any, module: Any, tokenizer: Any, onnx_path: Path) -> tuple[float, int]:
    """Lowest cosine between the eager and the ONNX embeddings of the check sentences, and
    the embedding dimension."""
    import onnxruntime as ort

    ids, mask = _encode(tokenizer, list(export._CHECK_SENTENCES))
    with torch.no_grad():
        reference = module(torch.from_numpy(ids), torch.from_numpy(mask)).numpy()
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    (exported,) = session.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})
    a = reference / np.linalg.norm(reference, axis=1, keepdims=True)
    b = exported / np.linalg.norm(exported, axis=1, keepdims=True)
    min_cosine = float(np.sum(a * b, axis=1).min())
    if min_cosine < export.MIN_EXPORT_COSINE:
        raise EmbedderError(f"the ONNX export disagrees with torch (cosine {min_cosine:.6f}); "
                            "nothing was kept")
    return min_cosine, int(reference.shape[1])
