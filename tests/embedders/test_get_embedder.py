"""Resolving ``"provider:model"`` strings, and the package's lazy imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent_memory import embedders
from agent_memory.embedders import PROVIDERS, Embedder, get_embedder
from agent_memory.errors import ConfigError


@pytest.mark.parametrize("spec", ["local:all-MiniLM-L6-v2", "local", " LOCAL : all-MiniLM-L6-v2 "])
def test_local_specs(spec):
    embedder = get_embedder(spec, batch_size=16)
    assert isinstance(embedder, embedders.LocalEmbedder)
    assert embedder.name == "local:all-MiniLM-L6-v2" and embedder.dim == 384
    assert embedder.batch_size == 16
    assert not embedder.loaded  # nothing is loaded until the first embed


def test_openai_spec():
    embedder = get_embedder("openai:text-embedding-3-large", api_key="sk-test", dimensions=256)
    assert isinstance(embedder, embedders.OpenAIEmbedder) and isinstance(embedder, Embedder)
    assert embedder.name == "openai:text-embedding-3-large" and embedder.dim == 256
    assert embedder.spec.model == "openai:text-embedding-3-large"


def test_azure_spec():
    embedder = get_embedder(
        "azure:my-embeddings",
        model="text-embedding-3-small",
        azure_endpoint="https://r.openai.azure.com",
        api_key="k",
    )
    assert embedder.name == "azure:my-embeddings" and embedder.dim == 1536


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("cohere:embed-v3", "unknown embedder provider .cohere.; known: azure, local, openai"),
        ("", "provider:model"),
        ("openai:", "names no model"),
        ("azure", "names no model"),
        ("local:bge-small", "not available"),
    ],
)
def test_bad_specs(spec, message):
    with pytest.raises(ConfigError, match=message):
        get_embedder(spec)


def test_an_unknown_option_is_a_config_error():
    with pytest.raises(ConfigError, match="bad option"):
        get_embedder("local", colour="blue")


def test_providers_are_listed():
    assert PROVIDERS == ("local", "openai", "azure")


def test_unknown_attribute():
    with pytest.raises(AttributeError):
        embedders.NoSuchEmbedder  # noqa: B018


def test_importing_the_package_loads_no_runtime():
    code = (
        "import sys, agent_memory.embedders as e; "
        "print(sorted(m for m in ('onnxruntime', 'openai', 'tokenizers', 'torch') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
