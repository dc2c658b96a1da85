"""LangGraph long-term memory store (``pip install 'agent-memory[langgraph]'``).

:class:`AgentMemoryStore` is a ``langgraph.store.base.BaseStore``: pass it to
``create_react_agent(..., store=...)`` or ``graph.compile(store=...)`` and every ``put`` /
``get`` / ``search`` / ``delete`` / ``list_namespaces`` (sync or async) of the graph's nodes and
tools runs on agent-memory.

Mapping:

- ``namespace[0]`` is the ``user_id`` (the partition): a search or listing never crosses it
  (``user_index=1`` takes ``namespace[1]``, for ``("memories", "{user_id}")`` layouts). The
  other labels are the collection path, kept as the record's ``collection`` (joined with
  ``.``; ``"."`` for a namespace of the user alone), so agents bound to that collection recall
  the items too (:meth:`~agent_memory.AsyncMemory.recall`).
- An item is a ``fact`` record with a deterministic id (``lg_`` + 32 hex chars of the SHA-256
  of the namespace and key). Its ``content`` is the item's text: the fields named by the
  put's ``index`` list, else the store's ``fields``, else the value's first string among
  ``text`` / ``content`` / ``memory``, else the value as JSON. The value, namespace and key
  are kept in ``metadata["langgraph"]`` so ``get`` returns exactly what was put, with the
  record's ``created_at`` / ``updated_at``.
- ``search(prefix, query=...)`` runs hybrid search (vector + BM25, fused by reciprocal rank)
  over the prefix's collections; items carry the fused score. ``filter`` matches the value
  like LangGraph's own stores (exact values, nested dicts, ``$eq``, ``$ne``, ``$gt``,
  ``$gte``, ``$lt``, ``$lte``). Without a query, items come newest update first.
- ``put(..., index=False)`` stores the item with no vector and a blank full-text entry: it is
  returned by ``get`` and listed by ``search``, after the ranked items and without a score,
  but never matched by a query. A later indexed put of the same key embeds it.
- ``delete`` forgets the record (:meth:`~agent_memory.AsyncMemory.forget_records`).
- TTLs are not supported (``supports_ttl`` is False: a ``put`` with a ``ttl`` raises
  ``NotImplementedError`` from LangGraph's base class).

The store runs on the local client (the SQLite or Cosmos DB store it opened). Items are facts
of category ``langgraph``: a query ranks only them, never the user's other facts, widening to at
most 1,000 (``MAX_K``). Figures: ``bench/langgraph_store.py``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        get_text_at_path,
        tokenize_path,
        validate_op_namespace,
    )
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("agent_memory.integrations.langgraph needs langgraph: "
                      "pip install 'agent-memory[langgraph]'") from exc

from .. import validation as check
from ..errors import ConflictError, InvalidInputError
from ..indexing import build_indexed
from ..models import Fact, MemoryRecord, RecordKind, require_scope, utcnow
from ..retrieval.hits import SearchMode
from ..retrieval.search import SearchFilters, SearchRequest, search
from ..stores.base import Indexed, RecordQuery
from ._bridge import ClientBridge
from ._filters import matches, namespace_matches

META = "langgraph"
"""Key of ``metadata`` holding an item's ``namespace``, ``key``, ``value`` and ``indexed``."""
ROOT_COLLECTION = "."
"""Collection of a namespace holding only the user id (no LangGraph label contains ``.``)."""
DEFAULT_TEXT_FIELDS = ("text", "content", "memory")
MAX_RETRIES = 5
_FACTS = frozenset({RecordKind.FACT})
_CATEGORY = frozenset({META})
_ITEMS = RecordQuery(kinds=_FACTS, categories=_CATEGORY, include_superseded=True)
"""The store's items: facts of category ``langgraph`` (retired ones included)."""


class NamespaceError(InvalidInputError, InvalidNamespaceError):
    """A namespace agent-memory cannot map: empty, a bad user id, or a bad label."""


def item_id(namespace: Sequence[str], key: str) -> str:
    """The record id of ``(namespace, key)``: ``lg_`` + 32 hex chars of a SHA-256."""
    digest = hashlib.sha256(json.dumps([list(namespace), key]).encode("utf-8")).hexdigest()
    return f"lg_{digest[:32]}"


def collection_of(namespace: Sequence[str], user_index: int = 0) -> str:
    """The record collection of a namespace: its labels but the user id, joined by ``.``."""
    rest = [*namespace[:user_index], *namespace[user_index + 1:]]
    return ".".join(rest) or ROOT_COLLECTION


def _user(namespace: Sequence[str], what: str, user_index: int = 0) -> str:
    if len(namespace) <= user_index:
        raise NamespaceError(f"{what}: namespace[{user_index}] must be the user id "
                             f"(got {tuple(namespace)!r})")
    try:
        return require_scope(namespace[user_index])
    except InvalidInputError as exc:
        raise NamespaceError(f"{what}: namespace[{user_index}] is the user id: {exc}") from None


def _item(record: MemoryRecord) -> Item:
    meta = record.metadata[META]
    return Item(value=meta["value"], key=meta["key"], namespace=tuple(meta["namespace"]),
                created_at=record.created_at, updated_at=record.updated_at)


def _search_item(record: MemoryRecord, score: float | None = None) -> SearchItem:
    meta = record.metadata[META]
    return SearchItem(tuple(meta["namespace"]), meta["key"], meta["value"], record.created_at,
                      record.updated_at, score)


def _ours(record: MemoryRecord) -> bool:
    return isinstance(record.metadata.get(META), dict)


def _wanted(record: MemoryRecord, prefix: Sequence[str],
            value_filter: dict[str, Any] | None) -> bool:
    """Whether ``record`` is an item under ``prefix`` whose value passes ``value_filter``."""
    if not _ours(record):
        return False
    meta = record.metadata[META]
    return (tuple(meta["namespace"][:len(prefix)]) == tuple(prefix)
            and matches(meta["value"], value_filter))


class AgentMemoryStore(BaseStore):
    """A LangGraph ``BaseStore`` backed by agent-memory (see the module docstring).

    Example::

        with Memory(store="memory.db") as memory:
            store = AgentMemoryStore(memory)
            store.put(("alice", "memories"), "diet", {"text": "Alice is vegetarian."})
            hits = store.search(("alice", "memories"), query="what does she eat?")

    Args:
        memory: a :class:`~agent_memory.Memory` (sync and async methods work) or an
            :class:`~agent_memory.AsyncMemory` (async methods; sync ones only from a thread
            other than the one running its loop).
        fields: value paths whose text is indexed (LangGraph path syntax, e.g. ``"text"``,
            ``"notes[*].body"``); default: the first string among ``text`` / ``content`` /
            ``memory``, else the whole value as JSON.
        user_index: the position of the user id in every namespace (0: ``("alice",
            "memories")``; 1 for the ``("memories", "{user_id}")`` layout of LangMem's tools).

    Raises:
        InvalidInputError: ``memory`` is not a local client (a remote one has no store), or
            ``user_index`` is not from 0 to 16.
    """

    supports_ttl = False

    def __init__(self, memory: Any, *, fields: Sequence[str] | None = None,
                 user_index: int = 0) -> None:
        self._bridge = ClientBridge(memory)
        if not hasattr(self._bridge.client, "components"):
            raise InvalidInputError("AgentMemoryStore needs a local Memory or AsyncMemory")
        self.fields = list(fields) if fields is not None else None
        self.user_index = check.count(user_index, "user_index", minimum=0, maximum=16)

    # -- BaseStore -----------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order, blocking until done; see :meth:`abatch`."""
        ops = self._checked(ops)
        return self._bridge.run(lambda client: self._run(client, ops))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order (consecutive puts as one write per user).

        Returns:
            One result per op: ``Item | None`` (get), ``list[SearchItem]`` (search),
            ``list[tuple[str, ...]]`` (list_namespaces), ``None`` (put).

        Raises:
            NamespaceError: an empty namespace, a bad user id or label (nothing runs).
            InvalidInputError (subclasses): a value that is not a JSON object, an item text
                longer than ``Settings.max_content_chars``, a bad limit or offset.
        """
        ops = self._checked(ops)
        return await self._bridge.arun(lambda client: self._run(client, ops))

    # -- internals -----------------------------------------------------------------------

    def _checked(self, ops: Iterable[Op]) -> list[Op]:
        ops = list(ops)
        for op in ops:
            try:
                validate_op_namespace(op)
            except InvalidNamespaceError as exc:
                raise NamespaceError(str(exc)) from None
            if isinstance(op, GetOp | PutOp):
                _user(op.namespace, type(op).__name__, self.user_index)
                check.text(op.key, "key", required=True)
            elif isinstance(op, SearchOp):
                _user(op.namespace_prefix, "search", self.user_index)
                check.count(op.limit, "limit")
                check.count(op.offset, "offset", minimum=0, maximum=2**62)
                if op.query is not None:
                    check.text(op.query, "search query")
            if isinstance(op, PutOp) and op.value is not None:
                if not isinstance(op.value, Mapping):
                    raise InvalidInputError(f"the value of {op.key!r} must be a dict")
                try:
                    json.dumps(dict(op.value))
                except (TypeError, ValueError) as exc:
                    raise InvalidInputError(f"the value of {op.key!r} is not JSON: {exc}") from None
        return ops

    async def _run(self, client: Any, ops: list[Op]) -> list[Result]:
        results: list[Result] = []
        pending: list[PutOp] = []
        for op in [*ops, None]:
            if isinstance(op, PutOp):
                pending.append(op)
                results.append(None)
                continue
            if pending:
                await self._write(client, pending)
                pending = []
            if isinstance(op, GetOp):
                results.append(await self._get(client, op))
            elif isinstance(op, SearchOp):
                results.append(await self._search(client, op))
            elif isinstance(op, ListNamespacesOp):
                results.append(await self._namespaces(client, op))
            elif op is not None:
                raise InvalidInputError(f"unknown store operation {type(op).__name__}")
        return results

    async def _get(self, client: Any, op: GetOp) -> Item | None:
        user = _user(op.namespace, "get", self.user_index)
        await client.connect()
        found = await client.components.store.get(user, [item_id(op.namespace, op.key)])
        return _item(found[0]) if found and _ours(found[0]) else None

    def _text(self, value: Mapping[str, Any], index: list[str] | None) -> str | None:
        """The text to index: the ``index`` paths, else ``fields``, else a text field."""
        paths = index if index is not None else self.fields
        if paths is not None:
            texts = [t for p in paths for t in get_text_at_path(value, tokenize_path(p))]
            joined = "\n".join(t for t in texts if t.strip())
            return joined or None
        for name in DEFAULT_TEXT_FIELDS:
            if isinstance(value.get(name), str) and value[name].strip():
                return value[name]
        return None

    async def _write(self, client: Any, ops: list[PutOp]) -> None:
        last: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:  # the last put of a key wins, as in LangGraph's stores
            last[(tuple(op.namespace), op.key)] = op
        deletes: dict[str, list[PutOp]] = {}
        puts: dict[str, list[PutOp]] = {}
        for (namespace, _), op in last.items():
            target = deletes if op.value is None else puts
            target.setdefault(namespace[self.user_index], []).append(op)
        await client.connect()
        for user, gone in deletes.items():
            ids = [item_id(o.namespace, o.key) for o in gone]
            for first in range(0, len(ids), check.MAX_K):
                await client.forget_records(user, ids[first:first + check.MAX_K])
        for user, group in puts.items():
            await self._put_user(client, user, group)

    async def _put_user(self, client: Any, user: str, ops: list[PutOp]) -> None:
        c = client.components
        limit = c.settings.max_content_chars
        texts = []
        for op in ops:
            value = dict(op.value or {})
            if op.index is None or op.index is False:  # the store's fields, else the JSON
                text, indexed = self._text(value, None), op.index is None
            else:  # the put's paths; none of them holding text: nothing to index
                text = self._text(value, op.index)
                indexed = text is not None
            content = text or json.dumps(value, ensure_ascii=False, sort_keys=True)
            check.content(content, limit, f"text of item {op.key!r}")
            texts.append((value, content, indexed))
        for attempt in range(MAX_RETRIES):
            stored = {r.id: r for r in await c.store.get(user, [item_id(o.namespace, o.key)
                                                                for o in ops])}
            now = utcnow()
            facts: list[tuple[Fact, bool]] = []
            for op, (value, content, indexed) in zip(ops, texts, strict=True):
                rid = item_id(op.namespace, op.key)
                prior = stored.get(rid)
                meta = {"namespace": list(op.namespace), "key": op.key, "value": value,
                        "indexed": indexed}
                facts.append((Fact(
                    id=rid, kind=RecordKind.FACT, user_id=user, content=content,
                    collection=collection_of(op.namespace, self.user_index), category=META,
                    metadata={META: meta}, created_at=prior.created_at if prior else now,
                    updated_at=now, etag=prior.etag if prior else None), indexed))
            embedded = iter(await build_indexed([f for f, keep in facts if keep], c.embedder,
                                                context_tokens=0))
            items = [next(embedded) if keep else Indexed(f, text=" ") for f, keep in facts]
            try:
                await c.store.put(items)
                return
            except ConflictError:  # another writer moved a record meanwhile: read again
                if attempt == MAX_RETRIES - 1:
                    raise

    async def _matching(self, client: Any, user: str, prefix: Sequence[str],
                        value_filter: dict[str, Any] | None) -> list[Fact]:
        """The user's items under ``prefix`` passing ``value_filter``, newest update first
        (one read of the user's items)."""
        await client.connect()
        records = await client.components.store.list(user, _ITEMS)
        found = [r for r in records if isinstance(r, Fact) and _wanted(r, prefix, value_filter)]
        found.sort(key=lambda r: r.updated_at, reverse=True)
        return found

    async def _search(self, client: Any, op: SearchOp) -> list[SearchItem]:
        """Rank the user's items by hybrid search, keeping those under the prefix that pass
        the filter; the ranking widens (x4, up to ``MAX_K``) until the page is full or every
        item is ranked. When the page is not full, the prefix's unranked items (unindexed
        ones) follow, unscored, read from the store."""
        user = _user(op.namespace_prefix, "search", self.user_index)
        prefix, end = tuple(op.namespace_prefix), op.offset + op.limit
        if not op.query or not op.query.strip():
            found = await self._matching(client, user, prefix, op.filter)
            return [_search_item(r) for r in found[op.offset:end]]
        c = client.components
        filters = SearchFilters(kinds=_FACTS, categories=_CATEGORY, include_superseded=True)
        k = min(check.MAX_K, end if not op.filter else 4 * end)
        while True:
            request = SearchRequest(query=op.query, mode=SearchMode.HYBRID, k=k, filters=filters)
            found_hits = await search(c.store, c.embedder, user, request, rrf_k=c.settings.rrf_k)
            hits = [h for h in found_hits if _wanted(h.record, prefix, op.filter)]
            if len(hits) >= end or len(found_hits) < k or k >= check.MAX_K:
                break
            k = min(check.MAX_K, 4 * k)
        rows = [_search_item(h.record, h.score) for h in hits]
        if len(rows) < end:
            ranked = {h.record.id for h in hits}
            rows += [_search_item(r) for r in await self._matching(client, user, prefix, op.filter)
                     if r.id not in ranked]
        return rows[op.offset:end]

    async def _namespaces(self, client: Any, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        users: list[str] | None = None
        for cond in conditions:
            path, at = cond.path, self.user_index
            if cond.match_type == "prefix" and len(path) > at and path[at] != "*":
                users = [path[at]]
        await client.connect()
        store = client.components.store
        if users is None:
            users = await store.users()
        spaces: set[tuple[str, ...]] = set()
        for user in users:
            for record in await store.list(user, _ITEMS):
                if _ours(record):
                    spaces.add(tuple(record.metadata[META]["namespace"]))
        kept = [ns for ns in spaces if all(namespace_matches(c, ns) for c in conditions)]
        if op.max_depth is not None:
            kept = list({ns[:op.max_depth] for ns in kept})
        return sorted(kept)[op.offset:op.offset + op.limit]


__all__ = ["AgentMemoryStore", "NamespaceError", "collection_of", "item_id"]
