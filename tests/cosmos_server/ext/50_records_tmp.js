// Transactional batches, as Cosmos DB applies them: every operation of the batch in one
// logical partition (the partition key comes from the request header), all or nothing.
// The server's own batch handler reads a partition key per operation (the Python SDK sends
// it once, in the header) and keeps the operations before a failed one. Here each operation
// runs through the server's own document operations; when one fails, the ones before it are
// undone (documents restored with their original _etag and _rid) and the response carries
// the failed operation's status and 424 (failed dependency) for every other one.
"use strict";

const path = require("path");

const BATCH_PATH = /^\/+dbs\/([^/]+)\/colls\/([^/]+)\/docs\/?$/;

function isTrue(req, name) {
  const value = req.headers[name];
  const values = Array.isArray(value) ? value : [value];
  return values.some((v) => typeof v === "string" && v.toLowerCase() === "true");
}

function route(req, libDir) {
  if (req.method !== "POST" || !isTrue(req, "x-ms-cosmos-is-batch-request")) return undefined;
  const match = BATCH_PATH.exec(req.url.split("?")[0]);
  if (!match) return undefined;
  const ops = require(path.join(libDir, "handler", "_document-operations"));
  const json = require(path.join(libDir, "json")).default;
  const params = { dbId: decodeURIComponent(match[1]), collId: decodeURIComponent(match[2]) };
  return [params, (account, rq, res, p) => batch(ops, json, account, rq, res, p)];
}

async function batch(ops, json, account, req, res, { dbId, collId }) {
  const body = await json(req);
  const collection = account.database(dbId).collection(collId);
  if (!collection.read()) {
    res.statusCode = 404;
    return {};
  }
  if (!Array.isArray(body)) {
    res.statusCode = 400;
    return { message: "Invalid request body" };
  }
  const header = req.headers["x-ms-documentdb-partitionkey"];
  const partitionKey = Array.isArray(header) ? header[0] : header;
  const pk = JSON.parse(partitionKey)[0];
  const documents = collection.documents;
  const undo = [];
  const responses = [];
  let failedAt = -1;
  for (let i = 0; i < body.length; i += 1) {
    const input = { ...body[i], partitionKey };
    const id = input.id || (input.resourceBody && input.resourceBody.id);
    const before = id === undefined ? null : collection.document(id, pk).read() || null;
    let result;
    switch (input.operationType) {
      case "Create": result = ops.createOperation(collection, input); break;
      case "Upsert": result = ops.upsertOperation(collection, input); break;
      case "Replace": result = ops.replaceOperation(collection, input); break;
      case "Delete": result = ops.deleteOperation(collection, input); break;
      case "Read": result = ops.readOperation(collection, input); break;
      default:
        result = { statusCode: 400, body: { message: `Operation type '${input.operationType}' is not supported in Batch.` } };
    }
    if (result.statusCode >= 400) {
      failedAt = i;
      responses.push({ statusCode: result.statusCode, requestCharge: 0 });
      break;
    }
    if (input.operationType !== "Read") undo.push({ id, before });
    responses.push({
      statusCode: result.statusCode,
      requestCharge: 1,
      eTag: result.body ? result.body._etag : undefined,
      resourceBody: result.body,
    });
  }
  if (failedAt < 0) return responses;
  for (const { id, before } of undo.reverse()) {
    if (collection.document(id, pk).read()) documents.delete(id, pk);
    if (before) documents._set(before);
  }
  return body.map((_, i) => (i === failedAt ? responses[i] : { statusCode: 424, requestCharge: 0 }));
}

module.exports = { route };
