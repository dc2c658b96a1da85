"""Embeddings from the OpenAI API, Azure OpenAI, or any OpenAI-compatible server.

Requests go through the official ``openai`` SDK (3.x: ``AsyncOpenAI`` / ``AsyncAzureOpenAI``,
``client.embeddings.create``). Inputs are sent in batches of at most 2,048 texts and about
250,000 estimated tokens (the API's limits are 2,048 inputs and 300,000 tokens per request);
vectors are requested as base64 float32 (a quarter of the JSON of decimal floats), checked for
the expected dimension and L2-normalised. SDK errors become :class:`EmbedderError` with the
original as ``__cause__``; the SDK's own retries (with backoff, on 408/409/429/5xx and
connection errors) run first.

Names: ``openai:<model>`` (also for OpenAI-compatible ``base_url`` servers such as Ollama or
vLLM) and ``azure:<deployment>``.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

from .._threads import LoopThread
from ..errors import (
    ConfigError,
    DimensionMismatchError,
    EmbedderError,
    EmptyContentError,
    InvalidInputError,
    ModelUnavailableError,
)
from ..tokens import count_tokens
from .base import Embedder, l2_normalize

try:
    import openai
except ImportError as _exc:  # pragma: no cover - openai is a core dependency
    raise ModelUnavailableError(
        "the OpenAI embedder needs the openai SDK: `pip install openai`"
    ) from _exc

T = TypeVar("T")

MAX_BATCH_INPUTS = 2048
"""Most inputs the embeddings endpoint accepts in one request."""
MAX_BATCH_TOKENS = 250_000
"""Estimated tokens per request (the API allows 300,000; :func:`count_tokens` errs ~10%)."""
DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_AZURE_API_VERSION = "2024-10-21"
"""Azure OpenAI data-plane API version used when neither the argument nor
``OPENAI_API_VERSION`` gives one (the GA version that has ``dimensions`` for embeddings)."""
KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
"""Native output dimension of OpenAI's embedding models (others need ``dimensions=``)."""


class OpenAIEmbedder(Embedder):
    """Embeds through the OpenAI embeddings API (OpenAI, Azure OpenAI, compatible servers).

    Azure is used when ``azure_endpoint`` or ``azure_deployment`` is given, or ``client`` is an
    ``AsyncAzureOpenAI``; the environment fills the rest as the SDK documents
    (``OPENAI_API_KEY``; ``AZURE_OPENAI_API_KEY``, ``AZURE_OPENAI_ENDPOINT``,
    ``OPENAI_API_VERSION``).

    The client is only ever driven from one private event-loop thread, started on first use:
    :meth:`embed` awaits it from any loop and :meth:`embed_sync` blocks on it from any thread,
    so the SDK's connection pool never crosses event loops. Call :meth:`close` (or
    :meth:`aclose`) when done.

    Args:
        model: model name (default ``text-embedding-3-small``); on Azure, the model behind the
            deployment (defaults to the deployment name), used to know its dimension.
        dimensions: output dimension to request (``text-embedding-3-*`` can shorten their
            vectors); required for models not in :data:`KNOWN_DIMENSIONS`.
        api_key: API key (else from the environment).
        base_url: an OpenAI-compatible endpoint, e.g. ``http://localhost:11434/v1``.
        azure_endpoint: ``https://<resource>.openai.azure.com/``.
        api_version: Azure API version (default ``OPENAI_API_VERSION`` or
            :data:`DEFAULT_AZURE_API_VERSION`).
        azure_deployment: Azure deployment name (the embedder is then ``azure:<deployment>``).
        azure_ad_token_provider: callable returning a Microsoft Entra token (instead of a key).
        client: a ready ``AsyncOpenAI`` / ``AsyncAzureOpenAI`` (the connection options above are
            then ignored).
        http_client: an ``httpx2.AsyncClient`` (or ``httpx.AsyncClient``) for the SDK, e.g. with
            a mock transport in tests.
        batch_size: inputs per request, 1-2048.
        max_retries: the SDK's retries per request.
        timeout: seconds per request.

    Raises:
        ConfigError: missing credentials / endpoint, unknown dimension, bad batch size.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        dimensions: int | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        azure_endpoint: str | None = None,
        api_version: str | None = None,
        azure_deployment: str | None = None,
        azure_ad_token_provider: Callable[[], str] | None = None,
        client: openai.AsyncOpenAI | None = None,
        http_client: Any = None,
        batch_size: int = MAX_BATCH_INPUTS,
        max_retries: int = 2,
        timeout: float = 60.0,
    ) -> None:
        if not 1 <= batch_size <= MAX_BATCH_INPUTS:
            raise ConfigError(f"batch_size must be 1-{MAX_BATCH_INPUTS}, got {batch_size}")
        if dimensions is not None and dimensions <= 0:
            raise ConfigError(f"dimensions must be positive, got {dimensions}")
        self.is_azure = (
            azure_endpoint is not None
            or azure_deployment is not None
            or isinstance(client, openai.AsyncAzureOpenAI)
        )
        if self.is_azure:
            if not azure_deployment:
                raise ConfigError(
                    "Azure OpenAI embeddings need azure_deployment (azure:<deployment>)"
                )
            self.model = model or azure_deployment
            self.name = f"azure:{azure_deployment}"
        else:
            self.model = model or DEFAULT_MODEL
            self.name = f"openai:{self.model}"
        self.deployment = azure_deployment
        self.dimensions = dimensions
        known = KNOWN_DIMENSIONS.get(self.model)
        if dimensions is None and known is None:
            raise ConfigError(
                f"the dimension of {self.model!r} is unknown: pass dimensions=<int>"
                + (" or model=<the deployment's model>" if self.is_azure else "")
            )
        if (
            dimensions is not None
            and self.model == "text-embedding-ada-002"
            and dimensions != known
        ):
            raise ConfigError("text-embedding-ada-002 cannot change its dimension (1536)")
        self.dim = dimensions if dimensions is not None else int(known)  # type: ignore[arg-type]
        self.batch_size = batch_size
        self._client = client or self._make_client(
            api_key=api_key,
            base_url=base_url,
            azure_endpoint=azure_endpoint,
            api_version=api_version,
            azure_ad_token_provider=azure_ad_token_provider,
            http_client=http_client,
            max_retries=max_retries,
            timeout=timeout,
        )
        self._portal = LoopThread(f"agent-memory-{self.name}")

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(name={self.name!r}, dim={self.dim})"

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` (async).

        Args:
            texts: non-empty strings.

        Returns:
            float32 array of shape ``(len(texts), dim)`` in input order, rows L2-normalised;
            ``(0, dim)`` for an empty input (no request is made).

        Raises:
            EmptyContentError: a text is empty or whitespace (the API rejects it).
            InvalidInputError: an item is not a string.
            DimensionMismatchError: the service returned vectors of another length.
            EmbedderError: the request failed (HTTP status, connection, malformed response).
        """
        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        return await self._portal.wait(self._embed_all(items))

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        """Blocking form of :meth:`embed` (safe from any thread, even inside a running loop)."""
        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._portal.call(self._embed_all(items))

    async def aclose(self) -> None:
        """Close the SDK client and stop the private loop thread."""
        if self._portal.started:
            await self._portal.wait(self._client.close())
        self._portal.stop()

    def close(self) -> None:
        """Blocking form of :meth:`aclose`."""
        if self._portal.started:
            self._portal.call(self._client.close())
        self._portal.stop()

    async def _embed_all(self, items: list[str]) -> np.ndarray:
        out = np.empty((len(items), self.dim), dtype=np.float32)
        for start, batch in _batches(items, self.batch_size, MAX_BATCH_TOKENS):
            out[start : start + len(batch)] = await self._embed_batch(batch)
        return out

    async def _embed_batch(self, batch: list[str]) -> np.ndarray:
        options: dict[str, Any] = {}
        if self.dimensions is not None:
            options["dimensions"] = self.dimensions
        try:
            response = await self._client.embeddings.create(
                input=batch,
                model=self.deployment or self.model,
                encoding_format="base64",
                **options,
            )
        except openai.APIStatusError as exc:
            raise EmbedderError(f"{self.name}: HTTP {exc.status_code}: {exc.message}") from exc
        except openai.APIConnectionError as exc:
            raise EmbedderError(f"{self.name}: cannot reach the service: {exc.message}") from exc
        except openai.OpenAIError as exc:
            raise EmbedderError(f"{self.name}: {exc}") from exc
        data = sorted(response.data or [], key=lambda item: item.index)
        if [item.index for item in data] != list(range(len(batch))):
            raise EmbedderError(
                f"{self.name}: asked for {len(batch)} embeddings, got {len(data)} "
                "(or their indexes do not match)"
            )
        matrix = np.empty((len(batch), self.dim), dtype=np.float32)
        for row, item in enumerate(data):
            vector = _decode(item.embedding, self.name)
            if vector.shape[0] != self.dim:
                raise DimensionMismatchError(
                    f"{self.name} returned vectors of dimension {vector.shape[0]}, "
                    f"expected {self.dim}"
                )
            matrix[row] = vector
        return l2_normalize(matrix)

    def _make_client(
        self,
        *,
        api_key: str | None,
        base_url: str | None,
        azure_endpoint: str | None,
        api_version: str | None,
        azure_ad_token_provider: Callable[[], str] | None,
        http_client: Any,
        max_retries: int,
        timeout: float,
    ) -> openai.AsyncOpenAI:
        common: dict[str, Any] = {"max_retries": max_retries, "timeout": timeout}
        if http_client is not None:
            common["http_client"] = http_client
        try:
            if self.is_azure:
                return openai.AsyncAzureOpenAI(
                    azure_endpoint=azure_endpoint,
                    azure_deployment=self.deployment,
                    api_version=api_version
                    or os.environ.get("OPENAI_API_VERSION")
                    or DEFAULT_AZURE_API_VERSION,
                    api_key=api_key,
                    azure_ad_token_provider=azure_ad_token_provider,
                    base_url=base_url,
                    **common,
                )
            return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, **common)
        except (openai.OpenAIError, ValueError) as exc:  # missing key / endpoint
            raise ConfigError(f"cannot configure the {self.name} embedder: {exc}") from exc


def _check_texts(texts: Sequence[str]) -> list[str]:
    items = list(texts)
    for position, text in enumerate(items):
        if not isinstance(text, str):
            raise InvalidInputError(f"texts[{position}] is {type(text).__name__}, expected str")
        if not text.strip():
            raise EmptyContentError(f"texts[{position}] is empty; the embeddings API rejects it")
    return items


def _batches(items: list[str], max_inputs: int, max_tokens: int) -> Iterator[tuple[int, list[str]]]:
    """Split ``items`` into consecutive ``(start, batch)`` within both limits."""
    start, batch, tokens = 0, [], 0
    for text in items:
        cost = count_tokens(text) + 1
        if batch and (len(batch) >= max_inputs or tokens + cost > max_tokens):
            yield start, batch
            start, batch, tokens = start + len(batch), [], 0
        batch.append(text)
        tokens += cost
    if batch:
        yield start, batch


def _decode(embedding: Any, name: str) -> np.ndarray:
    """A base64 float32 string (or a list of floats, from servers that ignore the format)."""
    try:
        if isinstance(embedding, str):
            return np.frombuffer(base64.b64decode(embedding, validate=True), dtype="<f4")
        return np.asarray(embedding, dtype=np.float32).reshape(-1)
    except (binascii.Error, ValueError, TypeError) as exc:
        raise EmbedderError(f"{name}: malformed embedding in the response: {exc}") from exc
