// weir dashboard: a single page over weir's REST API (and nothing else), polled every
// second. Routes: #/ (every job), #/jobs/<id> (one job). Drawing is in svg.js.
"use strict";

const POLL_MS = 1000;
const TOKEN_KEY = "weir-token";
const RUNNING = "RUNNING";
const VERTEX_METRICS = ["numRecordsIn", "numRecordsOut", "numRecordsInPerSecond",
  "numRecordsOutPerSecond", "currentInputWatermark", "numLateRecordsDropped"];

// --- the REST API ---------------------------------------------------------------------
async function api(path, method = "GET", body) {
  const headers = { "Content-Type": "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { method, headers,
    body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new Error(`${response.status}: ${(answer.errors || [response.statusText]).join("; ")}`);
  }
  return answer;
}

function say(text, error = false) {
  const box = document.getElementById("message");
  box.textContent = text;
  box.className = error ? "error" : "";
}

// --- formatting -------------------------------------------------------------------------
const count = (n) => (n === undefined || n === null ? "–" : Number(n).toLocaleString("en-US"));
const rate = (n) => (n === undefined || isNaN(n) ? "–" : Number(n).toFixed(1));
const short = (ms) => duration(ms).split(" ").slice(0, 2).join(" ");
const bytes = (n) => (n === undefined || n === null ? "–" : n < 1024 ? `${n} B`
  : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);

function duration(ms) {
  if (ms === undefined || ms === null || !isFinite(ms)) return "–";
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  let s = Math.round(ms / 1000);
  const parts = [];
  for (const [unit, size] of [["d", 86400], ["h", 3600], ["m", 60]]) {
    if (Math.abs(s) >= size) { parts.push(`${Math.floor(s / size)}${unit}`); s %= size; }
  }
  parts.push(`${s}s`);
  return parts.slice(0, 3).join(" ");
}

function watermarkText(ms) {
  if (ms === undefined || ms === null || ms === "None") return "No Watermark";
  return new Date(Number(ms)).toISOString().replace("T", " ").replace("Z", "");
}

const when = (ms) => (ms > 0 ? new Date(ms).toLocaleString("en-GB") : "–");

// --- actions on a job ------------------------------------------------------------------
async function awaitTrigger(path) {
  for (;;) {
    const answer = await api(path);
    if (answer.status.id === "COMPLETED") return answer.operation || {};
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function act(what, run) {
  say(`${what}…`);
  try {
    say(`${what}: ${await run()}`);
  } catch (error) {
    say(`${what} failed: ${error.message}`, true);
  }
  refresh();
}

function outcome(operation) {
  if (operation["failure-cause"]) throw new Error(operation["failure-cause"]["stack-trace"]);
  return operation.location ? `savepoint ${operation.location}` : "done";
}

const ACTIONS = {
  cancel: (job) => act(`Cancel ${job}`, async () => {
    await api(`/jobs/${job}?mode=cancel`, "PATCH");
    return "requested";
  }),
  stop: (job) => act(`Stop ${job} with a savepoint`, async () => {
    const { "request-id": id } = await api(`/jobs/${job}/stop`, "POST", {});
    return outcome(await awaitTrigger(`/jobs/${job}/savepoints/${id}`));
  }),
  savepoint: (job) => act(`Savepoint of ${job}`, async () => {
    const { "request-id": id } = await api(`/jobs/${job}/savepoints`, "POST",
                                           { "cancel-job": false });
    return outcome(await awaitTrigger(`/jobs/${job}/savepoints/${id}`));
  }),
  rescale: (job, parallelism) => act(`Rescale ${job} to ${parallelism}`, async () => {
    const { "request-id": id } = await api(
      `/jobs/${job}/rescaling?parallelism=${parallelism}`, "PATCH");
    return outcome(await awaitTrigger(`/jobs/${job}/rescaling/${id}`));
  }),
};

function actionBar(job) {
  const parallelism = el("input", { type: "number", min: 1, value: 2, "aria-label": "parallelism",
                                    class: "parallelism" });
  const confirmed = (question, action) => () => { if (confirm(question)) action(job); };
  return el("div", { class: "actions", "data-actions": job },
    el("button", { class: "cancel", onclick: confirmed(`Cancel job ${job}?`, ACTIONS.cancel) },
       "Cancel"),
    el("button", { class: "stop", onclick: confirmed(`Stop job ${job} with a savepoint?`,
                                                     ACTIONS.stop) }, "Stop with savepoint"),
    el("button", { class: "savepoint", onclick: () => ACTIONS.savepoint(job) }, "Savepoint"),
    parallelism,
    el("button", { class: "rescale", onclick: () => ACTIONS.rescale(job, parallelism.value) },
       "Rescale"));
}

function enableActions(bar, state) {
  bar.querySelectorAll("button").forEach((b) => { b.disabled = state !== RUNNING; });
}

// --- the overview -----------------------------------------------------------------------
const overview = {
  build(view) {
    view.append(el("h1", {}, "Jobs"), el("table", { id: "jobs" },
      el("thead", {}, el("tr", {}, ["Name", "Job ID", "Status", "Started", "Uptime",
        "Restarts", "Input records/s", "Actions"].map((h) => el("th", {}, h)))),
      el("tbody", {})));
  },
  async refresh() {
    const { jobs } = await api("/jobs/overview");
    const metrics = await Promise.all(jobs.map((job) => api(
      `/jobs/${job.jid}/metrics?get=numRestarts,numRecordsInPerSecond`).catch(() => [])));
    const body = document.querySelector("#jobs tbody");
    if (!body) return;
    jobs.sort((a, b) => b["start-time"] - a["start-time"]);
    jobs.forEach((job, i) => {
      const values = Object.fromEntries(metrics[i].map((m) => [m.id, m.value]));
      body.append(overviewRow(body, job, values)); // (appending keeps the sorted order)
    });
    const shown = new Set(jobs.map((j) => j.jid));
    body.querySelectorAll("tr").forEach((row) => {
      if (!shown.has(row.dataset.jobId)) row.remove();
    });
  },
};

function overviewRow(body, job, values) {
  let row = body.querySelector(`tr[data-job-id="${job.jid}"]`);
  if (!row) {
    row = el("tr", { "data-job-id": job.jid },
      el("td", { class: "name" }, el("a", { href: `#/jobs/${job.jid}` }, job.name)),
      el("td", {}, el("code", { title: job.jid }, job.jid.slice(0, 8) + "…")),
      el("td", { class: "status" }),
      el("td", { class: "started" }), el("td", { class: "uptime num" }),
      el("td", { class: "restarts num" }), el("td", { class: "input-rate num" }),
      el("td", {}, actionBar(job.jid)));
  }
  const cell = (cls) => row.querySelector(`.${cls}`);
  cell("status").textContent = job.state;
  cell("status").className = `status status-${job.state}`;
  cell("started").textContent = when(job["start-time"]);
  cell("uptime").textContent = duration(job.duration);
  cell("restarts").textContent = count(values.numRestarts);
  cell("input-rate").textContent = job.state !== RUNNING ? "–"
    : rate(values.numRecordsInPerSecond);
  enableActions(row.querySelector(".actions"), job.state);
  return row;
}

// --- one job ----------------------------------------------------------------------------
function jobPage(job) {
  return {
    build(view) {
      view.append(el("h1", { id: "job-name" }, job), el("div", { class: "facts", id: "facts" }),
        actionBar(job),
        el("h2", {}, "Operator graph"), el("div", { class: "graph", id: "graph" }),
        el("h2", {}, "Operators"), el("table", { id: "operators" }),
        el("p", { class: "note", id: "state-note" }),
        el("h2", {}, "Over time (recent micro-batches)"), el("div", { class: "plots", id: "plots" }),
        el("div", { class: "columns" },
          el("section", {}, el("h2", {}, "Checkpoints"), el("table", { id: "checkpoints" })),
          el("section", {}, el("h2", {}, "Savepoints"), el("div", { id: "savepoints" }))),
        el("h2", {}, "Key-group skew"), el("div", { id: "skew" }),
        el("h2", {}, "Exceptions"), el("div", { id: "exceptions" }));
    },
    async refresh() {
      const [details, batches, checkpoints, exceptions] = await Promise.all([
        api(`/jobs/${job}`), api(`/jobs/${job}/batches`), api(`/jobs/${job}/checkpoints`),
        api(`/jobs/${job}/exceptions`)]);
      const nodes = details.plan.nodes;
      const vertexMetrics = await Promise.all(nodes.map((n) => api(
        `/jobs/${job}/vertices/${n.id}/metrics?get=${VERTEX_METRICS.join(",")}`)));
      const metrics = new Map(nodes.map((n, i) => [n.id, Object.fromEntries(
        vertexMetrics[i].map((m) => [m.id, m.id === "currentInputWatermark" ? m.value
          : Number(m.value)]))]));
      const keyed = nodes.filter((n) => n.operator === "keyed" || n.operator === "two_input");
      const skews = await Promise.all(keyed.map((n) =>
        api(`/jobs/${job}/vertices/${n.id}/keygroups`)));
      if (!document.getElementById("graph")) return; // (left the page meanwhile)
      const last = batches.batches[batches.batches.length - 1];
      showFacts(details, checkpoints);
      enableActions(document.querySelector(`[data-actions="${job}"]`), details.state);
      replace("graph", drawGraph(nodes, (n) => vertexLines(metrics.get(n.id), last)));
      replace("operators", operatorTable(nodes, metrics, last));
      document.getElementById("state-note").textContent = "State size: the checkpoint's " +
        `(last: ${bytes(checkpoints.history[0] && checkpoints.history[0].state_size)}); ` +
        "per key group below, as each was last written since the job's process started.";
      replace("plots", plots(batches.batches, batches.durations));
      replace("checkpoints", checkpointTable(checkpoints.history.slice(0, 10)));
      replace("savepoints", savepointList(checkpoints));
      replace("skew", skewCharts(skews));
      replace("exceptions", exceptionList(exceptions.exceptionHistory.entries));
    },
  };
}

function replace(id, content) {
  const box = document.getElementById(id);
  box.replaceChildren(...(content instanceof Array ? content : [content]));
}

function showFacts(details, checkpoints) {
  document.getElementById("job-name").textContent = details.name;
  const fact = (label, value, cls) => el("span", cls ? { class: cls } : {}, el("b", {}, label),
                                        value);
  replace("facts", [
    fact("Job ID", details.jid),
    fact("Status", el("span", { class: `status status-${details.state}`, id: "job-state" },
                      details.state)),
    fact("Started", when(details["start-time"])), fact("Uptime", duration(details.duration)),
    fact("Parallelism", String(details.parallelism)),
    fact("Max parallelism", String(details.maxParallelism)),
    fact("Micro-batches", count(details["micro-batches"])),
    fact("Checkpoints", count(checkpoints.counts.completed))]);
}

function lagOf(metrics, last) {
  const watermark = metrics.currentInputWatermark;
  if (watermark === undefined || watermark === "None" || !last) return undefined;
  return last.timestamp - Number(watermark);
}

function vertexLines(m, last) {
  const hasWatermark = m.currentInputWatermark !== undefined && m.currentInputWatermark !== "None";
  return [
    ["records-in", m.numRecordsIn === undefined ? "in – (not counted)"
      : `in ${count(m.numRecordsIn)} · ${rate(m.numRecordsInPerSecond)}/s`],
    ["records-out", m.numRecordsOut === undefined ? "out – (not counted)"
      : `out ${count(m.numRecordsOut)} · ${rate(m.numRecordsOutPerSecond)}/s`],
    ["watermark", hasWatermark ? `wm ${watermarkText(m.currentInputWatermark).slice(11)}`
      : "No Watermark"],
    ["late", [hasWatermark ? `lag ${short(lagOf(m, last))}` : "",
              m.numLateRecordsDropped === undefined ? ""
                : `late dropped ${count(m.numLateRecordsDropped)}`]
      .filter(Boolean).join(" · ")]];
}

function operatorTable(nodes, metrics, last) {
  const head = el("tr", {}, ["Operator", "Kind", "Parallelism", "Records in", "In/s",
    "Records out", "Out/s", "Watermark", "Lag", "Late dropped"].map((h) => el("th", {}, h)));
  const rows = nodes.map((n) => {
    const m = metrics.get(n.id);
    return el("tr", { "data-vertex": n.id }, el("td", {}, n.description),
      el("td", {}, n.operator), el("td", { class: "num" }, String(n.parallelism)),
      el("td", { class: "num records-in" }, count(m.numRecordsIn)),
      el("td", { class: "num" }, rate(m.numRecordsInPerSecond)),
      el("td", { class: "num records-out" }, count(m.numRecordsOut)),
      el("td", { class: "num" }, rate(m.numRecordsOutPerSecond)),
      el("td", { class: "watermark" }, watermarkText(m.currentInputWatermark)),
      el("td", { class: "num" }, duration(lagOf(m, last))),
      el("td", { class: "num late" }, count(m.numLateRecordsDropped)));
  });
  return [el("thead", {}, head), el("tbody", {}, rows)];
}

function tail(d) {
  // the durations' tail in the plot's caption: median, p99, largest, stalls
  if (!d || d.p50 === null) return "Micro-batch duration";
  return `Micro-batch duration (median ${short(d.p50)}, p99 ${short(d.p99)}, largest ` +
    `${short(d.max)}, ${d.overTwiceMedian} over twice the median)`;
}

function plots(batches, durations) {
  const points = batches.map((b) => ({ t: b.timestamp, input: b.inputRowsPerSecond,
    processed: b.processedRowsPerSecond, duration: b.duration, lag: b.watermarkLag }));
  return [
    linePlot("Throughput (records/s)", points, [["input", "input"], ["processed", "processed"]],
             (v) => rate(v)),
    linePlot(tail(durations), points, [["duration", "duration"]], short),
    linePlot("Watermark lag", points, [["lag", "batch end − watermark"]], short)];
}

function checkpointTable(history) {
  const head = el("tr", {}, ["ID", "Completed", "Duration", "State size", "Records", "Status"]
    .map((h) => el("th", {}, h)));
  return [el("thead", {}, head), el("tbody", {}, history.map((c) => el("tr", {},
    el("td", {}, String(c.id)), el("td", {}, when(Date.parse(c.latest_ack_timestamp))),
    el("td", { class: "num" }, duration(c.end_to_end_duration)),
    el("td", { class: "num" }, c.state_size ? bytes(c.state_size) : "–"),
    el("td", { class: "num" }, count(c.num_input_rows)), el("td", {}, c.status))))];
}

function savepointList(checkpoints) {
  const latest = checkpoints.latest.savepoint;
  return [el("p", {}, latest ? el("code", { id: "latest-savepoint" }, latest.external_path)
                             : "No savepoint taken yet."),
          el("p", { class: "note" }, checkpoints.counts.restored
            ? "This run was restored from a savepoint." : "This run started without one.")];
}

function skewCharts(skews) {
  if (!skews.length) return el("p", { class: "note" }, "The job has no keyed operator.");
  return skews.map((s) => {
    const perGroup = (metric) => {
      const byGroup = new Map(s.keyGroups.map((g) => [g.keyGroup, g[metric]]));
      return Array.from({ length: s.maxParallelism }, (_, k) =>
        ({ label: String(k), value: byGroup.get(k) || 0 }));
    };
    const perSubtask = (metric) => s.subtasks.map((t) =>
      ({ label: `#${t.subtask}`, value: t[metric] }));
    const values = s.keyGroups.map((g) => g.numRecordsIn).filter((v) => v > 0);
    const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
    return el("div", { class: "skew", "data-vertex": s.id },
      el("p", {}, el("b", {}, s.id), ` — ${values.length} of ${s.maxParallelism} key groups ` +
        `have records; the busiest has ${values.length
          ? (Math.max(...values) / mean).toFixed(2) : "–"}× the mean of those; ` +
        `state ${bytes(s.stateSize)}.`),
      el("div", { class: "columns" },
        barChart("Records in per key group", perGroup("numRecordsIn"), "key-group", count),
        barChart("Records in per subtask", perSubtask("numRecordsIn"), "subtask", count)),
      el("div", { class: "columns" },
        barChart("State size per key group", perGroup("stateSize"), "key-group-state", bytes),
        barChart("State size per subtask", perSubtask("stateSize"), "subtask-state", bytes)));
  });
}

function exceptionList(entries) {
  if (!entries.length) return el("p", { class: "note", id: "no-exceptions" }, "No exceptions.");
  return entries.map((e) => el("div", { class: "exception" },
    el("p", {}, el("b", {}, e.exceptionName), ` at ${when(e.timestamp)}` +
      (e.taskName ? ` in ${e.taskName}` : "")),
    el("pre", { class: "trace" }, e.stacktrace)));
}

// --- routing and polling ----------------------------------------------------------------
let current = null;
let polling = false;

function route() {
  const match = location.hash.match(/^#\/jobs\/([0-9a-f]+)/);
  current = match ? jobPage(match[1]) : overview;
  const view = document.getElementById("view");
  view.replaceChildren();
  current.build(view);
  refresh();
}

async function refresh() {
  if (polling) return;
  polling = true;
  const page = current;
  try {
    const cluster = await api("/overview");
    document.getElementById("summary").textContent = `${cluster["jobs-running"]} running, ` +
      `${cluster["jobs-finished"]} finished, ${cluster["jobs-cancelled"]} cancelled, ` +
      `${cluster["jobs-failed"]} failed · ${cluster["flink-version"]}`;
    if (page === current) await page.refresh();
    const box = document.getElementById("message");
    if (box.textContent.startsWith("Cannot read")) say("");
  } catch (error) {
    say(`Cannot read the REST API: ${error.message}`, true);
  } finally {
    polling = false;
  }
}

document.getElementById("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("token").value);
  say("Token set for this browser tab.");
  refresh();
});
document.getElementById("token").value = sessionStorage.getItem(TOKEN_KEY) || "";
window.addEventListener("hashchange", route);
route();
setInterval(refresh, POLL_MS);
