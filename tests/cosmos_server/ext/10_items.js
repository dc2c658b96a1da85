// Items as Cosmos DB keeps them, where the test server differs:
// - a point read of a missing item answers 404 NotFound (the server crashes into a 500);
// - an item's identity is (full partition key value, id): the same id under two hierarchical
//   partition keys is two items (the server keys items by the first component only);
// - a query sent with a partition key header runs over that logical partition only (the
//   server ignores the header and instead refuses, with "missing partition keys", every
//   query whose WHERE text lacks an equality on each partition key path -- which is why
//   `query_items(query, partition_key=...)` failed for queries without that equality);
// - items expire: one whose time to live has passed is neither read nor returned;
// - queries using the search functions are answered by ./30_search.js.
"use strict";

const common = require("./common/partition");
const search = require("./30_search");

let handlers = null;

function notFound(res) {
  res.statusCode = 404;
  return { code: "NotFound", message: "Entity with the specified id does not exist in the system." };
}

/** Patch the server's item store once: full partition key identity and expiry. */
function install(libDir) {
  const Documents = common.lib(libDir, "account/documents").default;
  const getValue = common.lib(libDir, "utils/get-value").default;
  const header = common.lib(libDir, "utils/get-partition-from-header");

  const ownGetPartition = Documents.prototype._getPartition;
  Documents.prototype._getPartition = function getPartition(data) {
    const paths = this._partitionKeyPath.filter((p) => p !== "/_partitionKey");
    if (paths.length < 2) return ownGetPartition.call(this, data);
    return JSON.stringify(paths.map((p) => common.valueAt(p.slice(1).split("/"), data)));
  };
  const ownParse = header.parsePartitionKey;
  header.parsePartitionKey = (partitionKey, defaultValue) => {
    let parsed;
    try {
      parsed = JSON.parse(partitionKey);
    } catch (err) {
      return ownParse(partitionKey, defaultValue);
    }
    if (Array.isArray(parsed) && parsed.length > 1) return JSON.stringify(parsed);
    return ownParse(partitionKey, defaultValue);
  };

  for (const name of ["_item", "query", "read"]) {
    const own = Documents.prototype[name];
    Documents.prototype[name] = function withExpiry(...args) {
      common.purgeExpired(this, getValue);
      return own.apply(this, args);
    };
  }

  const readItems = common.lib(libDir, "handler/_read-items").default;
  const json = common.lib(libDir, "json").default;
  const trueHeader = common.lib(libDir, "true-header").default;
  const cosmosQuery = require(require.resolve("@zeit/cosmosdb-query", { paths: [libDir] })).default;

  async function readDocument(account, req, res, { dbId, collId, docId }) {
    const collection = account.database(dbId).collection(collId);
    const coll = collection.read();
    if (!coll) return notFound(res);
    let raw = req.headers["x-ms-documentdb-partitionkey"];
    if (Array.isArray(raw)) [raw] = raw;
    const key = raw ? header.parsePartitionKey(raw, docId) : docId;
    const doc = collection.document(docId, key).read();
    const values = common.headerValues(req);
    if (!doc || (values && !common.inPartition(coll, doc, values))) return notFound(res);
    res.statusCode = 200;
    return doc;
  }

  async function queryDocuments(account, req, res, { dbId, collId }) {
    const body = await json(req);
    return readItems(req, res, "Documents", async (page) => {
      if (!body.query) {
        res.statusCode = 400;
        return { message: "missing query" };
      }
      const collection = account.database(dbId).collection(collId);
      const coll = collection.read();
      if (!coll) return null;
      const scoped = common.headerValues(req) !== null;
      if (!scoped && !trueHeader(req, "x-ms-documentdb-query-enablecrosspartition")) {
        const paths = (coll.partitionKey || {}).paths || [];
        if (paths.length && !search.isSearchQuery(body.query)
            && !cosmosQuery(body.query).containsPartitionKeys(paths)) {
          res.statusCode = 400;
          return { message: "missing partition keys" };
        }
      }
      common.purgeExpired(collection.documents, getValue);
      const docs = common.scopedDocuments(collection, req);
      try {
        if (search.isSearchQuery(body.query)) {
          return search.run(collection, body, docs, page);
        }
        return common.execQuery(collection, body.query, body.parameters, docs, page);
      } catch (err) {
        if (err.badRequest) {
          res.statusCode = 400;
          return { code: "BadRequest", message: err.message };
        }
        throw err;
      }
    });
  }

  handlers = common.lib(libDir, "router").default({
    GET: { "/dbs/:dbId/colls/:collId/docs/:docId": readDocument },
    POST_QUERY: { "/dbs/:dbId/colls/:collId/docs": queryDocuments },
  });
}

function route(req) {
  return handlers ? handlers(req) : undefined;
}

module.exports = { install, route };
