"""The OpenAI / Azure OpenAI embedder, through the SDK's own transport hook (no network).

A mock transport plays the embeddings endpoint: it checks each request (URL, auth header,
JSON body) and answers with deterministic vectors, base64 float32 as the API does.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import httpx2
import numpy as np
import openai
import pytest

from agent_memory.embedders.openai import OpenAIEmbedder, _batches
from agent_memory.errors import (
    ConfigError,
    DimensionMismatchError,
    EmbedderError,
    EmptyContentError,
    InvalidInputError,
)


def fake_vector(text: str, dim: int) -> np.ndarray:
    """A deterministic, unnormalised vector for ``text``."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(dim).astype("<f4") * 3.0


def unit(vector: np.ndarray) -> np.ndarray:
    return vector / np.linalg.norm(vector)


@dataclass
class FakeEmbeddingsAPI:
    """The embeddings endpoint: records requests, answers with :func:`fake_vector`."""

    dim: int = 1536
    status: int = 200
    as_floats: bool = False
    drop_last: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, request: Any) -> Any:
        body = json.loads(request.content)
        self.requests.append(
            {
                "method": request.method,
                "url": str(request.url),
                "headers": request.headers,
                "body": body,
            }
        )
        module = httpx2 if isinstance(request, httpx2.Request) else httpx
        if self.status != 200:
            error = {"error": {"message": f"simulated {self.status}", "type": "server_error"}}
            return module.Response(self.status, json=error)
        inputs = body["input"]
        dim = body.get("dimensions", self.dim)
        data = []
        for index, text in enumerate(inputs):
            vector = fake_vector(text, dim)
            encoded: Any = (
                vector.tolist() if self.as_floats else base64.b64encode(vector.tobytes()).decode()
            )
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        if self.drop_last:
            data.pop()
        data.reverse()  # the API does not promise order; indexes do
        payload = {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
        }
        return module.Response(200, json=payload)


def openai_embedder(api: FakeEmbeddingsAPI, **options: Any) -> OpenAIEmbedder:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(api))
    options.setdefault("model", "text-embedding-3-small")
    return OpenAIEmbedder(api_key="sk-test", http_client=client, max_retries=0, **options)


@pytest.fixture
def api() -> FakeEmbeddingsAPI:
    return FakeEmbeddingsAPI()


def test_openai_request_shape_and_vectors(api):
    embedder = openai_embedder(api)
    texts = ["I like hiking.", "My daughter starts school in September."]
    vectors = embedder.embed_sync(texts)
    embedder.close()

    (request,) = api.requests
    assert request["method"] == "POST"
    assert request["url"] == "https://api.openai.com/v1/embeddings"
    assert request["headers"]["authorization"] == "Bearer sk-test"
    assert request["body"]["model"] == "text-embedding-3-small"
    assert request["body"]["input"] == texts
    assert request["body"]["encoding_format"] == "base64"
    assert "dimensions" not in request["body"]
    assert embedder.name == "openai:text-embedding-3-small" and embedder.dim == 1536
    assert vectors.shape == (2, 1536) and vectors.dtype == np.float32
    for row, text in enumerate(texts):
        assert np.allclose(vectors[row], unit(fake_vector(text, 1536)), atol=1e-6)


def test_azure_request_shape(api):
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(api))
    embedder = OpenAIEmbedder(
        azure_endpoint="https://my-resource.openai.azure.com/",
        azure_deployment="emb-small",
        model="text-embedding-3-small",
        api_version="2024-10-21",
        api_key="azure-key",
        http_client=client,
        max_retries=0,
    )
    vectors = embedder.embed_sync(["hello from Azure"])
    embedder.close()

    (request,) = api.requests
    assert request["url"] == (
        "https://my-resource.openai.azure.com/openai/deployments/emb-small/embeddings"
        "?api-version=2024-10-21"
    )
    assert request["headers"]["api-key"] == "azure-key"
    assert embedder.name == "azure:emb-small" and embedder.dim == 1536
    assert np.allclose(vectors[0], unit(fake_vector("hello from Azure", 1536)), atol=1e-6)


def test_compatible_base_url_and_requested_dimensions(api):
    embedder = openai_embedder(
        api, model="nomic-embed-text", dimensions=768, base_url="http://localhost:11434/v1"
    )
    vectors = embedder.embed_sync(["local server"])
    embedder.close()
    (request,) = api.requests
    assert request["url"] == "http://localhost:11434/v1/embeddings"
    assert request["body"]["dimensions"] == 768
    assert vectors.shape == (1, 768) and embedder.name == "openai:nomic-embed-text"


def test_legacy_httpx_client_is_accepted(api):
    client = httpx.AsyncClient(transport=httpx.MockTransport(api))
    embedder = OpenAIEmbedder("text-embedding-3-small", api_key="sk-test", http_client=client)
    assert embedder.embed_sync(["via httpx"]).shape == (1, 1536)
    embedder.close()


def test_batches_split_and_order_is_kept(api):
    embedder = openai_embedder(api, batch_size=3)
    texts = [f"sentence number {i}" for i in range(7)]
    vectors = embedder.embed_sync(texts)
    embedder.close()
    assert [len(r["body"]["input"]) for r in api.requests] == [3, 3, 1]
    assert [t for r in api.requests for t in r["body"]["input"]] == texts
    expected = np.stack([unit(fake_vector(t, 1536)) for t in texts])
    assert np.allclose(vectors, expected, atol=1e-6)


def test_batches_respect_the_token_budget():
    texts = ["one two three", "four five", "six", "seven eight nine ten"]
    # Estimated costs (tokens + 1): 4, 3, 2, 5; a budget of 6 fits only the middle two together.
    batches = list(_batches(texts, max_inputs=10, max_tokens=6))
    assert [start for start, _ in batches] == [0, 1, 3]
    assert [t for _, batch in batches for t in batch] == texts
    assert all(len(batch) <= 2 for _, batch in _batches(texts, max_inputs=2, max_tokens=10**6))


def test_float_lists_are_accepted(api):
    api.as_floats = True
    embedder = openai_embedder(api)
    vectors = embedder.embed_sync(["server ignores encoding_format"])
    embedder.close()
    assert np.allclose(
        vectors[0], unit(fake_vector("server ignores encoding_format", 1536)), atol=1e-6
    )


def test_wrong_dimension_is_a_dimension_mismatch(api):
    api.dim = 512
    embedder = openai_embedder(api)
    with pytest.raises(DimensionMismatchError, match="512"):
        embedder.embed_sync(["hello"])
    embedder.close()


def test_missing_embeddings_are_an_error(api):
    api.drop_last = True
    embedder = openai_embedder(api)
    with pytest.raises(EmbedderError, match="asked for 2"):
        embedder.embed_sync(["a", "b"])
    embedder.close()


@pytest.mark.parametrize(
    ("status", "sdk_error"),
    [
        (500, openai.InternalServerError),
        (401, openai.AuthenticationError),
        (429, openai.RateLimitError),
    ],
)
def test_http_errors_become_embedder_errors(api, status, sdk_error):
    api.status = status
    embedder = openai_embedder(api)
    with pytest.raises(EmbedderError, match=f"HTTP {status}") as info:
        embedder.embed_sync(["hello"])
    embedder.close()
    assert isinstance(info.value.__cause__, sdk_error)


def test_connection_errors_become_embedder_errors():
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(refuse))
    embedder = OpenAIEmbedder(api_key="sk-test", http_client=client, max_retries=0)
    with pytest.raises(EmbedderError, match="cannot reach") as info:
        embedder.embed_sync(["hello"])
    embedder.close()
    assert isinstance(info.value.__cause__, openai.APIConnectionError)


def test_empty_input_makes_no_request(api):
    embedder = openai_embedder(api)
    assert embedder.embed_sync([]).shape == (0, 1536)
    assert api.requests == []


@pytest.mark.parametrize(
    ("texts", "error"), [(["ok", "  "], EmptyContentError), (["ok", None], InvalidInputError)]
)
def test_bad_texts_are_rejected_before_any_request(api, texts, error):
    embedder = openai_embedder(api)
    with pytest.raises(error, match=r"texts\[1\]"):
        embedder.embed_sync(texts)
    assert api.requests == []


def test_async_embed_and_sync_embed_inside_a_running_loop(api):
    embedder = openai_embedder(api)

    async def main() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        first = await embedder.embed(["async one"])
        second = embedder.embed_sync(["sync inside a loop"])  # blocks, but cannot deadlock
        one = await embedder.embed_one("async one")
        await embedder.aclose()
        return first, second, one

    first, second, one = asyncio.run(main())
    assert np.allclose(first[0], one, atol=1e-6)
    assert np.allclose(second[0], unit(fake_vector("sync inside a loop", 1536)), atol=1e-6)
    assert len(api.requests) == 3


def test_a_prebuilt_client_is_used(api):
    api.dim = 3072
    client = openai.AsyncOpenAI(
        api_key="sk-prebuilt",
        base_url="https://gateway.example/v1",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(api)),
    )
    embedder = OpenAIEmbedder("text-embedding-3-large", client=client)
    assert embedder.embed_sync(["x"]).shape == (1, 3072)
    embedder.close()
    assert api.requests[0]["url"] == "https://gateway.example/v1/embeddings"
    assert api.requests[0]["headers"]["authorization"] == "Bearer sk-prebuilt"


ConfigCase = Callable[[], OpenAIEmbedder]


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: OpenAIEmbedder("my-custom-model", api_key="k"), "dimensions"),
        (
            lambda: OpenAIEmbedder(azure_endpoint="https://r.openai.azure.com", api_key="k"),
            "azure_deployment",
        ),
        (
            lambda: OpenAIEmbedder(
                azure_deployment="dep", azure_endpoint="https://r.openai.azure.com", api_key="k"
            ),
            "model=",
        ),
        (lambda: OpenAIEmbedder(api_key="k", batch_size=5000), "batch_size"),
        (lambda: OpenAIEmbedder("text-embedding-ada-002", api_key="k", dimensions=256), "ada-002"),
    ],
)
def test_bad_configuration_is_a_config_error(build, message):
    with pytest.raises(ConfigError, match=message):
        build()


def test_missing_api_key_is_a_config_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="cannot configure") as info:
        OpenAIEmbedder("text-embedding-3-small")
    assert isinstance(info.value.__cause__, openai.OpenAIError)
