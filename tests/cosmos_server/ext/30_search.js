// The Cosmos DB search functions the test server lacks, with their documented semantics:
//   VectorDistance(a, b [, bruteForce [, {distanceFunction}]])  similarity of two vectors:
//       cosine (default; -1..1, higher = closer), dotproduct (higher = closer) or euclidean
//       (lower = closer); undefined when either is not a numeric array of the same length.
//   FullTextContains(path, kw) / FullTextContainsAll(path, kw...) / FullTextContainsAny(...)
//       whether the text holds every term of the keyword (all keywords / any keyword).
//   ORDER BY RANK FullTextScore(path, kw...)  BM25 relevance, most relevant first.
//   ORDER BY RANK RRF(score1, score2, ... [, weights])  reciprocal rank fusion.
//   ORDER BY [RANK] VectorDistance(...)  most similar first (the ASC/DESC keyword is ignored).
// https://learn.microsoft.com/azure/cosmos-db/nosql/query/vectordistance, .../fulltextscore,
// .../rrf, .../order-by-rank. FullTextScore and RRF are valid only in ORDER BY RANK (a
// projection or filter using them is a 400, as in Cosmos DB).
//
// Execution: the WHERE part runs in the server's own query engine (the four scalar functions
// above are added to its built-ins); the ORDER BY scoring, TOP and projection run here. The
// whole result is one page.
//
// Text analysis: lower-case, words are runs of Unicode letters/digits, a light English
// plural stemmer (Harman's S-stemmer, JASIS 1991: -ies -> -y, -es -> -e, -s -> ""), no stop
// words removed. A multi-word keyword counts as its words (no phrase positions).
// BM25 (Robertson & Zaragoza 2009): score = sum over distinct keyword terms t of
//   idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen)),
//   idf(t) = ln(1 + (N - n_t + 0.5) / (n_t + 0.5)), k1 = 1.2, b = 0.75,
// with N, n_t and avglen taken over the documents of the query's scope (its logical partition
// when sent with a partition key, else the container) that hold a string at the path.
// Cosmos DB does not publish its constants; these are the usual defaults.
// RRF (Cormack, Clarke & Buettcher, SIGIR 2009): score = sum_i w_i / (60 + rank_i), k = 60 as
// the Cosmos DB SDKs fuse (azure-cosmos hybrid_search_aggregator.RRF_CONSTANT); ranks are
// 1-based over the documents matching WHERE, equal scores share a rank (as the SDK ranks);
// a component ranks only the documents it scores: VectorDistance those with a vector at the
// path, FullTextScore those holding at least one keyword term.
"use strict";

const common = require("./common/partition");

const K1 = 1.2;
const B = 0.75;
const RRF_K = 60;
const SEARCH_CALL = /\b(VectorDistance|FullTextScore|FullTextContains(All|Any)?|RRF)\s*\(/i;

function badRequest(message) {
  const err = new Error(message);
  err.badRequest = true;
  return err;
}

function stem(word) {
  if (word.length > 3 && word.endsWith("ies") && !/[ea]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("es") && !/[aeo]es$/.test(word)) return word.slice(0, -1);
  if (word.length > 2 && word.endsWith("s") && !/(us|ss)$/.test(word)) return word.slice(0, -1);
  return word;
}

function terms(text) {
  if (typeof text !== "string") return [];
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []).map(stem);
}

function keywordTerms(keywords) {
  return keywords.flat(Infinity).filter((k) => typeof k === "string").map(terms);
}

function contains(text, keyword) {
  const have = new Set(terms(text));
  const want = terms(keyword);
  return want.length > 0 && want.every((t) => have.has(t));
}

function vectorDistance(a, b, bruteForce, options) {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length || a.length === 0) return undefined;
  if (!a.every((x) => typeof x === "number") || !b.every((x) => typeof x === "number")) return undefined;
  const fn = String(((options || {}).distanceFunction) || "cosine").toLowerCase();
  let dot = 0; let na = 0; let nb = 0; let sq = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; sq += (a[i] - b[i]) ** 2;
  }
  if (fn === "dotproduct") return dot;
  if (fn === "euclidean") return Math.sqrt(sq);
  if (fn !== "cosine") throw badRequest(`unknown distanceFunction ${fn}`);
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Add the scalar search functions to the query engine's built-ins (once). */
function install(libDir) {
  const builtins = require(require.resolve("@zeit/cosmosdb-query/lib/builtin-functions",
    { paths: [libDir] }));
  builtins.VECTORDISTANCE = vectorDistance;
  builtins.FULLTEXTCONTAINS = (text, keyword) => contains(text, keyword);
  builtins.FULLTEXTCONTAINSALL = (text, ...kws) => kws.flat().every((k) => contains(text, k));
  builtins.FULLTEXTCONTAINSANY = (text, ...kws) => kws.flat().some((k) => contains(text, k));
  const onlyInRank = (name) => () => {
    throw badRequest(`${name} can only be used in an ORDER BY RANK clause or as an argument of RRF`);
  };
  builtins.FULLTEXTSCORE = onlyInRank("FullTextScore");
  builtins.RRF = onlyInRank("RRF");
}

// ---- a small reader of our query shapes ---------------------------------------------------

/** Offsets of top-level (outside strings and brackets) occurrences of `word` in `sql`. */
function topLevel(sql, word) {
  const found = [];
  let depth = 0; let quote = null;
  const re = new RegExp(`^${word}\\b`, "i");
  for (let i = 0; i < sql.length; i += 1) {
    const ch = sql[i];
    if (quote) { if (ch === "\\") i += 1; else if (ch === quote) quote = null; continue; }
    if (ch === "'" || ch === '"') quote = ch;
    else if ("([{".includes(ch)) depth += 1;
    else if (")]}".includes(ch)) depth -= 1;
    else if (depth === 0 && /\s/.test(sql[i - 1] || " ") && re.test(sql.slice(i))) found.push(i);
  }
  return found;
}

function splitArgs(text) {
  const args = []; let depth = 0; let quote = null; let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (quote) { if (ch === "\\") i += 1; else if (ch === quote) quote = null; continue; }
    if (ch === "'" || ch === '"') quote = ch;
    else if ("([{".includes(ch)) depth += 1;
    else if (")]}".includes(ch)) depth -= 1;
    else if (ch === "," && depth === 0) { args.push(text.slice(start, i).trim()); start = i + 1; }
  }
  if (text.trim()) args.push(text.slice(start).trim());
  return args;
}

/** `Name(arg, ...)` -> {name, args} (upper-cased name), or null for anything else. */
function call(expr) {
  const m = /^([A-Za-z_]\w*)\s*\(([\s\S]*)\)$/.exec(expr.trim());
  return m ? { name: m[1].toUpperCase(), args: splitArgs(m[2]) } : null;
}

function parse(sql) {
  const text = sql.trim();
  const from = topLevel(text, "FROM")[0];
  if (!/^SELECT\b/i.test(text) || from === undefined) throw badRequest("unsupported search query");
  let select = text.slice(6, from).trim();
  let top = null;
  const topMatch = /^TOP\s+(\d+|@\w+)\s+/i.exec(select);
  if (topMatch) { top = topMatch[1]; select = select.slice(topMatch[0].length); }
  const where = topLevel(text, "WHERE")[0];
  const order = topLevel(text, "ORDER")[0];
  const sourceEnd = [where, order].filter((x) => x !== undefined)[0] ?? text.length;
  const source = text.slice(from + 4, sourceEnd).trim();
  const condition = where === undefined ? null : text.slice(where + 5, order ?? text.length).trim();
  let orderBy = order === undefined ? null : text.slice(order + 5).trim().replace(/^BY\s+/i, "");
  let rank = false;
  if (orderBy && /^RANK\s+/i.test(orderBy)) { rank = true; orderBy = orderBy.replace(/^RANK\s+/i, ""); }
  if (orderBy) orderBy = orderBy.replace(/\s+(ASC|DESC)$/i, "");
  return { select, top, source, condition, orderBy, rank };
}

// ---- scoring ---------------------------------------------------------------------------------

/** The scoring components of an ORDER BY expression and the RRF weights (null: one score). */
function components(orderBy) {
  const c = call(orderBy);
  if (!c) return null;
  if (c.name === "RRF") {
    let args = c.args;
    let weights = null;
    if (args.length && !call(args[args.length - 1])) { weights = args[args.length - 1]; args = args.slice(0, -1); }
    const parts = args.map(call);
    if (parts.length < 2 || parts.some((p) => !p || !["VECTORDISTANCE", "FULLTEXTSCORE"].includes(p.name))) {
      throw badRequest("RRF takes two or more VectorDistance/FullTextScore scores and optional weights");
    }
    return { parts, weights };
  }
  if (c.name === "VECTORDISTANCE" || c.name === "FULLTEXTSCORE") return { parts: [c], weights: null };
  return null;
}

function evaluate(collection, alias, expr, parameters, docs) {
  const sql = `SELECT VALUE ${expr} FROM ${alias}`;
  return common.execQuery(collection, sql, parameters, docs, {}).result;
}

function bm25Scorer(collection, alias, path, parameters, scope) {
  const texts = evaluate(collection, alias, path, parameters, scope).filter((t) => typeof t === "string");
  const counts = texts.map(terms);
  const n = counts.length;
  const avg = n ? counts.reduce((s, c) => s + c.length, 0) / n : 0;
  const df = new Map();
  for (const doc of counts) for (const t of new Set(doc)) df.set(t, (df.get(t) || 0) + 1);
  return (text, keywords) => {
    const words = terms(text);
    const query = [...new Set(keywordTerms(keywords).flat())];
    let score = 0; let hits = 0;
    for (const t of query) {
      const tf = words.filter((w) => w === t).length;
      if (!tf) continue;
      hits += 1;
      const nt = df.get(t) || 0;
      const idf = Math.log(1 + (n - nt + 0.5) / (nt + 0.5));
      score += idf * (tf * (K1 + 1)) / (tf + K1 * (1 - B + B * (words.length / (avg || 1))));
    }
    return hits ? score : undefined;
  };
}

/** Dense 1-based ranks of `scores` (undefined stays unranked), best first. */
function ranks(scores, higherIsBetter) {
  const order = scores.map((s, i) => [s, i]).filter(([s]) => typeof s === "number")
    .sort((x, y) => (higherIsBetter ? y[0] - x[0] : x[0] - y[0]));
  const out = new Array(scores.length).fill(undefined);
  let rank = 0; let last;
  order.forEach(([s, i], pos) => { if (pos === 0 || s !== last) rank += 1; last = s; out[i] = rank; });
  return out;
}

function run(collection, body, scope, page) {
  const { query, parameters } = body;
  const q = parse(query);
  const comp = q.orderBy ? components(q.orderBy) : null;
  if (!comp) {
    if (q.rank) throw badRequest("ORDER BY RANK takes VectorDistance, FullTextScore or RRF");
    return common.execQuery(collection, query, parameters, scope, page);
  }
  const alias = q.source.split(/\s+/).pop();
  const exprs = comp.parts.map((p) => (p.name === "VECTORDISTANCE"
    ? `${p.name}(${p.args.join(", ")})`
    : `[${p.args[0]}, [${p.args.slice(1).join(", ")}]]`));
  const where = q.condition ? ` WHERE ${q.condition}` : "";
  const rows = common.execQuery(collection,
    `SELECT VALUE [${alias}, ${exprs.join(", ")}] FROM ${q.source}${where}`, parameters, scope, {}).result;
  const scored = comp.parts.map((p, j) => {
    if (p.name === "FULLTEXTSCORE") {
      const scorer = bm25Scorer(collection, alias, p.args[0], parameters, scope);
      return { values: rows.map((r) => scorer(r[j + 1][0], r[j + 1][1])), higher: true };
    }
    const options = p.args.length >= 4 ? evaluate(collection, alias, p.args[3], parameters, [{}])[0] : {};
    const fn = String((options || {}).distanceFunction || "cosine").toLowerCase();
    return { values: rows.map((r) => r[j + 1]), higher: fn !== "euclidean" };
  });
  let keys;
  if (comp.parts.length === 1) {
    const [{ values, higher }] = scored;
    keys = values.map((v) => (typeof v === "number" ? (higher ? v : -v) : -Infinity));
  } else {
    const weights = comp.weights ? evaluate(collection, alias, comp.weights, parameters, [{}])[0] : null;
    if (weights && (!Array.isArray(weights) || weights.length !== comp.parts.length)) {
      throw badRequest("RRF weights must be an array with one number per score");
    }
    const rankLists = scored.map(({ values, higher }) => ranks(values, higher));
    keys = rows.map((_, i) => rankLists.reduce(
      (sum, r, j) => sum + (r[i] === undefined ? 0 : (weights ? weights[j] : 1) / (RRF_K + r[i])), 0));
  }
  const order = rows.map((_, i) => i).sort((a, b) => keys[b] - keys[a] || a - b);
  let top = order.length;
  if (q.top !== null) {
    top = /^\d+$/.test(q.top) ? parseInt(q.top, 10)
      : ((parameters || []).find((p) => p.name === q.top) || {}).value;
    if (!Number.isInteger(top) || top < 0) throw badRequest("TOP needs a non-negative integer");
  }
  const projectSql = `SELECT ${q.select} FROM ${q.source}`;
  const result = order.slice(0, top).map((i) => common.execQuery(
    collection, projectSql, parameters, [rows[i][0]], {}).result[0]);
  return { result, continuation: null };
}

function isSearchQuery(sql) {
  return typeof sql === "string" && SEARCH_CALL.test(sql);
}

function route() {
  return undefined; // queries reach run() through ./10_items.js, which reads the request body
}

module.exports = { install, route, run, isSearchQuery, terms, vectorDistance };
