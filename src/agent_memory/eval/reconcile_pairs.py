"""Labelled fact pairs for reconciliation: load, rebuild and split them.

Each pair holds two facts about one person, older ``a`` and later ``b``, labelled
``duplicate`` (the same claim), ``contradiction`` (both cannot hold now; ``b`` replaces ``a``)
or ``unrelated`` (both hold). ``data/README.md`` describes the files; this module is the one
way to read them, for ``bench/reconcile_quality.py``, the tests and any model trained on them.

Two kinds of pair:

- **written** (``source == "written"``; every pair of the first set, which has no ``source``
  field): text written for the project, redistributable, usable for training;
- **LoCoMo-referenced** (``source == "locomo:<sample>:<session>[-<session>]"``): each side
  names one reference observation of the LoCoMo dev set (``sample_id``, ``session``,
  ``speaker``, ``index`` in that speaker's list of the session, its first ``dia_id``, and
  optionally a character ``span`` of it). LoCoMo is CC BY-NC, so its text is not in the
  repository: :func:`load_pairs` rebuilds it from ``datasets_dir`` at run time, and omits these
  pairs (logging why) when the dataset is absent. They are for evaluation only (split
  ``locomo``).

**Split by person, never by pair** (:func:`split_of`). The person is the pair's subject; one
name is one person in every set. A person named in the check set (``reconcile_pairs_v3.jsonl``)
is ``check`` wherever they appear. Every other written person is placed by the first 8 hex
digits of the SHA-256 of the normalised name (NFKC, stripped, case-folded) read as an integer
``h``: ``h % 10`` in 0-5 is ``train``, 6-7 ``tune``, 8-9 ``heldout`` (about 60/20/20 of
persons). Fit on ``train``, choose thresholds on ``tune``, report on ``heldout`` (and
``check``, ``locomo``).

Example::

    from agent_memory.eval.reconcile_pairs import written_pairs, load_pairs, LOCOMO_FILE

    train = written_pairs(split="train")
    for pair in train:
        features(pair.a.text, pair.b.text), pair.label
    locomo = load_pairs(LOCOMO_FILE)   # [] with a logged reason when ../shared is absent
"""

from __future__ import annotations

import hashlib
import json
import logging
import unicodedata
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InvalidInputError

log = logging.getLogger(__name__)

Label = Literal["duplicate", "contradiction", "unrelated"]
Split = Literal["train", "tune", "heldout", "check", "locomo"]
LABELS: tuple[str, ...] = ("duplicate", "contradiction", "unrelated")
SPLITS: tuple[str, ...] = ("train", "tune", "heldout", "check", "locomo")

ROOT = Path(__file__).resolve().parents[3]
DATA_DIR = ROOT / "data"
"""The repository's ``data/`` folder (a source checkout; the files are not in the wheel)."""
DATASETS_DIR = ROOT.parent / "shared" / "datasets"
"""Where ``locomo/locomo_dev.json`` is looked for by default (``../shared/datasets``)."""

WRITTEN_FILES: tuple[str, ...] = (
    "reconcile_pairs.jsonl", "reconcile_pairs_v2.jsonl", "reconcile_pairs_v3.jsonl",
    "reconcile_pairs_v4.jsonl")
"""Every file holding written pairs, oldest first (v2 also holds LoCoMo-referenced pairs)."""
EVALUATION_FILES: tuple[str, ...] = ("reconcile_pairs_v5.jsonl",)
"""Written pairs kept out of :func:`written_pairs` and out of training: read with
:func:`load_pairs` to measure the shipped reconciler on them (their split by person is
computed as for any written person, but every pair is unseen)."""
CHECK_FILE = "reconcile_pairs_v3.jsonl"
"""The check set: its persons are split ``check``."""
LOCOMO_FILE = DATA_DIR / "reconcile_pairs_v2.jsonl"
"""The file holding the LoCoMo-referenced pairs (beside written ones)."""
LOCOMO_DEV = Path("locomo") / "locomo_dev.json"
"""The LoCoMo dev set, relative to a datasets folder."""


class PairSide(BaseModel):
    """One fact of a pair.

    Attributes:
        text: the fact, third person, naming its subject.
        subject: the person it is about.
        created_at: when it was stored (timezone-aware; side ``b`` is later).
        confidence: in (0, 1].
    """

    model_config = ConfigDict(frozen=True)

    text: str
    subject: str
    created_at: datetime
    confidence: float = Field(0.8, gt=0.0, le=1.0)


class LocomoRef(BaseModel):
    """Where a LoCoMo-referenced side's text is: one reference observation.

    Attributes:
        sample_id: e.g. ``"conv-26"``.
        session: the session number N of ``session_N_observation``.
        speaker: the speaker the observation is listed under.
        index: 0-based position in that speaker's list for the session.
        dia_id: the observation's first evidence ``dia_id`` (checked on rebuild).
        span: ``[start, end)`` characters of the observation to keep (default: all of it).
    """

    model_config = ConfigDict(frozen=True)

    sample_id: str
    session: int = Field(ge=1)
    speaker: str
    index: int = Field(ge=0)
    dia_id: str
    span: tuple[int, int] | None = None


class LabelledPair(BaseModel):
    """A labelled pair of facts about one person.

    Attributes:
        id: unique over every set (``p001``, ``v2-001``, ``v3-001``, ``v4-001`` ...).
        label: ``duplicate``, ``contradiction`` or ``unrelated``.
        note: what the pair tests, e.g. ``"own vs rent"``.
        source: ``"written"`` or ``"locomo:<sample>:<session>[-<session>]"``.
        set: the file's stem, e.g. ``"reconcile_pairs_v4"``.
        person: the subject of both sides.
        split: ``train``, ``tune``, ``heldout``, ``check`` or ``locomo`` (see the module).
        a: the older fact; b: the later fact.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    label: Label
    note: str
    source: str
    set: str
    person: str
    split: Split
    a: PairSide
    b: PairSide

    @property
    def written(self) -> bool:
        """True for pairs written for the project (redistributable, trainable)."""
        return self.source == "written"


def normalise_person(name: str) -> str:
    """The key of a person's name: NFKC, surrounding space stripped, case-folded."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def hash_split(person: str) -> Split:
    """``train`` / ``tune`` / ``heldout`` of a written person by the SHA-256 rule (module doc)."""
    bucket = int(hashlib.sha256(normalise_person(person).encode()).hexdigest()[:8], 16) % 10
    return "train" if bucket < 6 else "tune" if bucket < 8 else "heldout"


@cache
def check_persons(data_dir: Path = DATA_DIR) -> frozenset[str]:
    """Normalised names of the check set's persons (empty when the file is absent)."""
    path = data_dir / CHECK_FILE
    if not path.exists():
        return frozenset()
    return frozenset(normalise_person(row["a"]["subject"]) for row in _rows(path))


def split_of(person: str, data_dir: Path = DATA_DIR) -> Split:
    """The split of a written person: ``check`` when named in the check set, else
    :func:`hash_split`."""
    return "check" if normalise_person(person) in check_persons(data_dir) else hash_split(person)


def _rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise InvalidInputError(f"{path}:{number}: expected an object")
        rows.append(row)
    return rows


@cache
def _locomo_observations(path: Path) -> dict[tuple[str, int, str], list[tuple[str, str]]]:
    """``{(sample_id, session, speaker): [(text, first dia_id), ...]}`` of a LoCoMo file."""
    out: dict[tuple[str, int, str], list[tuple[str, str]]] = {}
    for sample in json.loads(path.read_text(encoding="utf-8")):
        for key, by_speaker in (sample.get("observation") or {}).items():
            session = int(key.split("_")[1])
            for speaker, items in by_speaker.items():
                out[(sample["sample_id"], session, speaker)] = [
                    (text, ids[0] if isinstance(ids, list) else ids) for text, ids in items]
    return out


def locomo_unavailable(datasets_dir: Path | None = None) -> str | None:
    """Why LoCoMo-referenced pairs cannot be rebuilt (``None`` when they can)."""
    path = Path(datasets_dir or DATASETS_DIR) / LOCOMO_DEV
    return None if path.exists() else f"LoCoMo dev set not found at {path}"


def rebuild_text(ref: LocomoRef, datasets_dir: Path | None = None) -> str:
    """The text of a LoCoMo-referenced side, read from the dataset.

    Returns:
        The observation (or its ``span``), stripped, ending with a full stop.

    Raises:
        FileNotFoundError: the dataset is absent.
        InvalidInputError: the reference names no observation, or its ``dia_id`` differs
            (another version of the dataset).
    """
    path = Path(datasets_dir or DATASETS_DIR) / LOCOMO_DEV
    if not path.exists():
        raise FileNotFoundError(locomo_unavailable(datasets_dir))
    items = _locomo_observations(path.resolve()).get((ref.sample_id, ref.session, ref.speaker))
    if items is None or ref.index >= len(items):
        raise InvalidInputError(f"no LoCoMo observation {ref.model_dump()}")
    text, dia_id = items[ref.index]
    if dia_id != ref.dia_id:
        raise InvalidInputError(f"LoCoMo observation {ref.model_dump()} has dia_id {dia_id}")
    if ref.span is not None:
        text = text[ref.span[0]:ref.span[1]]
    text = text.strip().rstrip(",;:")
    return text if text.endswith((".", "!", "?")) else text + "."


def _pair(row: dict[str, Any], set_name: str, data_dir: Path,
          datasets_dir: Path | None) -> LabelledPair:
    source = row.get("source", "written")
    sides = {}
    for key in ("a", "b"):
        side = dict(row[key])
        ref = side.pop("ref", None)
        if ref is not None:
            side["text"] = rebuild_text(LocomoRef.model_validate(ref), datasets_dir)
        sides[key] = PairSide.model_validate(side)
    person = sides["a"].subject
    if sides["b"].subject != person:
        raise InvalidInputError(f"{row.get('id')}: the two sides name different subjects")
    if not sides["a"].created_at < sides["b"].created_at:
        raise InvalidInputError(f"{row.get('id')}: side b must be created after side a")
    if source == "written":
        split: Split = split_of(person, data_dir)
    elif source.startswith("locomo:"):
        split = "locomo"
    else:
        raise InvalidInputError(f"{row.get('id')}: unknown source {source!r}")
    return LabelledPair(id=row["id"], label=row["label"], note=row.get("note", ""),
                        source=source, set=set_name, person=person, split=split, **sides)


def load_pairs(path: str | Path, *, split: str | None = None,
               datasets_dir: str | Path | None = None) -> list[LabelledPair]:
    """The labelled pairs of one file, in file order.

    Args:
        path: a JSON-lines file (``data/reconcile_pairs*.jsonl`` or one of the same format).
        split: keep only this split (``train``, ``tune``, ``heldout``, ``check``, ``locomo``);
            ``None`` or ``"all"`` keeps every pair.
        datasets_dir: the folder holding ``locomo/locomo_dev.json`` (default
            ``../shared/datasets`` beside the checkout). When it is absent the file's
            LoCoMo-referenced pairs are omitted and the reason is logged at WARNING.

    Returns:
        The pairs; LoCoMo-referenced ones with their text rebuilt from the dataset.

    Raises:
        InvalidInputError: a line is not a valid pair (its sides name two subjects, or ``b`` is
            not later than ``a``), a reference names no observation, or ``split`` is not one
            of the splits.
        FileNotFoundError: ``path`` does not exist.
    """
    return _load(Path(path), split, Path(datasets_dir) if datasets_dir is not None else None)


def _load(path: Path, split: str | None, datasets_dir: Path | None,
          written_only: bool = False) -> list[LabelledPair]:
    if split not in (None, "all", *SPLITS):
        raise InvalidInputError(f"split must be one of {SPLITS} or 'all', not {split!r}")
    missing = None if written_only else locomo_unavailable(datasets_dir)
    out: list[LabelledPair] = []
    omitted = 0
    for row in _rows(path):
        if written_only and row.get("source", "written") != "written":
            continue
        if missing and any("ref" in (row.get(s) or {}) for s in ("a", "b")):
            omitted += 1
            continue
        try:
            pair = _pair(row, path.stem, path.resolve().parent, datasets_dir)
        except (ValidationError, KeyError, TypeError) as exc:
            raise InvalidInputError(f"{path}: pair {row.get('id')!r} is invalid: {exc}") from exc
        if split in (None, "all") or pair.split == split:
            out.append(pair)
    if omitted:
        log.warning("%s: %d LoCoMo-referenced pairs omitted: %s", path.name, omitted, missing)
    return out


def written_pairs(split: str | None = None, *, data_dir: str | Path | None = None
                  ) -> list[LabelledPair]:
    """Every written pair of every set (:data:`WRITTEN_FILES`), oldest set first.

    Args:
        split: keep only this split (``train``, ``tune``, ``heldout`` or ``check``);
            ``None`` or ``"all"`` keeps every written pair.
        data_dir: the folder of the files (default :data:`DATA_DIR`).

    Returns:
        The written pairs (never a LoCoMo-referenced one).

    Raises:
        InvalidInputError: as :func:`load_pairs`.
    """
    folder = Path(data_dir) if data_dir is not None else DATA_DIR
    out: list[LabelledPair] = []
    for name in WRITTEN_FILES:
        if (folder / name).exists():
            out += _load(folder / name, split, None, written_only=True)
    return out


def locomo_pairs(datasets_dir: str | Path | None = None) -> list[LabelledPair]:
    """The LoCoMo-referenced pairs with their text rebuilt (evaluation only).

    Returns:
        The pairs, or ``[]`` (reason logged) when the dataset is absent.
    """
    return load_pairs(LOCOMO_FILE, split="locomo", datasets_dir=datasets_dir)
