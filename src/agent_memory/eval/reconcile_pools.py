"""Labelled fact pools: every fact stored about one person over months, with every pair
labelled.

A pair file (:mod:`.reconcile_pairs`) tests one decision at a time and holds as many
contradictions as unrelated pairs. A reconciler runs over a whole pool, where most pairs are
about the same few topics and hold together ("went to a pottery class in July" / "pottery is a
big part of her life"): a decision that is precise on pairs can still retire half of a real
pool. A pool lists its facts, the pairs that are duplicates and the pairs that are
contradictions (older fact first); every other pair of the pool is unrelated.

``data/reconcile_pools.jsonl`` holds pools written for the project (redistributable). A pool is
split by its person exactly as the pairs are (:func:`.reconcile_pairs.split_of`), so one
person's pairs and pool are always in the same split. ``data/reconcile_pools_check.jsonl``
holds pools written apart, for evaluation only: every pool of a file whose name ends in
``_check.jsonl`` is in the ``check`` split, whatever its person's hash, so no training or
threshold ever reads it.

Example::

    from agent_memory.eval.reconcile_pools import load_pools, pool_pairs

    for pool in load_pools(split="heldout"):
        pairs = pool_pairs(pool)        # LabelledPair per pair of facts, older side first
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InvalidInputError
from .reconcile_pairs import DATA_DIR, SPLITS, LabelledPair, PairSide, Split, split_of

POOLS_FILE = DATA_DIR / "reconcile_pools.jsonl"
"""The written pools."""
CHECK_POOLS_FILE = DATA_DIR / "reconcile_pools_check.jsonl"
"""Pools for evaluation only: a file whose name ends in ``_check.jsonl`` is all ``check``."""


class PoolFact(BaseModel):
    """One fact of a pool: ``id`` (unique in its pool; letters, digits, ``_``), ``text``,
    ``created_at`` (aware)."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(pattern=r"^\w+$")
    text: str
    created_at: datetime


class LabelledPool(BaseModel):
    """The facts stored about one person and the labelled pairs among them.

    Attributes:
        person: the subject of every fact.
        split: ``train``, ``tune``, ``heldout`` or ``check`` (by person).
        facts: the facts, any order.
        duplicates: pairs of fact ids that restate one claim.
        contradictions: pairs ``(older id, newer id)``: the newer replaces the older.
    """

    model_config = ConfigDict(frozen=True)

    person: str
    split: Split
    facts: tuple[PoolFact, ...]
    duplicates: tuple[tuple[str, str], ...] = ()
    contradictions: tuple[tuple[str, str], ...] = ()

    def label(self, first: str, second: str) -> str:
        """The label of the pair of facts ``first`` / ``second`` (either order)."""
        key = {first, second}
        if any(set(p) == key for p in self.contradictions):
            return "contradiction"
        if any(set(p) == key for p in self.duplicates):
            return "duplicate"
        return "unrelated"

    def retired(self) -> frozenset[str]:
        """Ids of the facts a later fact replaces (the older side of each contradiction)."""
        return frozenset(old for old, _ in self.contradictions)


def _pool(row: dict, data_dir: Path, check: bool = False) -> LabelledPool:
    split = "check" if check else split_of(row["person"], data_dir)
    pool = LabelledPool.model_validate({**row, "split": split})
    times = {f.id: f.created_at for f in pool.facts}
    if len(times) != len(pool.facts):
        raise InvalidInputError(f"pool {pool.person!r}: fact ids repeat")
    for first, second in (*pool.duplicates, *pool.contradictions):
        if first not in times or second not in times:
            raise InvalidInputError(f"pool {pool.person!r}: pair {first}/{second} names no fact")
    for old, new in pool.contradictions:
        if not times[old] < times[new]:
            raise InvalidInputError(
                f"pool {pool.person!r}: contradiction {old}/{new}: the newer fact must be "
                "stored later")
    return pool


def load_pools(path: str | Path | None = None, *, split: str | None = None,
               data_dir: str | Path | None = None) -> list[LabelledPool]:
    """The pools of a JSON-lines file (one pool per line: ``person``, ``facts`` of ``id`` /
    ``text`` / ``created_at``, ``duplicates`` and ``contradictions`` as id pairs).

    Args:
        path: the file; by default :data:`POOLS_FILE` and then :data:`CHECK_POOLS_FILE`, each
            when present (``[]`` when neither is). Every pool of a file named
            ``*_check.jsonl`` is in the ``check`` split.
        split: keep only this split; ``None`` or ``"all"`` keeps every pool.
        data_dir: the folder whose check set decides the ``check`` split (default
            :data:`~.reconcile_pairs.DATA_DIR`).

    Raises:
        InvalidInputError: a line is not a valid pool (ids repeat, a pair names a missing
            fact, a contradiction's newer fact is not stored later) or ``split`` is unknown.
        FileNotFoundError: a named ``path`` does not exist.
    """
    if split not in (None, "all", *SPLITS):
        raise InvalidInputError(f"split must be one of {SPLITS} or 'all', not {split!r}")
    files = ([Path(path)] if path is not None
             else [f for f in (POOLS_FILE, CHECK_POOLS_FILE) if f.exists()])
    folder = Path(data_dir) if data_dir is not None else DATA_DIR
    out = []
    for file in files:
        check = file.name.endswith("_check.jsonl")
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                pool = _pool(json.loads(line), folder, check)
            except (ValidationError, KeyError, TypeError, ValueError) as exc:
                raise InvalidInputError(f"{file}:{number}: invalid pool: {exc}") from exc
            if split in (None, "all") or pool.split == split:
                out.append(pool)
    return out


def pool_pairs(pool: LabelledPool) -> list[LabelledPair]:
    """Every pair of the pool's facts as a :class:`~.reconcile_pairs.LabelledPair`, older side
    ``a`` (a contradiction's replaced fact), ids ``"<person>:<id>-<id>"``
    (:func:`fact_ids` reads them back)."""
    facts = sorted(pool.facts, key=lambda f: f.created_at)
    out = []
    for i, a in enumerate(facts):
        for b in facts[i + 1:]:  # a contradiction's newer fact is stored later (checked)
            out.append(LabelledPair(
                id=f"{pool.person}:{a.id}-{b.id}", label=pool.label(a.id, b.id), note="pool",
                source="written", set="reconcile_pools", person=pool.person, split=pool.split,
                a=PairSide(text=a.text, subject=pool.person, created_at=a.created_at),
                b=PairSide(text=b.text, subject=pool.person, created_at=b.created_at)))
    return out


def fact_ids(pair_id: str) -> tuple[str, str]:
    """The ids of the older and the newer fact of a pool pair's id
    (``"Meinrad:f01-f23"`` -> ``("f01", "f23")``; fact ids hold no ``-``).

    Raises:
        InvalidInputError: ``pair_id`` is not the id of a pool pair.
    """
    _, _, ids = pair_id.partition(":")
    older, sep, newer = ids.partition("-")
    if not (older and sep and newer):
        raise InvalidInputError(f"not a pool pair id: {pair_id!r}")
    return older, newer
