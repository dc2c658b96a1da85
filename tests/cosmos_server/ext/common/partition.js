// Logical partitions and item expiry for the Cosmos DB test server extensions.
//
// The server keys documents by the FIRST partition key component only and ignores the
// partition key header of queries; Cosmos DB keys them by the full (possibly hierarchical)
// partition key value and scopes a query sent with that header to its logical partition.
// These functions read the header, match documents against it, run the server's own query
// engine over one partition's documents, and drop documents whose time to live has passed
// (Cosmos DB: an item expires `ttl` seconds after its last write `_ts`; the item's `ttl`
// overrides the container's `defaultTtl`; -1 never expires; nothing expires when the
// container has no `defaultTtl`).
"use strict";

const path = require("path");

function lib(libDir, name) {
  return require(path.join(libDir, name));
}

/** The partition key paths of a container, as lists of property names. */
function keyPaths(collection) {
  const paths = ((collection.partitionKey || {}).paths || []).filter((p) => p !== "/_partitionKey");
  return paths.map((p) => p.slice(1).split("/"));
}

function valueAt(keys, doc) {
  let cur = doc;
  for (const k of keys) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = cur[k];
  }
  return cur;
}

/** The partition key values of a request header (JSON array), or null when absent/none. */
function headerValues(req) {
  let raw = req.headers["x-ms-documentdb-partitionkey"];
  if (Array.isArray(raw)) [raw] = raw;
  if (!raw || raw === "[{}]" || raw === "[]") return null;
  try {
    const parsed = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch (err) {
    return null;
  }
}

/** Whether `doc` lies in the logical partition (or hierarchical prefix) given by `values`. */
function inPartition(collection, doc, values) {
  const paths = keyPaths(collection);
  return values.every((v, i) => i < paths.length
    && JSON.stringify(valueAt(paths[i], doc)) === JSON.stringify(v));
}

function effectiveTtl(collection, doc) {
  const containerTtl = collection.defaultTtl;
  if (containerTtl === undefined || containerTtl === null) return null;
  const ttl = typeof doc.ttl === "number" ? doc.ttl : containerTtl;
  return ttl === -1 ? null : ttl;
}

/** Remove the documents of `documents` (an Items store) whose time to live has passed. */
function purgeExpired(documents, getValue) {
  const collection = documents._parent.read();
  if (!collection || collection.defaultTtl === undefined || collection.defaultTtl === null) return;
  const now = Date.now() / 1000;
  for (const [rid, item] of [...documents._data.entries()]) {
    const doc = item.read();
    const ttl = effectiveTtl(collection, doc);
    if (ttl === null || doc._ts + ttl > now) continue;
    const partition = documents._getPartition(doc);
    for (const keyPath of documents._uniqueKeyPaths) {
      const value = getValue(keyPath.slice(1).split("/"), doc);
      documents._index.delete(documents._getId(keyPath, value, partition));
    }
    documents._data.delete(rid);
  }
}

/** The live documents of a collection, restricted to the request's partition when it has one. */
function scopedDocuments(collection, req) {
  const values = headerValues(req);
  const docs = [...collection.documents._data.values()].map((item) => item.read());
  const coll = collection.read();
  return values ? docs.filter((d) => inPartition(coll, d, values)) : docs;
}

/**
 * Run `sql` with the server's query engine over `docs` (one page, as the server pages).
 * Returns the engine's `{result, continuation}`.
 */
function execQuery(collection, sql, parameters, docs, { continuation, maxItemCount }) {
  const { documents } = collection;
  const compositeIndexes = (collection.read().indexingPolicy || {}).compositeIndexes || [];
  try {
    return documents._getQuery(sql).exec(docs, {
      parameters, udf: documents._userDefinedFunctions(), maxItemCount, continuation,
      compositeIndexes,
    });
  } catch (err) {
    err.badRequest = true;
    throw err;
  }
}

module.exports = {
  lib, keyPaths, valueAt, headerValues, inPartition, purgeExpired, scopedDocuments, execQuery,
};
