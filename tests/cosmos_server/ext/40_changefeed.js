// The change feed (latest-version mode) the test server lacks: a GET on .../docs with the
// header `A-IM: Incremental feed` answers the documents changed after the continuation in
// `If-None-Match`, oldest change first, as Cosmos DB does.
//
// Protocol (what azure-cosmos sends and reads):
//   request  A-IM: Incremental feed
//            If-None-Match: absent = from the beginning, "*" = from now, "<lsn>" = after it
//            x-ms-max-item-count: page size (default 100)
//   response 200 {"Documents": [...each with _lsn], "_count": n}, ETag: "<lsn of the last>"
//            304 (no body) when nothing changed after the continuation; ETag unchanged.
// Every write (create, replace, upsert; a batch or a patch goes through them) gets the next
// logical sequence number (LSN) of the server, kept beside the document (not in it, so reads
// return the same fields as before); a replaced document moves to the end of the feed with its
// latest version only, and a deleted one leaves it (deletes are not in latest-version mode).
// `If-Modified-Since` (a start time) is not supported: the feed starts from the beginning.
"use strict";

const path = require("path");

let lsn = 0;
const lsns = new WeakMap(); // Items instance -> Map(_rid -> lsn)
let patched = false;

function patchItems(libDir) {
  if (patched) return;
  patched = true;
  const Items = require(path.join(libDir, "account", "items")).default;
  const set = Items.prototype._set;
  Items.prototype._set = function stampLsn(data) {
    const stored = set.call(this, data);
    if (!lsns.has(this)) lsns.set(this, new Map());
    lsn += 1;
    lsns.get(this).set(stored._rid, lsn);
    return stored;
  };
  const del = Items.prototype.delete;
  Items.prototype.delete = function forgetLsn(idOrRid, partition) {
    const data = this._item("/id", idOrRid, partition).read();
    del.call(this, idOrRid, partition);
    if (data && lsns.has(this)) lsns.get(this).delete(data._rid);
  };
}

function parseContinuation(value) {
  if (value === undefined) return 0;
  const text = String(value).replace(/"/g, "").trim();
  if (text === "*") return lsn;
  const n = parseInt(text, 10);
  return Number.isFinite(n) ? n : 0;
}

async function changeFeed(account, req, res, { dbId, collId }) {
  // The server's response wrapper turns any A-IM answer into a 304; this handler answers itself.
  delete req.headers["a-im"];
  const collection = account.database(dbId).collection(collId);
  if (!collection.read()) {
    res.statusCode = 404;
    return { code: "NotFound", message: "collection not found" };
  }
  const since = parseContinuation(req.headers["if-none-match"]);
  const max = parseInt(req.headers["x-ms-max-item-count"] || "100", 10);
  const limit = max > 0 ? max : 100;
  const items = collection.documents;
  const byRid = lsns.get(items) || new Map();
  const changed = [];
  for (const [rid, item] of items._data.entries()) {
    const at = byRid.get(rid);
    if (at !== undefined && at > since) changed.push([at, item.read()]);
  }
  changed.sort((a, b) => a[0] - b[0]);
  const page = changed.slice(0, limit);
  if (page.length === 0) {
    res.statusCode = 304;
    res.setHeader("etag", `"${since}"`);
    res.setHeader("x-ms-item-count", "0");
    return {};
  }
  const last = page[page.length - 1][0];
  res.setHeader("etag", `"${last}"`);
  res.setHeader("x-ms-item-count", String(page.length));
  const docs = page.map(([at, doc]) => ({ ...doc, _lsn: at }));
  return { _rid: collection.read()._rid, Documents: docs, _count: docs.length };
}

const DOCS = /^\/+dbs\/([^/]+)\/colls\/([^/]+)\/docs\/*$/;

exports.route = (req, libDir) => {
  patchItems(libDir);
  if (req.method !== "GET" || !req.headers["a-im"]) return undefined;
  const pathname = (req.url || "").split("?")[0];
  const match = DOCS.exec(pathname);
  if (!match) return undefined;
  const params = { dbId: decodeURIComponent(match[1]), collId: decodeURIComponent(match[2]) };
  return [params, changeFeed];
};
