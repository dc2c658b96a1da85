"""One settings object for the whole library.

Values come, highest priority first, from keyword arguments, environment variables
(``AGENT_MEMORY_<NAME>``, case-insensitive, e.g. ``AGENT_MEMORY_K_TURN_BUFFER=8``), a TOML file
(``AGENT_MEMORY_CONFIG`` or ``./agent-memory.toml``; keys are the field names), and the defaults
below. Invalid values raise :class:`~agent_memory.errors.ConfigError` naming the field.

Example::

    settings = Settings(store="memory.db", reasoner="extractive", k_turn_buffer=6)
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from .errors import ConfigError

DEFAULT_CONFIG_FILE = "agent-memory.toml"

FINANCIAL_ADVISOR_CATEGORIES = (
    "demographics",
    "financial_goals",
    "risk_profile",
    "current_situation",
    "concern",
    "preference",
)
"""Default insight categories: the financial-advisor scenario of seed 001."""


def default_store_path() -> Path:
    """``$XDG_DATA_HOME/agent-memory/memory.db`` (``~/.local/share/...`` when unset)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "agent-memory" / "memory.db"


def _config_file() -> Path | None:
    path = os.environ.get("AGENT_MEMORY_CONFIG")
    if path:
        return Path(path)
    local = Path(DEFAULT_CONFIG_FILE)
    return local if local.exists() else None


class Settings(BaseSettings):
    """Every knob of agent-memory, with units and defaults.

    Components:
        store: path of the SQLite file (``sqlite:PATH`` or a bare path), or ``cosmos``.
        embedder: ``"provider:model"``: ``local:all-MiniLM-L6-v2`` (default, offline, 384 dims),
            ``openai:text-embedding-3-small``, ``azure:<deployment>``, or any local model
            exported with ``agent-memory model export --from FOLDER``: ``local:<name>`` /
            ``local:<folder>`` (docs/local-models.md).
        reasoner: ``extractive`` (offline default) or ``openai:<model>`` / ``azure:<deployment>``
            / ``compatible:<model>`` (any OpenAI-compatible server: Ollama, llama.cpp, vLLM).
        reasoner_base_url: the chat completions endpoint of ``compatible:<model>`` (required
            there, e.g. ``http://localhost:11434/v1`` for Ollama) and of ``openai:<model>``
            when set (default: the SDK's ``OPENAI_BASE_URL`` or OpenAI).
        reasoner_api_key: the key sent to that endpoint (default: ``OPENAI_API_KEY`` for
            ``openai:``, a placeholder for ``compatible:``; never shown in ``repr``).
        reasoner_context_tokens: the context window of the reasoner's model (tokens, by
            :func:`~agent_memory.tokens.count_tokens`): long threads and profile material are
            cut into requests whose prompt plus expected answer fit in it (default 4096, the
            window of small local models; see ``reasoners/chunking.py``).
        reasoner_response_format: how the LLM reasoners ask for JSON: ``auto`` (structured
            outputs, JSON mode once the endpoint refuses them), ``json_schema`` or
            ``json_object`` (JSON mode always; e.g. llama.cpp's server).
        reasoner_timeout: seconds the LLM reasoners wait for one answer (default 60). A
            request that times out is not re-sent (a local server keeps working on it, and a
            copy would queue behind it): set it above the slowest answer of the model, e.g.
            600 for a 1.5B model on two CPU cores (docs/local-models.md).

    Limits and search:
        max_content_chars: longest accepted turn content (characters).
        rrf_k: the k constant of reciprocal rank fusion (Cormack et al., SIGIR 2009).
        embed_batch_size: texts per embedding call.
        turn_context_tokens: tokens of the previous turn indexed with each turn (its context;
            +4-5 points LoCoMo recall@10, about half the ingest throughput; 0 indexes turns alone).
        summary_max_tokens / profile_max_tokens: budgets of thread summaries / profiles.
        profile_schema: the pydantic model whose fields a profile is sorted into
            (``"module:Class"``; default :class:`agent_memory.profile_schema.PersonProfile`:
            name, age, occupation, location, family, pets, health, hobbies, goals,
            preferences, finances). Each field's ``description`` and ``examples`` guide the
            reasoners.
        vector_index: ``pca`` (default: in partitions of 50k+ vectors a scan over 64
            principal components picks at least 1,000 candidates, re-scored exactly; see
            ``stores/sqlite/projection.py``), ``exact`` (the full product always) or ``hnsw`` (approximate graph for large
            partitions, ``pip install agent-memory[ann]``; see ``stores/sqlite/ann.py``).
        text_match_budget: rows one full-text query may match (summed document frequencies
            of its words in the user's records) before its most frequent words are left out;
            bounds BM25's cost in large partitions, no effect on users with fewer records
            (``stores/sqlite/terms.py``); 0 keeps every word.

    Offline reasoning:
        wordnet: folder of a WordNet database (the ``index.*`` / ``data.*`` files) whose
            lexical relations the ``extractive`` reasoner's reconciliation reads (a puppy is a
            dog, writer = author, employed / unemployed; ``reasoners/extractive/lexical.py``);
            default: NLTK's or Debian's usual folders when present; ``none`` turns it off.

    Grounded writes (``agent_memory.grounding``; defaults chosen on LoCoMo's reference
    observations by ``bench/grounding_calibration.py``):
        grounding_min_lexical: least share (0-1) of a proposed fact's content words found in
            its evidence turns.
        grounding_min_cosine: least embedding cosine between a proposed fact and its closest
            evidence turn (not computed for the extractive reasoner).

    Memory keeper and reflection (seed 001 section 7):
        k_turn_buffer, n_active_turns, num_recent_sessions_for_init, top_k_facts,
        similarity_threshold (cosine, 0-1), insight_confidence_threshold (0-1),
        min_sessions_for_aggregation, insight_categories.

    Automatic processing (seed 000; 0 disables):
        thread_summary_every_n, fact_extraction_every_n, user_summary_every_n, dedup_every_n.
        turn_counting: who counts new turns against them: ``writer`` (``add_turns``, default)
            or ``change_feed`` (writers only write; ``agent-memory worker --change-feed``
            counts from the Cosmos DB change feed).
    """

    model_config = SettingsConfigDict(
        env_prefix="AGENT_MEMORY_", case_sensitive=False, extra="forbid", frozen=True
    )

    store: str = Field(default_factory=lambda: str(default_store_path()))
    embedder: str = "local:all-MiniLM-L6-v2"
    reasoner: str = "extractive"
    reasoner_base_url: str | None = None
    reasoner_api_key: SecretStr | None = None
    reasoner_context_tokens: int = Field(default=4096, ge=2048)
    reasoner_response_format: Literal["auto", "json_schema", "json_object"] = "auto"
    reasoner_timeout: float = Field(default=60.0, gt=0, le=86_400)
    wordnet: str | None = None

    max_content_chars: int = Field(default=32_000, gt=0)
    rrf_k: int = Field(default=10, gt=0)  # LoCoMo-measured; see text/fusion.py
    embed_batch_size: int = Field(default=32, gt=0)
    turn_context_tokens: int = Field(default=64, ge=0)
    summary_max_tokens: int = Field(default=200, gt=10)
    profile_max_tokens: int = Field(default=400, gt=10)
    profile_schema: str | None = None

    grounding_min_lexical: float = Field(default=0.25, ge=0.0, le=1.0)
    grounding_min_cosine: float = Field(default=0.2, ge=-1.0, le=1.0)

    k_turn_buffer: int = Field(default=10, gt=0)
    n_active_turns: int = Field(default=5, ge=0)
    num_recent_sessions_for_init: int = Field(default=2, ge=0)
    top_k_facts: int = Field(default=5, gt=0)
    similarity_threshold: float = Field(default=0.75, ge=0.0, le=1.0)
    insight_confidence_threshold: float = Field(default=0.7, ge=0.0, le=1.0)
    min_sessions_for_aggregation: int = Field(default=3, gt=0)
    insight_categories: tuple[str, ...] = FINANCIAL_ADVISOR_CATEGORIES

    thread_summary_every_n: int = Field(default=0, ge=0)
    fact_extraction_every_n: int = Field(default=0, ge=0)
    user_summary_every_n: int = Field(default=0, ge=0)
    dedup_every_n: int = Field(default=0, ge=0)
    turn_counting: Literal["writer", "change_feed"] = "writer"
    vector_index: Literal["exact", "pca", "hnsw"] = "pca"  # hnsw: agent-memory[ann]
    text_match_budget: int = Field(default=2_000, ge=0)  # see stores/sqlite/terms.py

    @field_validator("store")
    @classmethod
    def _store(cls, value: str) -> str:
        if "\x00" in value:
            raise ValueError("the store path holds a NUL byte")
        return value

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if self.n_active_turns > self.k_turn_buffer:
            raise ValueError("n_active_turns must not exceed k_turn_buffer")
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _config_file()
        if path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)

    def merged(self, **overrides: Any) -> Settings:
        """These settings with ``overrides`` applied (``None`` values ignored), validated.

        Raises:
            ConfigError: an override is invalid.
        """
        clean = {k: v for k, v in overrides.items() if v is not None}
        return self if not clean else type(self).load(**{**self.model_dump(), **clean})

    @classmethod
    def load(cls, **overrides: Any) -> Settings:
        """Build settings from ``overrides``, the environment and the config file.

        Raises:
            ConfigError: a value is invalid or the config file cannot be read.
        """
        clean = {k: v for k, v in overrides.items() if v is not None}
        path = _config_file()
        if path is not None and not path.exists():
            raise ConfigError(f"config file {path} does not exist (AGENT_MEMORY_CONFIG)")
        if path is not None:
            try:
                tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise ConfigError(f"cannot read config file {path}: {exc}") from exc
        try:
            return cls(**clean)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}"
                for err in exc.errors()
            )
            raise ConfigError(f"invalid settings: {problems}") from exc
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read settings: {exc}") from exc
