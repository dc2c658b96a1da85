// A point read of a missing item answers 404 NotFound, as Cosmos DB does (the server crashes
// into a 500). Temporary: the items extension of the test server does the same.
"use strict";

const path = require("path");

async function notFound(account, req, res, { dbId, collId, docId }) {
  const collection = account.database(dbId).collection(collId);
  res.statusCode = 404;
  if (!collection.read()) return { code: "NotFound", message: "collection not found" };
  return { code: "NotFound", message: "Entity with the specified id does not exist in the system." };
}

exports.route = (req, libDir) => {
  if (req.method !== "GET" || req.headers["a-im"]) return undefined;
  const match = /^\/+dbs\/([^/]+)\/colls\/([^/]+)\/docs\/([^/]+)\/*$/.exec((req.url || "").split("?")[0]);
  if (!match) return undefined;
  const [dbId, collId, docId] = match.slice(1).map(decodeURIComponent);
  const { parsePartitionKey } = require(path.join(libDir, "utils", "get-partition-from-header"));
  let key = docId;
  try {
    const header = req.headers["x-ms-documentdb-partitionkey"];
    if (header !== undefined) key = parsePartitionKey(header, docId);
  } catch (err) {
    return undefined;
  }
  return [{ dbId, collId, docId, key }, async (account, rq, res, params) => {
    const coll = account.database(dbId).collection(collId);
    if (coll.read() && coll.document(docId, params.key).read()) {
      const own = require(path.join(libDir, "handler", "read-document")).default;
      return own(account, rq, res, params);
    }
    return notFound(account, rq, res, params);
  }];
};
