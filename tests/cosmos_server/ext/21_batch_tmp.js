// Atomic transactional batches: the server runs a batch's operations one by one and stops at
// the first failure, but keeps the ones before it. With `x-ms-cosmos-batch-atomic: true` this
// extension runs the server's own batch handler and, when an operation failed, puts every
// document the batch touched back as it was (same body, _etag and _rid), as Cosmos DB does.
// Operations without their own partition key get the request's (x-ms-documentdb-partitionkey).
"use strict";

const path = require("path");

let ownHandler = null;
let parsePartitionKey = null;

function load(libDir) {
  if (ownHandler) return;
  ownHandler = require(path.join(libDir, "handler", "batch-documents")).default;
  parsePartitionKey = require(path.join(libDir, "utils", "get-partition-from-header"))
    .parsePartitionKey;
}

function target(documents, op) {
  if (!op) return null;
  const body = op.resourceBody;
  if (body && body.id !== undefined) return [body.id, documents._getPartition(body)];
  if (op.id === undefined) return null;
  try {
    return [op.id, op.partitionKey ? parsePartitionKey(op.partitionKey, op.id) : op.id];
  } catch (err) {
    return null;
  }
}

async function atomicBatch(account, req, res, params) {
  const collection = account.database(params.dbId).collection(params.collId);
  if (!collection.read()) return ownHandler(account, req, res, params);
  // The body is read here (the server's handler reads it again from this buffer).
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const raw = Buffer.concat(chunks);
  let ops;
  try {
    ops = JSON.parse(raw.toString("utf8"));
  } catch (err) {
    ops = null;
  }
  const documents = collection.documents;
  const before = [];
  let replayed = raw;
  if (Array.isArray(ops)) {
    // The Python SDK sends the partition key once, in the request header, not per operation.
    const key = req.headers["x-ms-documentdb-partitionkey"];
    for (const op of ops) {
      if (op && op.partitionKey === undefined && key !== undefined) op.partitionKey = key;
    }
    replayed = Buffer.from(JSON.stringify(ops));
    for (const op of ops) {
      const at = target(documents, op);
      if (at) before.push([at, documents._item("/id", at[0], at[1]).read() || null]);
    }
  }
  const replay = require("stream").Readable.from([replayed]);
  replay.headers = req.headers;
  replay.method = req.method;
  replay.url = req.url;
  const results = await ownHandler(account, replay, res, params);
  const failed = Array.isArray(results) && results.some((r) => r.statusCode >= 400);
  if (failed) {
    for (const [[id, partition], old] of before.reverse()) {
      if (documents._item("/id", id, partition).read()) documents.delete(id, partition);
      if (old) documents._set(old);
    }
    for (const r of results) {
      if (r.statusCode < 400) {
        r.statusCode = 424;
        delete r.resourceBody;
        delete r.eTag;
      }
    }
  }
  return results;
}

exports.route = (req, libDir) => {
  const atomic = String(req.headers["x-ms-cosmos-batch-atomic"] || "").toLowerCase() === "true";
  const batch = String(req.headers["x-ms-cosmos-is-batch-request"] || "").toLowerCase() === "true";
  if (req.method !== "POST" || !batch || !atomic) return undefined;
  const match = /^\/+dbs\/([^/]+)\/colls\/([^/]+)\/docs\/*$/.exec((req.url || "").split("?")[0]);
  if (!match) return undefined;
  load(libDir);
  return [{ dbId: decodeURIComponent(match[1]), collId: decodeURIComponent(match[2]) },
    atomicBatch];
};
