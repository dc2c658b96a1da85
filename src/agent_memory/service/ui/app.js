// agent-memory inspector: a small page over the service's REST API (/v1).
//
// Every record shown comes from the API with the user's key (sessionStorage, this tab only).
// Text is always inserted with textContent (el() below), never as HTML, so record contents
// cannot inject markup or script.
"use strict";

const KEY_ITEM = "agent-memory.api-key";
const PAGE = 100;

// The REST routes the page uses, in one place.
const u = (user) => `/v1/users/${encodeURIComponent(user)}`;
const ROUTES = {
  me: () => "/v1/me",
  threads: (user) => `${u(user)}/threads`,
  thread: (user, thread) => `${u(user)}/threads/${encodeURIComponent(thread)}/turns`,
  memories: (user) => `${u(user)}/memories`,
  memory: (user, id) => `${u(user)}/memories/${encodeURIComponent(id)}`,
  history: (user, id) => `${u(user)}/facts/${encodeURIComponent(id)}/history`,
  restore: (user, id) => `${u(user)}/facts/${encodeURIComponent(id)}/restore`,
  profile: (user) => `${u(user)}/profile`,
  search: (user) => `${u(user)}/search`,
  sessions: (user) => `${u(user)}/sessions`,
  jobs: (user) => `${u(user)}/jobs`,
};

const state = { user: null, tab: "threads" };
const $ = (id) => document.getElementById(id);

// -- DOM -------------------------------------------------------------------------------------

/** An element with attributes/handlers and children (strings become text nodes). */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function fill(target, ...children) {
  target.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined));
}

const linkButton = (label, onclick, attrs = {}) =>
  el("button", { type: "button", class: "link", onclick, ...attrs }, label);

const when = (iso) => (iso ? iso.replace("T", " ").replace(/\.\d+/, "").replace("Z", " UTC") : "");
const num = (x, digits = 4) => (typeof x === "number" ? x.toFixed(digits) : "");
const badge = (text, cls = "") => el("span", { class: `badge ${cls}` }, text);

function table(headers, rows) {
  return el("table", {},
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows));
}

// -- API -------------------------------------------------------------------------------------

class ApiError extends Error {}

/** Calls the API with the key; returns parsed JSON (null for 204); throws ApiError whose
 *  message is built from the RFC 9457 problem details the service answers with. */
async function api(method, path, body, query) {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    if (value === null || value === undefined || value === "") continue;
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, one);
  }
  const headers = { Accept: "application/json, application/problem+json" };
  const key = sessionStorage.getItem(KEY_ITEM);
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(`The service cannot be reached (${err.message}).`);
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) throw new ApiError(problemMessage(response, data, text));
  return data;
}

function problemMessage(response, problem, text) {
  if (!problem || typeof problem !== "object") {
    return `${response.status} ${response.statusText}${text ? `: ${text.slice(0, 300)}` : ""}`;
  }
  const lines = [`${problem.status || response.status} ${problem.title || response.statusText}`
    + (problem.detail ? `: ${problem.detail}` : "")];
  for (const err of problem.errors || []) {
    lines.push(`  ${(err.loc || []).join(".")}: ${err.msg}`);
  }
  if (response.status === 401) lines.push("Check the API key (it may be revoked).");
  if (response.status === 404 && state.user) {
    lines.push(`Not found for user "${state.user}", or outside this key's scope.`);
  }
  return lines.join("\n");
}

function showError(err) {
  const box = $("error");
  box.textContent = err instanceof ApiError ? err.message : `Error: ${err.message || err}`;
  box.hidden = false;
}

function clearError() {
  $("error").hidden = true;
  $("error").textContent = "";
}

/** Runs an async screen action, reporting failures in the error banner. */
async function guarded(action) {
  clearError();
  try {
    await action();
  } catch (err) {
    showError(err);
  }
}

// -- key and user ----------------------------------------------------------------------------

function showKeyState() {
  const key = sessionStorage.getItem(KEY_ITEM);
  $("key-form").hidden = Boolean(key);
  $("key-state").hidden = !key;
  $("main").hidden = !key;
  if (key) $("key-label").textContent = `Key ${key.slice(0, 15)}… (this tab only)`;
}

const RECENT_ITEM = "agent-memory.recent-users";

/** Fills the user picker: the key's own user ids when the service states the caller's scope
 *  (``GET /v1/me``), plus the users opened before in this tab; otherwise it is a text field. */
async function loadUsers() {
  const recent = JSON.parse(sessionStorage.getItem(RECENT_ITEM) || "[]");
  let scope = null;
  try {
    scope = await api("GET", ROUTES.me());
  } catch (err) {
    if (err instanceof ApiError && /^401/.test(err.message)) throw err;
  }
  const users = [...new Set([...((scope && scope.users) || []), ...recent])];
  fill($("user-list"), users.map((id) => el("option", { value: id })));
  let note = "";
  if (scope && scope.admin) note = `tenant ${scope.tenant}: every user`;
  else if (scope && scope.user_prefix) note = `tenant ${scope.tenant}: users "${scope.user_prefix}…"`;
  else if (scope) note = `tenant ${scope.tenant}: ${(scope.users || []).length} users`;
  $("scope-note").textContent = note;
  if (scope && !scope.admin && !scope.user_prefix && (scope.users || []).length === 1
      && !$("user-id").value) {
    $("user-id").value = scope.users[0];
  }
}

function rememberUser(user) {
  const recent = JSON.parse(sessionStorage.getItem(RECENT_ITEM) || "[]");
  const next = [user, ...recent.filter((id) => id !== user)].slice(0, 20);
  sessionStorage.setItem(RECENT_ITEM, JSON.stringify(next));
  if (![...$("user-list").options].some((o) => o.value === user)) {
    $("user-list").append(el("option", { value: user }));
  }
}

function openUser(user) {
  state.user = user;
  rememberUser(user);
  $("tabs").hidden = false;
  fill($("detail"));
  showTab(state.tab);
}

/** Shows a tab: its screen is built in a detached element and swapped in when ready, unless
 *  another tab (or user) was chosen meanwhile, so a slow answer never overwrites a newer one. */
function showTab(tab) {
  state.tab = tab;
  const token = (state.render = (state.render || 0) + 1);
  for (const button of document.querySelectorAll("#tabs button")) {
    button.setAttribute("aria-selected", String(button.dataset.tab === tab));
  }
  fill($("view"), el("p", { class: "muted" }, "Loading…"));
  const view = el("div", {});
  guarded(async () => {
    try {
      await SCREENS[tab](view);
    } finally {
      if (token === state.render) fill($("view"), view);
    }
  });
}

// -- threads and turns -----------------------------------------------------------------------

async function threadsScreen(view) {
  const ids = await api("GET", ROUTES.threads(state.user));
  fill(view,
    el("h2", {}, `Threads of ${state.user}`),
    ids.length === 0 ? el("p", { class: "muted" }, "No threads.") :
      el("ul", { id: "thread-list" }, ids.map((id) => el("li", {},
        linkButton(id, () => guarded(() => showThread(id)), { "data-thread": id })))));
}

async function showThread(threadId, highlight) {
  const list = await api("GET", ROUTES.thread(state.user, threadId));
  fill($("detail"),
    el("h2", {}, `Thread ${threadId}`),
    el("p", { class: "muted" }, `${list.length} turns`),
    list.map((turn) => turnCard(turn, turn.id === highlight)));
  const marked = $("detail").querySelector(".highlight");
  if (marked) marked.scrollIntoView({ block: "center" });
}

function turnCard(turn, highlight) {
  return el("div", { class: `turn ${turn.role}${highlight ? " highlight" : ""}`,
                     "data-turn": turn.id },
    el("div", { class: "meta" },
      `#${turn.seq} · ${turn.speaker || turn.role} · ${when(turn.created_at)} · ${turn.id}`),
    el("div", { class: "content" }, turn.content));
}

async function showTurn(turnId) {
  const turn = await api("GET", ROUTES.memory(state.user, turnId));
  fill($("detail"),
    el("h2", { id: "turn-title" }, "Evidence turn"),
    turnCard(turn, false),
    turn.thread_id ? el("p", {}, linkButton(`Open thread ${turn.thread_id}`,
      () => guarded(() => showThread(turn.thread_id, turn.id)))) : null);
}

const evidenceLinks = (ids) => el("span", { class: "evidence" },
  (ids || []).map((id, i) => [i ? ", " : "",
    linkButton(id, () => guarded(() => showTurn(id)), { "data-evidence": id })]));

// -- facts, insights, history, restore -------------------------------------------------------

async function factsScreen(view) {
  const toggle = el("input", { type: "checkbox", id: "show-superseded" });
  toggle.checked = Boolean(state.showSuperseded);
  const body = el("tbody", {});
  const more = el("button", { type: "button", id: "facts-more", hidden: true }, "More");
  const count = el("span", { class: "muted", id: "facts-count" });
  // valid time: the facts that held on a day (end of that day, UTC), or the current ones
  const asOf = el("input", { type: "date", id: "facts-as-of", value: state.factsAsOf || "" });
  let cursor = null;
  let shown = 0;
  const load = async () => {
    const params = {
      kind: ["fact", "insight"], include_superseded: toggle.checked, newest_first: true,
      limit: PAGE, cursor,
    };
    if (asOf.value) params.as_of = `${asOf.value}T23:59:59Z`;
    const page = await api("GET", ROUTES.memories(state.user), undefined, params);
    const records = page.records;
    body.append(...records.map(factRow));
    shown += records.length;
    cursor = page.cursor || null;
    more.hidden = !cursor;
    count.textContent = `${shown} shown${cursor ? " (more available)" : ""}`;
  };
  toggle.addEventListener("change", () => {
    state.showSuperseded = toggle.checked;
    showTab("facts");
  });
  asOf.addEventListener("change", () => {
    state.factsAsOf = asOf.value;
    showTab("facts");
  });
  more.addEventListener("click", () => guarded(load));
  fill(view,
    el("h2", {}, `Facts and insights of ${state.user}`),
    el("div", { class: "toolbar" },
      el("label", {}, toggle, " show superseded"), " ",
      el("label", {}, "valid on ", asOf), count),
    el("table", { id: "facts" },
      el("thead", {}, el("tr", {}, ["Fact", "Kind", "Subject", "Category", "Conf.", "Valid",
        "Status", "Evidence", ""].map((h) => el("th", {}, h)))),
      body),
    more);
  await load();
}

function status(fact) {
  return fact.superseded_by
    ? badge(`superseded (${fact.supersede_reason || "?"})`, "superseded")
    : badge(fact.pinned ? "active, pinned" : "active", "active");
}

/** A fact's valid time: "2024-01-10 → 2025-05-01", or "2024-01-10 → now" while it holds. */
function validity(fact) {
  const day = (iso) => (iso ? iso.slice(0, 10) : "?");
  return `${day(fact.valid_from || fact.created_at)} → ${fact.valid_until ? day(fact.valid_until) : "now"}`;
}

function factRow(fact) {
  return el("tr", { class: fact.superseded_by ? "superseded" : "", "data-fact": fact.id },
    el("td", {}, fact.content),
    el("td", {}, fact.kind),
    el("td", {}, fact.subject || ""),
    el("td", {}, fact.category || ""),
    el("td", { class: "num" }, num(fact.confidence, 2)),
    el("td", { class: "valid" }, validity(fact)),
    el("td", {}, status(fact)),
    el("td", {}, evidenceLinks(fact.evidence)),
    el("td", {},
      linkButton("History", () => guarded(() => showHistory(fact.id)), { class: "link history" }),
      fact.superseded_by ? [" ", restoreButton(fact.id)] : null));
}

function restoreButton(factId) {
  return el("button", {
    type: "button", class: "restore", "data-restore": factId,
    onclick: () => guarded(async () => {
      const restored = await api("POST", ROUTES.restore(state.user, factId));
      for (const row of document.querySelectorAll(`#facts tr[data-fact="${CSS.escape(factId)}"]`)) {
        row.replaceWith(factRow(restored));
      }
      await showHistory(factId);
    }),
  }, "Restore");
}

function factCard(fact, label) {
  return el("div", { class: "card", "data-fact": fact.id },
    el("div", { class: "meta" }, label ? `${label} · ` : "", fact.kind, " · ", fact.id, " · ",
      when(fact.created_at), " · valid ", validity(fact), " ", status(fact)),
    el("div", {}, fact.content),
    el("div", { class: "meta" }, "evidence: ", evidenceLinks(fact.evidence)),
    el("div", {}, linkButton("History", () => guarded(() => showHistory(fact.id))),
      fact.superseded_by ? [" ", restoreButton(fact.id)] : null));
}

/** The reasoner's stated grounds for a supersede decision, e.g. "cosine 0.939, ...". */
function why(evidence) {
  if (!evidence) return null;
  const parts = [evidence.reasoner, evidence.rationale].filter(Boolean);
  return parts.length ? `: ${parts.join(": ")}` : null;
}

async function showHistory(factId) {
  const history = await api("GET", ROUTES.history(state.user, factId));
  const fact = history.fact;
  const events = history.events || [];
  fill($("detail"),
    el("h2", { id: "history-title" }, "Fact history"),
    factCard(fact, "this fact"),
    fact.superseded_by ? el("p", { class: "meta", id: "retired" },
      `Retired ${when(fact.superseded_at)} (${fact.supersede_reason || "?"}) by `,
      linkButton(fact.superseded_by, () => guarded(() => showHistory(fact.superseded_by))),
      why(fact.supersede_evidence)) : null,
    el("h3", {}, "Replaced by"),
    history.replaced_by.length ? history.replaced_by.map((f) => factCard(f))
      : el("p", { class: "muted" }, "Nothing: the fact is active."),
    el("h3", {}, "It replaced"),
    history.replaced.length ? history.replaced.map((f) => factCard(f))
      : el("p", { class: "muted" }, "Nothing."),
    el("h3", {}, "Audit events"),
    events.length ? table(["At", "Action", "By", "Records", "Reason"],
      events.map((e) => el("tr", { class: "event" },
        el("td", {}, when(e.at)), el("td", {}, e.action), el("td", {}, e.by || ""),
        el("td", {}, (e.ids || []).join(", ")), el("td", {}, e.reason || ""))))
      : el("p", { class: "muted" }, "No events."));
}

// -- profile, sessions, jobs -----------------------------------------------------------------

async function profileScreen(view) {
  // one profile per person of the user's threads: the user's, and each other speaker's
  const page = await api("GET", ROUTES.memories(state.user), undefined,
    { kind: "profile", limit: PAGE });
  const people = page.records.map((p) => p.subject).filter((s) => s);
  const subject = people.includes(state.subject) ? state.subject : null;
  let profile = null;
  try {
    profile = await api("GET", ROUTES.profile(state.user), undefined, { subject });
  } catch (err) {
    if (!(err instanceof ApiError && /^404/.test(err.message))) throw err;
  }
  const pick = people.length > 1 ? el("p", { id: "profile-people" }, "People: ",
    people.map((name) => linkButton(name, () => { state.subject = name; showTab("profile"); },
      { "data-subject": name, "aria-current": profile && profile.subject === name }))) : null;
  if (!profile) {
    fill(view, el("h2", {}, "Profile"), pick, el("p", { class: "muted" }, "No profile yet."));
    return;
  }
  const covers = profile.covers_from
    ? ` · conversation time ${when(profile.covers_from)} to ${when(profile.covers_until)}` : "";
  fill(view,
    el("h2", {}, `Profile of ${profile.subject || state.user}`),
    pick,
    el("p", { class: "meta muted" }, `updated ${when(profile.updated_at)}${covers}`),
    el("pre", { id: "profile-text" }, profile.content),
    (profile.fields || []).length ? [el("h3", {}, "Fields"),
      table(["field", "statements", "from facts"], profile.fields.map((f) =>
        el("tr", { "data-field": f.name }, el("td", {}, f.name), el("td", {}, f.text),
          el("td", {}, f.facts.map((id) => el("div", {}, id))))))] : null,
    profile.structured ? [el("h3", {}, "Structured profile"),
      el("pre", {}, JSON.stringify(profile.structured, null, 2))] : null,
    el("h3", {}, "Sources"),
    el("p", {}, `built from ${(profile.sources || []).length} current facts`));
}

async function sessionsScreen(view) {
  const summaries = await api("GET", ROUTES.sessions(state.user));
  fill(view,
    el("h2", {}, `Session summaries of ${state.user}`),
    summaries.length === 0 ? el("p", { class: "muted" }, "No sessions.") :
      summaries.map((s) => el("div", { class: "card", "data-summary": s.id },
        el("div", { class: "meta" },
          linkButton(s.thread_id, () => guarded(() => showThread(s.thread_id))),
          ` · ${s.status} · reflection ${s.reflection_status} · ${s.turn_count} turns · `,
          `${when(s.start_time)} – ${when(s.end_time)}`),
        (s.key_topics || []).length ? el("div", { class: "meta" },
          `topics: ${s.key_topics.join(", ")}`) : null,
        el("div", {}, s.content))));
}

async function jobsScreen(view) {
  const select = el("select", { id: "job-state" },
    ["", "queued", "running", "done", "failed"].map((s) =>
      el("option", { value: s }, s || "every state")));
  select.value = state.jobState || "";
  select.addEventListener("change", () => {
    state.jobState = select.value;
    showTab("jobs");
  });
  const list = await api("GET", ROUTES.jobs(state.user), undefined,
    { state: state.jobState || null });
  const counts = {};
  for (const job of list) counts[job.state] = (counts[job.state] || 0) + 1;
  fill(view,
    el("h2", {}, `Job queue of ${state.user}`),
    el("div", { class: "toolbar" }, el("label", {}, "State ", select),
      el("span", { class: "muted", id: "job-counts" },
        Object.entries(counts).map(([s, n]) => `${s}: ${n}`).join(" · ") || "no jobs")),
    list.length ? table(["#", "Kind", "Thread", "State", "Attempts", "Created", "Finished",
      "Last error"], list.map((j) => el("tr", {},
      el("td", { class: "num" }, j.seq), el("td", {}, j.kind), el("td", {}, j.thread_id || ""),
      el("td", {}, badge(j.state)), el("td", { class: "num" }, j.attempts),
      el("td", {}, when(j.created_at)), el("td", {}, when(j.finished_at)),
      el("td", {}, j.last_error || "")))) : null);
}

// -- search ----------------------------------------------------------------------------------

async function searchScreen(view) {
  const form = el("form", { id: "search-form" },
    el("input", { id: "search-query", placeholder: "search this user's memory",
                  value: state.query || "" }),
    el("select", { id: "search-mode" },
      ["hybrid", "vector", "text"].map((m) => el("option", { value: m }, m))),
    el("label", {}, "k ", el("input", { id: "search-k", type: "number", min: 1, max: 1000,
                                        value: 10 })),
    el("label", {}, el("input", { id: "search-superseded", type: "checkbox" }),
      " include superseded"),
    el("button", { type: "submit", class: "primary" }, "Search"));
  const results = el("div", { id: "search-results" });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(() => runSearch(form, results));
  });
  fill(view, el("h2", {}, `Search ${state.user}`), form, results);
  if (state.query) await runSearch(form, results);
}

function signalCells(signal) {
  return signal
    ? [el("td", { class: "num" }, `#${signal.rank}`),
       el("td", { class: "num" }, num(signal.score), signal.field ? ` (${signal.field})` : "")]
    : [el("td", { class: "num muted" }, "–"), el("td", { class: "num muted" }, "–")];
}

/** Runs the search the form describes (the form may not be in the document yet). */
async function runSearch(form, results) {
  const field = (id) => form.querySelector(`#${id}`);
  const query = field("search-query").value;
  state.query = query;
  const list = await api("POST", ROUTES.search(state.user), {
    query, mode: field("search-mode").value, k: Number(field("search-k").value || 10),
    include_superseded: field("search-superseded").checked,
  });
  fill(results,
    el("p", { class: "muted" }, `${list.length} hits (score: RRF sum in hybrid mode, `,
      "cosine in vector mode, BM25 in text mode; signal columns: rank and raw score)"),
    el("table", { id: "hits" },
      el("thead", {},
        el("tr", {}, el("th", { rowspan: 2 }, "#"), el("th", { rowspan: 2 }, "Score"),
          el("th", { colspan: 2 }, "Vector"), el("th", { colspan: 2 }, "Text"),
          el("th", { rowspan: 2 }, "Prior"), el("th", { rowspan: 2 }, "Record"),
          el("th", { rowspan: 2 }, "Provenance")),
        el("tr", {}, ["rank", "cosine", "rank", "BM25"].map((h) => el("th", {}, h)))),
      el("tbody", {}, list.map((hit, i) => hitRow(hit, i + 1)))));
}

function hitRow(hit, position) {
  const p = hit.provenance;
  const record = hit.record;
  const supported = Object.keys(hit.support || {});
  return el("tr", { class: `hit${record.superseded_by ? " superseded" : ""}`,
                    "data-record": record.id },
    el("td", { class: "num" }, position),
    el("td", { class: "num score" }, num(hit.score)),
    ...signalCells(hit.signals.vector).map((c) => { c.classList.add("vector"); return c; }),
    ...signalCells(hit.signals.text).map((c) => { c.classList.add("text"); return c; }),
    el("td", { class: "num" }, hit.prior === 1 ? "" : num(hit.prior, 2)),
    el("td", {}, badge(p.kind), " ", record.content,
      supported.length ? el("div", { class: "meta muted" },
        `also found through ${supported.length} derived record(s)`) : null),
    el("td", { class: "provenance" },
      el("div", {}, p.thread_id ? linkButton(p.thread_id,
        () => guarded(() => showThread(p.thread_id, p.kind === "turn" ? p.id : null))) : ""),
      el("div", { class: "meta muted" }, [p.speaker, when(p.created_at)].filter(Boolean)
        .join(" · ")),
      p.kind === "fact" || p.kind === "insight"
        ? el("div", {}, "evidence: ", evidenceLinks(p.evidence), " ",
          linkButton("history", () => guarded(() => showHistory(p.id))))
        : null));
}

const SCREENS = {
  threads: threadsScreen, facts: factsScreen, profile: profileScreen, search: searchScreen,
  sessions: sessionsScreen, jobs: jobsScreen,
};

// -- start -----------------------------------------------------------------------------------

function start() {
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = $("api-key").value.trim();
    if (!key) {
      showError(new ApiError("Enter an API key (created with `agent-memory keys create`)."));
      return;
    }
    sessionStorage.setItem(KEY_ITEM, key);
    $("api-key").value = "";
    showKeyState();
    guarded(loadUsers);
  });
  $("key-clear").addEventListener("click", () => {
    sessionStorage.removeItem(KEY_ITEM);
    sessionStorage.removeItem(RECENT_ITEM);
    state.user = null;
    $("tabs").hidden = true;
    fill($("view"));
    fill($("detail"));
    clearError();
    showKeyState();
  });
  $("user-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const user = $("user-id").value.trim();
    if (!user) {
      showError(new ApiError("Enter a user id."));
      return;
    }
    clearError();
    openUser(user);
  });
  for (const button of document.querySelectorAll("#tabs button")) {
    button.addEventListener("click", () => showTab(button.dataset.tab));
  }
  showKeyState();
  if (sessionStorage.getItem(KEY_ITEM)) guarded(loadUsers);
}

start();
