"""The LLM reasoner: OpenAI, Azure OpenAI or any OpenAI-compatible chat completions endpoint.

Requests go through the official ``openai`` SDK's async client (``chat.completions.create``)
with ``response_format`` set to the JSON schema of the output model (structured outputs); an
endpoint that refuses ``json_schema`` -- HTTP 400, or an error of any status whose body names
``response_format`` / ``json_schema`` / ``json_object`` (llama.cpp's server answers HTTP 500) --
is asked again in JSON mode (``{"type": "json_object"}``), and keeps that mode afterwards. The
``response_format`` option (setting ``reasoner_response_format``) fixes the mode instead.
Answers are validated against the same pydantic models the offline reasoner returns and repaired
when malformed (:mod:`.structured`). A request is retried only when the server provably is
not working on it (connection refused, HTTP 408/429/503, :mod:`.openai_retry`); a request that
timed out (``timeout``, setting ``reasoner_timeout``) is never re-sent, since a local server
keeps working on it. What remains is translated into
:class:`~agent_memory.errors.ReasonerError` with the SDK error as ``__cause__``.

This module holds the reasoner's tasks; the SDK client is built from the options in
:mod:`.openai_client`, requests, the response-format fallback and error translation are in
:mod:`.openai_chat`, and the longer tasks in :mod:`.openai_facts`, :mod:`.openai_profile`,
:mod:`.openai_sessions`, :mod:`.openai_reconcile` and :mod:`.openai_recall`.

Example::

    reasoner = OpenAIReasoner("gpt-4o-mini")                          # OPENAI_API_KEY
    reasoner = OpenAIReasoner(deployment="gpt-4o", azure_endpoint="https://x.openai.azure.com")
    reasoner = OpenAIReasoner("llama3.1", base_url="http://localhost:11434/v1")   # Ollama
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import openai
from pydantic import BaseModel

from ..errors import ConfigError, InvalidInputError
from ..models import Fact, Turn
from ..profile_schema import SchemaField
from ..text.dates import resolve_dates
from ..tokens import count_tokens, truncate_tokens
from . import chunking, prompts
from . import openai_facts as _facts
from . import openai_profile as _profile
from . import openai_reconcile as _reconcile
from . import openai_sessions as _sessions
from .base import FactExtraction, FieldAssignment, Reasoner, SummaryDraft
from .extractive.summarize import compression_budget
from .openai_chat import RESPONSE_FORMATS, ChatEndpoint, ResponseFormat
from .openai_client import (
    COMPATIBLE_PLACEHOLDER_KEY,
    DEFAULT_AZURE_API_VERSION,
    Provider,
    build_client,
    infer_provider,
)
from .reconcile_models import ReconcileDecision
from .sessions_models import (
    FactRetrieval,
    InsightNote,
    InteractionDraft,
    SessionReflection,
    ToolRunner,
)
from .structured import Message, complete_structured, schema_text

__all__ = ["COMPATIBLE_PLACEHOLDER_KEY", "DEFAULT_AZURE_API_VERSION", "OpenAIReasoner",
           "Provider", "ResponseFormat"]

T = TypeVar("T", bound=BaseModel)


class OpenAIReasoner(Reasoner):
    """A :class:`Reasoner` backed by a chat completions endpoint.

    Args:
        model: model name (OpenAI, compatible endpoints); for Azure, the deployment name when
            ``deployment`` is not given.
        api_key: API key; default from the SDK's environment (``OPENAI_API_KEY``,
            ``AZURE_OPENAI_API_KEY``), or a placeholder for compatible endpoints.
        base_url: an OpenAI-compatible endpoint (``http://localhost:11434/v1``); makes the
            provider ``compatible``.
        azure_endpoint: ``https://<resource>.openai.azure.com``; makes the provider ``azure``
            (also read from ``AZURE_OPENAI_ENDPOINT`` when ``deployment`` is given).
        api_version: Azure API version; default ``AZURE_OPENAI_API_VERSION``,
            ``OPENAI_API_VERSION`` or :data:`DEFAULT_AZURE_API_VERSION`.
        deployment: Azure deployment name; makes the provider ``azure``.
        azure_ad_token_provider: Entra ID token callable for Azure, instead of a key.
        temperature: sampling temperature; ``None`` leaves it to the server (for models that
            accept only the default).
        max_repairs: repair turns after an invalid answer before MalformedOutputError (>= 0).
        timeout: per-request timeout in seconds (setting ``reasoner_timeout``); a request
            that times out is not re-sent (:mod:`.openai_retry`). Small local models on a CPU
            need minutes for a long prompt.
        max_retries: retries of requests the server provably did not work on (connection
            refused, HTTP 408/429/503; :mod:`.openai_retry`), >= 0.
        client: a pre-built ``openai.AsyncOpenAI`` / ``AsyncAzureOpenAI``; the connection
            options above are then ignored and the client is not closed by :meth:`aclose`.
        http_client: an ``httpx.AsyncClient`` for the SDK (tests: a MockTransport, see
            :class:`~agent_memory.reasoners.scripted.ScriptedChatModel`).
        provider: force ``openai`` / ``azure`` / ``compatible`` instead of inferring it.
        context_tokens: the model's context window (tokens, >= 2048): longer threads and
            profile material are sent in several requests that each fit
            (:mod:`.chunking`).
        response_format: ``auto`` (default), ``json_schema`` (never fall back) or
            ``json_object`` (JSON mode from the first request; for servers such as llama.cpp's
            whose ``json_schema`` support is missing or broken).

    Attributes:
        name: ``openai:<model>``, ``azure:<deployment>`` or ``compatible:<model>``.
        chat: the endpoint requests go to (:class:`.openai_chat.ChatEndpoint`); the SDK
            client is built from the options by :func:`.openai_client.build_client`.

    Raises:
        ConfigError: missing model, key or endpoint, or a bad option value.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        azure_endpoint: str | None = None,
        api_version: str | None = None,
        deployment: str | None = None,
        azure_ad_token_provider: Callable[[], Any] | None = None,
        temperature: float | None = 0.0,
        max_repairs: int = 2,
        timeout: float = 60.0,
        max_retries: int = 2,
        client: openai.AsyncOpenAI | None = None,
        http_client: Any | None = None,
        provider: Provider | None = None,
        context_tokens: int = chunking.DEFAULT_CONTEXT_TOKENS,
        response_format: ResponseFormat = "auto",
    ) -> None:
        provider = infer_provider(provider, deployment=deployment,
                                  azure_endpoint=azure_endpoint, base_url=base_url,
                                  client=client)
        target = (deployment or model) if provider == "azure" else model
        if not target or not target.strip():
            what = "deployment" if provider == "azure" else "model"
            raise ConfigError(f"the {provider} reasoner needs a {what} name")
        if max_repairs < 0:
            raise ConfigError("max_repairs must be >= 0")
        if response_format not in RESPONSE_FORMATS:
            raise ConfigError(f"unknown response_format {response_format!r}; use auto, "
                              "json_schema or json_object")
        if not timeout > 0:
            raise ConfigError("timeout must be > 0 seconds")
        if max_retries < 0:
            raise ConfigError("max_retries must be >= 0")
        given = getattr(client, "timeout", None)  # a ready client keeps its own timeout
        self.timeout = float(given) if isinstance(given, int | float) else float(timeout)
        self.max_retries = max_retries
        if not isinstance(context_tokens, int) or context_tokens < 2048:
            raise ConfigError(f"context_tokens must be an integer >= 2048, got {context_tokens!r}")
        self.context_tokens = context_tokens
        self.provider: Provider = provider
        self.model = target.strip()
        self.name = f"{provider}:{self.model}"
        self.temperature = temperature
        self.max_repairs = max_repairs
        self.response_format: ResponseFormat = response_format
        owns = client is None
        if client is None:
            client = build_client(
                provider, timeout=timeout, api_key=api_key, base_url=base_url,
                azure_endpoint=azure_endpoint, api_version=api_version,
                azure_ad_token_provider=azure_ad_token_provider, http_client=http_client)
        self.chat = ChatEndpoint(
            client, name=self.name, model=self.model, temperature=temperature,
            timeout=self.timeout, max_retries=max_retries, response_format=response_format,
            owns_client=owns)

    # -- the Reasoner contract ------------------------------------------------------------

    async def summarize_thread(
        self, previous: str | None, turns: Sequence[Turn], max_tokens: int
    ) -> SummaryDraft:
        """Fold ``turns`` into ``previous`` (see :meth:`Reasoner.summarize_thread`).

        Evidence ids not among ``turns`` are dropped; when none remain, every given turn is
        cited. Relative dates are resolved against the day of the cited turns when they fall
        on one day (:func:`_absolute`). The budget of each request is the offline
        summarizer's compression budget
        (:func:`.extractive.summarize.compression_budget`: the previous summary's length plus
        one token per five of the new turns, within ``max_tokens``); a longer answer loses its
        last sentences (or is cut, for one long sentence) to fit. Turns that
        do not fit in one request (``context_tokens``) are folded in request by request, each
        answer being the previous summary of the next.

        Raises:
            InvalidInputError: no turns and no previous summary.
            MalformedOutputError: invalid output after ``max_repairs`` repairs.
            ReasonerError: the endpoint failed.
        """
        _check_budget(max_tokens)
        if not turns:
            if previous:
                return SummaryDraft(text=previous)
            raise InvalidInputError("nothing to summarize: no turns and no previous summary")
        schema = schema_text(SummaryDraft)
        # The previous summary travels in every request: budget for the longest it can get.
        fixed = chunking.message_tokens(prompts.thread_summary_messages(
            previous, [], max_tokens, schema)) + (0 if previous else max_tokens)
        budget = chunking.material_budget(
            self.context_tokens, fixed, max_tokens + chunking.SUMMARY_ANSWER_OVERHEAD)
        evidence: list[str] = []
        for part in chunking.pack_turns(turns, budget):
            # compress as the offline summarizer does: about COMPRESSION:1 on the new turns
            limit = compression_budget(previous, part, max_tokens)
            draft = await self._summarize_part(previous, part, limit, schema)
            previous = draft.text
            evidence += [e for e in draft.evidence if e not in evidence]
        return draft.model_copy(update={"evidence": evidence})

    async def _summarize_part(
        self, previous: str | None, turns: Sequence[Turn], max_tokens: int, schema: str
    ) -> SummaryDraft:
        """One request of :meth:`summarize_thread`: ``turns`` fit the context window."""
        ids = [turn.id for turn in turns]
        known = set(ids)

        def check(draft: SummaryDraft) -> SummaryDraft:
            cited = _keep_known(draft.evidence, known)
            text = _absolute(draft.text, [t for t in turns if t.id in cited] or list(turns))
            return draft.model_copy(
                update={"text": _fit(text, max_tokens), "evidence": cited or ids}
            )

        messages = prompts.thread_summary_messages(previous, turns, max_tokens, schema)
        return await self.structured(messages, SummaryDraft, check)

    async def extract_facts(self, turns: Sequence[Turn], context: Sequence[Turn] = ()
                            ) -> FactExtraction:
        """Extract facts citing their turns (see :meth:`Reasoner.extract_facts`); ``context``
        is shown before ``turns`` as earlier talk, within a quarter of the request's material
        budget (:func:`.openai_facts.earlier_turns`).

        Cited ids not among ``turns`` (or, after one of them, ``context``) are dropped; a fact
        left citing none is refused and repaired, one citing only ``context`` is dropped.
        Relative dates are resolved against the cited turn's time; an ``occurred_at`` that is
        not a ``YYYY-MM-DD`` date becomes ``None``. Turns that do not
        fit in one request (``context_tokens``) are sent in several; an empty answer for
        turns with clear self-disclosures is asked again once, narrower. See
        :mod:`.openai_facts`.

        Raises:
            MalformedOutputError: invalid output after ``max_repairs`` repairs.
            ReasonerError: the endpoint failed.
        """
        return await _facts.extract_facts(self, turns, context)

    async def summarize_user(
        self, previous: str | None, items: Sequence[str], max_tokens: int
    ) -> SummaryDraft:
        """Merge ``items`` into the ``previous`` profile (see :meth:`Reasoner.summarize_user`).

        The items carry no turn ids, so the returned ``evidence`` is empty; the caller knows
        the sources. A text over ``max_tokens`` is cut to the budget. Items that do not fit in
        one request (``context_tokens``) are merged in request by request.

        Raises:
            InvalidInputError: no items and no previous profile.
            MalformedOutputError: invalid output after ``max_repairs`` repairs.
            ReasonerError: the endpoint failed.
        """
        _check_budget(max_tokens)
        items = [item for item in items if item and item.strip()]
        if not items:
            if previous:
                return SummaryDraft(text=previous)
            raise InvalidInputError("nothing to summarize: no items and no previous profile")

        schema = schema_text(SummaryDraft)
        fixed = chunking.message_tokens(prompts.user_summary_messages(
            previous, [], max_tokens, schema)) + (0 if previous else max_tokens)
        budget = chunking.material_budget(
            self.context_tokens, fixed, max_tokens + chunking.SUMMARY_ANSWER_OVERHEAD)

        def check(draft: SummaryDraft) -> SummaryDraft:
            return draft.model_copy(
                update={"text": _fit(draft.text, max_tokens), "evidence": []}
            )

        for part in chunking.pack_items(items, budget):
            messages = prompts.user_summary_messages(previous, part, max_tokens, schema)
            draft = await self.structured(messages, SummaryDraft, check)
            previous = draft.text
        return draft

    async def assign_profile_fields(
        self, subject: str | None, facts: Sequence[str], fields: Sequence[SchemaField]
    ) -> list[FieldAssignment]:
        """See :func:`.openai_profile.assign_profile_fields` (the model sorts facts by number)."""
        return await _profile.assign_profile_fields(self, subject, facts, fields)

    # -- sessions (seed 001): see :mod:`.openai_sessions` ---------------------------------

    async def describe_interaction(self, turns: Sequence[Turn]) -> InteractionDraft:
        """See :func:`.openai_sessions.describe_interaction`."""
        return await _sessions.describe_interaction(self, turns)

    async def reflect_on_session(
        self, turns: Sequence[Turn], categories: Sequence[str]
    ) -> SessionReflection:
        """See :func:`.openai_sessions.reflect_on_session`."""
        return await _sessions.reflect_on_session(self, turns, categories)

    async def fill_profile(
        self,
        model: type[BaseModel],
        previous: Mapping[str, Any] | None,
        notes: Sequence[InsightNote],
    ) -> dict[str, Any]:
        """See :func:`.openai_sessions.fill_profile`."""
        return await _sessions.fill_profile(self, model, previous, notes)

    async def retrieve_facts(
        self, query: str, run_tool: ToolRunner, *, categories: Sequence[str], top_k: int,
        max_rounds: int,
    ) -> FactRetrieval:
        """See :func:`.openai_sessions.retrieve_facts` (``categories``/``top_k`` are left to
        the model's tool arguments)."""
        return await _sessions.retrieve_facts(self, query, run_tool, max_rounds)

    # -- reconciliation (seed 000): see :mod:`.openai_reconcile` -----------------------------

    async def reconcile(
        self, facts: Sequence[Fact], vectors: np.ndarray | None = None
    ) -> ReconcileDecision:
        """One prompt over the whole pool (``vectors`` unused); see
        :func:`.openai_reconcile.reconcile` (an answer still invalid after the repairs leaves
        only the offline decision's confident contradictions, logged).

        Raises:
            ReasonerError: the endpoint failed.
        """
        return await _reconcile.reconcile(self.structured, facts)

    # -- recall (seed 004): see :mod:`.openai_recall` ----------------------------------------

    async def summarize_memories(
        self, context: str, memories: Sequence[str], max_tokens: int
    ) -> SummaryDraft:
        """See :func:`.openai_recall.summarize_memories`."""
        from . import openai_recall

        return await openai_recall.summarize_memories(self, context, memories, max_tokens)

    async def aclose(self) -> None:
        """Close the SDK client if this reasoner created it."""
        await self.chat.aclose()

    # -- plumbing: requests go through :attr:`chat` -----------------------------------------

    async def structured(
        self, messages: list[Message], model: type[T], check: Callable[[T], T]
    ) -> T:
        """Ask for an answer shaped as ``model``, validated, checked by ``check`` (which may
        raise to ask for a repair) and repaired up to ``max_repairs`` times
        (:func:`.structured.complete_structured`).

        Raises:
            MalformedOutputError: invalid output after ``max_repairs`` repairs.
            ReasonerError: the endpoint failed.
        """
        async def ask(conversation: list[Message]) -> str:
            return await self.chat.ask(conversation, model)

        return await complete_structured(
            ask, messages, model, max_repairs=self.max_repairs, check=check,
            context_tokens=self.context_tokens)


def _absolute(text: str, turns: Sequence[Turn]) -> str:
    """``text`` with its relative dates ("last week", "yesterday") resolved as the offline
    summarizer does, against the day of ``turns`` (the summary's cited turns, else all of
    them) when they all fall on one day; unchanged when they span several days (the day
    meant is then unknown)."""
    if len({t.created_at.date() for t in turns}) != 1:
        return text
    return resolve_dates(text, turns[0].created_at).text


def _keep_known(ids: Sequence[str], known: set[str]) -> list[str]:
    """``ids`` that are in ``known``, first occurrence order, brackets and spaces stripped."""
    out: list[str] = []
    for raw in ids:
        clean = raw.strip().strip("[]").strip()
        if clean in known and clean not in out:
            out.append(clean)
    return out


def _fit(text: str, max_tokens: int) -> str:
    """``text`` within ``max_tokens``: whole sentences from the start while they fit; when
    not even the first fits, its clauses up to the last comma or semicolon that fits, closed
    with a full stop; else the text cut to the budget."""
    text = text.strip()
    if count_tokens(text) <= max_tokens:
        return text
    kept = ""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        longer = f"{kept} {sentence}".strip()
        if count_tokens(longer) > max_tokens:
            break
        kept = longer
    if kept:
        return kept
    cut = truncate_tokens(text, max_tokens)
    clause = re.match(r"(.*\w)\s*[,;]", cut)
    return f"{clause.group(1)}." if clause else cut


def _check_budget(max_tokens: int) -> None:
    if max_tokens <= 0:
        raise InvalidInputError(f"max_tokens must be > 0, got {max_tokens}")
