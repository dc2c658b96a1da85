"""The offline profile: each fact goes to a schema field, or to none.

For the default schema a learned model decides (:mod:`.field_model`). For any other schema,
and when the local model cannot load, the prototypes do: a profile schema
(:mod:`agent_memory.profile_schema`) gives every field a few prototype statements about a
generic person ("The person works as a nurse at a hospital."). A fact is compared with them
after its subject's name is written the same way ("Priya works as a nurse" -> "The person
works as a nurse"), so that the field, not the name, decides: the cosine between the fact's
embedding and each field's best prototype (the rule of :mod:`.attributes`, with the schema's
prototypes), the best field winning when it reaches :data:`FIELD_THRESHOLD` and beats every
prototype of chatter (:data:`CHATTER`); facts near no field stay facts but are left out of
the profile.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

import numpy as np

from ...errors import InvalidInputError, ModelUnavailableError
from ...profile_schema import PERSON, SchemaField, Statement, newest_distinct, render_profile
from ...tokens import truncate_tokens
from ..base import FieldAssignment, SummaryDraft
from . import field_model
from .attributes import Embed
from .field_model import as_generic
from .parse import parse
from .reference import outside_reference
from .sentences import split_sentences
from .summarize import check_budget, key_topics

FIELD_THRESHOLD = 0.4
"""Lowest cosine (all-MiniLM-L6-v2) between a fact and its field's best prototype. Chosen by
reading the assignments of the demo's facts and of one LoCoMo conversation's (two speakers):
below it the nearest field is a guess."""
CHATTER = (f"{PERSON} is so happy and thankful.", f"{PERSON} will keep you posted.",
           f"Here is a picture {PERSON.lower()} took.", f"{PERSON} agrees with a friend.",
           f"It was a great experience for {PERSON.lower()}.",
           f"{PERSON} has been busy since they last talked.", f"{PERSON} loved seeing it.",
           f"{PERSON} thanks a friend for the support.")
"""Prototypes of conversation chatter (feelings of the moment, thanks, praise, photo
captions, plans to talk later): a fact nearer to one of them than to every field is left
out, the reject class of the nearest-prototype rule. Written for this project."""
log = logging.getLogger(__name__)
_LINE = re.compile(r"^(?P<label>[A-Z][a-z]+(?: [a-z]+){0,2}):\s+(?P<body>\S.*)$")


class FieldIndex:
    """The prototypes of a schema's fields, embedded once.

    Args:
        embed: a synchronous embedder (L2-normalised rows).
        fields: the schema's fields (:func:`agent_memory.profile_schema.schema_fields`).
        learned: the local all-MiniLM-L6-v2 (synchronous): when given and the schema's fields
            are the learned model's (:func:`.field_model.covers`), :meth:`assign` files facts
            by that model instead of by the prototypes (and by the prototypes again, logged
            once, if that embedder cannot load); :meth:`scores` always compares with the
            prototypes.
    """

    def __init__(self, embed: Embed, fields: Sequence[SchemaField],
                 learned: Embed | None = None) -> None:
        self.embed = embed
        self.fields = tuple(fields)
        self._learned = learned if learned is not None and field_model.covers(fields) else None
        self._owner = np.array([k for k, f in enumerate(fields) for _ in f.prototypes]
                               + [-1] * len(CHATTER))
        self._matrix = embed([p for f in fields for p in f.prototypes] + list(CHATTER))

    def scores(self, texts: Sequence[str],
               subjects: Sequence[str | None]) -> tuple[np.ndarray, np.ndarray]:
        """Cosines ``(len(texts), len(fields))`` of each text to each field's best prototype,
        and ``(len(texts),)`` to the best chatter prototype (:data:`CHATTER`), within [-1, 1]
        (a text equal to a prototype can come out of float32 at 1.0000002)."""
        vectors = self.embed([as_generic(t, s) for t, s in zip(texts, subjects, strict=True)])
        sims = np.clip(vectors @ self._matrix.T, -1.0, 1.0)
        best = np.stack([sims[:, self._owner == k].max(axis=1)
                         for k in range(len(self.fields))], axis=1)
        return best, sims[:, self._owner == -1].max(axis=1)

    def assign(self, texts: Sequence[str], subjects: Sequence[str | None]) -> list[FieldAssignment]:
        """The field of each text and its score: by the learned model when this index has
        one (:func:`.field_model.assign`, the score a probability), else the nearest field
        whose prototype cosine reaches :data:`FIELD_THRESHOLD` and beats chatter (``None``
        otherwise), the score that cosine. A text that does not stand alone ("Tim is a huge
        fan of this genre": :func:`.reference.outside_reference`) gets no field (score 0).

        Raises:
            ConfigError: spaCy or its English model is not installed.
        """
        if not texts:
            return []
        return [a if ok else FieldAssignment(field=None, score=0.0)
                for a, ok in zip(self._assign(texts, subjects), stand_alone(texts, subjects),
                                 strict=True)]

    def _assign(self, texts: Sequence[str],
                subjects: Sequence[str | None]) -> list[FieldAssignment]:
        if self._learned is not None:
            try:
                return field_model.assign(self._learned, texts, subjects, self.fields)
            except ModelUnavailableError as exc:
                log.warning("profile fields filed by the prototypes from now on: %s", exc)
                self._learned = None
        best, chatter = self.scores(texts, subjects)
        out = []
        for row, reject in zip(best, chatter, strict=True):
            k = int(row.argmax())
            score = float(row[k])
            ok = score >= FIELD_THRESHOLD and score > reject
            out.append(FieldAssignment(field=self.fields[k].name if ok else None,
                                       score=max(0.0, min(1.0, score))))
        return out


def stand_alone(texts: Sequence[str], subjects: Sequence[str | None]) -> list[bool]:
    """Whether each of ``texts`` (facts about ``subjects``) reads on its own, with no word
    that points outside it (:func:`.reference.outside_reference`): what a profile line needs.

    Raises:
        ConfigError: spaCy or its English model is not installed.
    """
    return [outside_reference(doc, subject) is None
            for doc, subject in zip(parse(list(texts)), subjects, strict=True)]


def summarize_items(previous: str | None, items: Sequence[str], max_tokens: int,
                    index: FieldIndex) -> SummaryDraft:
    """Merge ``items`` (sentences about the user, oldest first) into the ``previous`` profile.

    Returns:
        A :class:`SummaryDraft` within ``max_tokens``, one ``"Label: ..."`` line per field.

    Raises:
        InvalidInputError: ``max_tokens`` < 1, or there is nothing to summarize.
    """
    check_budget(max_tokens)
    by_label = {f.label: f.name for f in index.fields}
    known: list[str | None] = []
    texts: list[str] = []
    for block in [previous or "", *items]:
        for line in block.splitlines():
            match = _LINE.match(line.strip())
            field = by_label.get(match.group("label")) if match else None
            body = match.group("body") if field and match else line
            for sentence in split_sentences(body):
                known.append(field)
                texts.append(sentence)
    if not texts:
        raise InvalidInputError("nothing to summarize: no previous profile and no items")
    found = index.assign(texts, [None] * len(texts))
    statements = [Statement(field=k or a.field, text=t, fact_id="", order=n,
                            score=1.0 if k else a.score)
                  for n, (t, k, a) in enumerate(zip(texts, known, found, strict=True))
                  if k or a.field]
    text, _ = render_profile(newest_distinct(statements), index.fields, max_tokens)
    return SummaryDraft(text=text or truncate_tokens(texts[-1], max_tokens),  # nothing fits
                        key_topics=key_topics([s.text for s in statements]))
