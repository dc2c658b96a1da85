// Transactional batches as Cosmos DB runs them: all operations (Create, Upsert, Replace,
// Read, Delete, Patch, each optionally with ifMatch) apply in one logical partition, all or
// nothing. When one fails, nothing is applied and the response lists that operation's own
// status (409 conflict, 412 precondition failed, 404 not found, 400 bad request) and 424
// (failed dependency) for every other one; the SDK raises CosmosBatchOperationError from it.
// https://learn.microsoft.com/azure/cosmos-db/nosql/transactional-batch
// The server runs batch operations one by one and keeps those before a failure (and rejects
// Patch); here the container's item maps are saved before the batch and restored on failure
// (the server is single-threaded, so no other request interleaves).
"use strict";

const common = require("./common/partition");

let handlers = null;

function install(libDir) {
  const ops = common.lib(libDir, "handler/_document-operations");
  const { patchOperation } = common.lib(libDir, "handler/_patch-operations");
  const json = common.lib(libDir, "json").default;
  const getValue = common.lib(libDir, "utils/get-value").default;

  function apply(collection, input, partitionKey) {
    const op = { ...input, partitionKey };
    const body = input.resourceBody;
    switch (String(input.operationType || "").toLowerCase()) {
      case "create":
      case "upsert":
      case "replace": {
        const values = common.headerValues({ headers: { "x-ms-documentdb-partitionkey": partitionKey } });
        if (body && values && !common.inPartition(collection.read(), body, values)) {
          return { statusCode: 400, body: { message: "partition key of the item does not match the batch" } };
        }
        if (input.operationType.toLowerCase() === "create") return ops.createOperation(collection, op);
        if (input.operationType.toLowerCase() === "upsert") return ops.upsertOperation(collection, op);
        if (input.id && body && body.id !== input.id) {
          return { statusCode: 400, body: { message: "replacing id is not allowed" } };
        }
        return ops.replaceOperation(collection, op);
      }
      case "read":
        return ops.readOperation(collection, op);
      case "delete":
        return ops.deleteOperation(collection, op);
      case "patch":
        return patchOperation(collection, {
          id: input.id, partitionKey, ifMatch: input.ifMatch,
          operations: (body || {}).operations, condition: (body || {}).condition,
        });
      default:
        return { statusCode: 400, body: { message: `unknown operation ${input.operationType}` } };
    }
  }

  async function batch(account, req, res, { dbId, collId }) {
    const body = await json(req);
    const collection = account.database(dbId).collection(collId);
    if (!collection.read()) {
      res.statusCode = 404;
      return { code: "NotFound", message: "container not found" };
    }
    if (!Array.isArray(body) || body.length === 0 || body.length > 100) {
      res.statusCode = 400;
      return { code: "BadRequest", message: "a batch holds 1 to 100 operations" };
    }
    let partitionKey = req.headers["x-ms-documentdb-partitionkey"];
    if (Array.isArray(partitionKey)) [partitionKey] = partitionKey;
    const docs = collection.documents;
    common.purgeExpired(docs, getValue);
    const saved = { data: new Map(docs._data), index: new Map(docs._index), rid: docs._ridCount };
    const results = [];
    let failed = -1;
    for (let i = 0; i < body.length && failed < 0; i += 1) {
      let result;
      try {
        result = apply(collection, body[i] || {}, partitionKey);
      } catch (err) {
        result = { statusCode: err.badRequest ? 400 : 500, body: { message: err.message } };
      }
      results.push(result);
      if (result.statusCode >= 400) failed = i;
    }
    if (failed >= 0) {
      docs._data = saved.data;
      docs._index = saved.index;
      docs._ridCount = saved.rid;
      res.statusCode = 207; // Multi-Status: the SDK reads the per-operation statuses
      return body.map((_, i) => (i === failed
        ? { statusCode: results[i].statusCode, requestCharge: 0, resourceBody: results[i].body }
        : { statusCode: 424, requestCharge: 0 }));
    }
    res.statusCode = 200;
    return results.map((r) => ({
      statusCode: r.statusCode,
      requestCharge: 1,
      eTag: r.body ? r.body._etag : undefined,
      resourceBody: r.body,
    }));
  }

  handlers = common.lib(libDir, "router").default({
    POST_BATCH: { "/dbs/:dbId/colls/:collId/docs": batch },
  });
}

function route(req) {
  return handlers ? handlers(req) : undefined;
}

module.exports = { install, route };
