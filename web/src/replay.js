// Replay viewer: the output folder `kaisim serve --replay OUT` was given, as per-queue timelines
// (allocation, fair share, quota, with binds and evictions), a wait ECDF per queue, and every
// pod's wait, with the story of why it waited (kaisim explain) a click away.
import uPlot from "uplot";

const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

const TEXT_COLUMNS = new Set(["queue", "resource", "QueueID"]);

function parseCsv(text) {
  const [head, ...lines] = text.trim().split("\n");
  const cols = head.split(",");
  return lines.map((line) => {
    const cells = line.split(",");
    return Object.fromEntries(cols.map((c, i) => [c, TEXT_COLUMNS.has(c) ? cells[i] : Number(cells[i])]));
  });
}

function seconds(s) {
  if (s < 600) return `${Math.round(s * 1000) / 1000} s`;
  if (s < 7200) return `${Math.round(s / 6) / 10} min`;
  return `${Math.round(s / 360) / 10} h`;
}

// Per pod life (a name can come back: re-created, or applied again): submit, bind, waits and
// causes, from events.jsonl (the same reading as kaisim explain).
function podsFrom(events, duration) {
  const lives = [];
  const current = new Map();
  const close = (p, t) => {
    if (p.open) p.causes.set(p.open.cause, (p.causes.get(p.open.cause) ?? 0) + (t - p.open.from));
    p.open = null;
  };
  for (const e of events) {
    if (e.type === "submit" || e.type === "recreate") {
      const p = { pod: e.pod, queue: e.queue, submitted: e.time_s, bound: null, end: null, causes: new Map(),
        open: { cause: "AwaitingCycle", from: e.time_s } };
      lives.push(p);
      current.set(e.pod, p);
      continue;
    }
    const p = current.get(e.pod);
    if (!p || p.end !== null) continue;
    if (e.type === "wait") {
      close(p, e.time_s);
      p.open = { cause: e.cause, from: e.time_s };
    } else if (e.type === "pipeline" && p.open?.cause !== "Pipelined") {
      close(p, e.time_s);
      p.open = { cause: "Pipelined", from: e.time_s };
    } else if (e.type === "bind") {
      close(p, e.time_s);
      p.bound = e.time_s;
      p.end = "bound";
    } else if (["delete", "gone", "lost", "complete"].includes(e.type)) {
      close(p, e.time_s);
      p.end = e.type;
    }
  }
  for (const p of lives) {
    p.censored = p.end === null;
    if (p.censored) close(p, duration);
    p.wait = (p.bound ?? (p.censored ? duration : p.submitted)) - p.submitted;
    let main = null;
    for (const [cause, s] of p.causes) {
      if (s > 0 && (cause !== "AwaitingCycle" || p.causes.size === 1) && (!main || s > p.causes.get(main))) main = cause;
    }
    p.mainCause = main ?? (p.wait > 0 ? "AwaitingCycle" : "-");
  }
  return lives;
}

// Step series of one queue's GPU columns at every time any of them changed.
function queueSeries(rows, queue, duration) {
  const mine = rows.filter((r) => r.queue === queue && r.resource === "gpu");
  const t = mine.map((r) => r.time_s);
  if (t.length && t[t.length - 1] < duration) t.push(duration);
  const pick = (key) => {
    const v = mine.map((r) => r[key]);
    if (v.length < t.length) v.push(v[v.length - 1]);
    return v;
  };
  return { t, allocated: pick("allocated"), fair: pick("fair_share"), quota: pick("quota").map((q) => (q < 0 ? null : q)) };
}

function valueAt(t, xs, ys) {
  let v = null;
  for (let i = 0; i < xs.length && xs[i] <= t; i++) v = ys[i];
  return v;
}

function timelineChart(root, queue, series, events, color, width) {
  const binds = events.filter((e) => e.queue === queue && e.type === "bind").map((e) => e.time_s);
  const evicts = events.filter((e) => e.queue === queue && e.type === "evict").map((e) => e.time_s);
  const xs = [...new Set([...series.t, ...binds, ...evicts])].sort((a, b) => a - b);
  const at = (ys) => xs.map((x) => valueAt(x, series.t, ys));
  const alloc = at(series.allocated);
  const markers = (times) => xs.map((x, i) => (times.includes(x) ? alloc[i] : null));
  const data = [xs, alloc, at(series.fair), at(series.quota), markers(binds), markers(evicts)];
  const top = Math.max(1e-9, ...data.slice(1, 4).flat().filter((v) => v !== null)) * 1.1;
  const stepped = uPlot.paths.stepped({ align: 1 });
  const box = el("div", { class: "chart", "data-queue": queue });
  root.append(box);
  return new uPlot({
    title: `${queue}: GPUs`,
    width,
    height: 220,
    legend: { live: false },
    cursor: { points: { show: false } },
    scales: { x: { time: false }, y: { range: [0, top] } },
    axes: [{ label: "virtual time (s)" }, { label: "GPU devices" }],
    series: [
      { label: "time (s)" },
      { label: "allocated", stroke: color, width: 2, paths: stepped, points: { show: false } },
      { label: "fair share", stroke: "#444", dash: [6, 4], width: 1.5, paths: stepped, points: { show: false } },
      { label: "quota", stroke: "#999", dash: [2, 3], width: 1.5, paths: stepped, points: { show: false } },
      { label: "bind (green dot)", stroke: "#2ca02c", fill: "#2ca02c", paths: () => null, points: { show: true, size: 9, fill: "#2ca02c" } },
      { label: "eviction (red dot)", stroke: "#d62728", fill: "#d62728", paths: () => null, points: { show: true, size: 12, fill: "#d62728" } },
    ],
  }, data, box);
}

// Waits as an ECDF per queue: pods bound within x seconds (whole pods); pods still pending at the
// end are counted in the title and the legend, not as bound (censored).
function ecdfChart(root, pods, queues, width) {
  const perQueue = queues.map((q) => pods.filter((p) => p.queue === q && !p.censored).map((p) => p.wait).sort((a, b) => a - b));
  const censored = queues.map((q) => pods.filter((p) => p.queue === q && p.censored).length);
  const xMax = Math.max(1, ...perQueue.flat()) * 1.1;
  const tables = perQueue.map((waits) => {
    const ux = [0], uy = [0];
    waits.forEach((x, i) => {
      if (ux[ux.length - 1] === x) uy[uy.length - 1] = i + 1;
      else { ux.push(x); uy.push(i + 1); }
    });
    if (ux[ux.length - 1] < xMax) { ux.push(xMax); uy.push(waits.length); }
    return [ux, uy];
  });
  const joined = uPlot.join(tables);
  const box = el("div", { class: "chart", id: "wait-ecdf" });
  root.append(box);
  const total = censored.reduce((a, b) => a + b, 0);
  const top = Math.max(1, ...perQueue.map((w) => w.length));
  return new uPlot({
    title: `Waits from submit to bind, ECDF per queue${total ? ` (${total} pod(s) still waiting at the end: censored, not counted)` : ""}`,
    width,
    height: 260,
    legend: { live: false },
    cursor: { points: { show: false } },
    scales: { x: { time: false, range: [0, xMax] }, y: { range: [0, top + 0.5] } },
    axes: [{ label: "wait (s)" }, { label: "pods bound within", incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] }],
    series: [{ label: "wait (s)" }, ...queues.map((q, i) => ({
      label: `${q} (${perQueue[i].length} bound${censored[i] ? `, ${censored[i]} still waiting` : ""})`,
      stroke: PALETTE[i % PALETTE.length], width: 2, spanGaps: true, points: { show: false },
      paths: uPlot.paths.stepped({ align: 1 }),
    }))],
  }, joined, box);
}

export async function mountReplay(root) {
  root.append(el("h2", {}, "Replay viewer"));
  const res = await fetch("/api/replay");
  if (!res.ok) {
    root.append(el("p", { class: "lead", id: "replay-missing" }, (await res.text()).trim()));
    return;
  }
  const data = await res.json();
  const summary = data.summary;
  const rows = parseCsv(data.timeline);
  const events = data.events.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const duration = summary.duration_s;
  const pods = podsFrom(events, duration);
  const leafQueues = [...new Set(parseCsv(data.kai_timeline).map((r) => r.QueueID))].sort();
  const width = Math.min(1100, root.clientWidth || 1000);

  root.append(el("p", { class: "lead", id: "replay-title" },
    `${summary.scenario}: ${seconds(duration)} virtual, ${summary.cycles} cycles, ${summary.cluster.gpus} GPUs, ` +
    `${summary.cluster.evictions} evictions (${data.folder})`));

  const head = ["queue", "GPU-hours", "pods bound", "wait p50", "wait p95", "wait max", "evicted", "time waited by cause"];
  const tbody = el("tbody");
  for (const [q, s] of Object.entries(summary.queues)) {
    const causes = Object.entries(s.wait_s_by_cause ?? {}).sort((a, b) => b[1] - a[1]).map(([c, v]) => `${c} ${seconds(v)}`).join(", ");
    const cell = (v) => el("td", { class: "num" }, v === null || v === undefined ? "-" : String(v));
    tbody.append(el("tr", {}, el("td", {}, q), cell(Math.round(s.gpu_hours * 1000) / 1000), cell(s.pods_bound),
      cell(s.wait_s_p50), cell(s.wait_s_p95), cell(s.wait_s_max), cell(s.evictions_suffered), el("td", {}, causes || "-")));
  }
  root.append(el("table", { class: "grid", id: "replay-summary" }, el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))), tbody));

  root.append(el("h3", {}, "Allocation, fair share and quota per queue"));
  const charts = el("div", { class: "charts" });
  root.append(charts);
  leafQueues.forEach((q, i) => timelineChart(charts, q, queueSeries(rows, q, duration), events, PALETTE[i % PALETTE.length], width));

  root.append(el("h3", {}, "Waits"));
  ecdfChart(root, pods, leafQueues, width);

  root.append(el("h3", {}, "Pods (click one to read why it waited)"));
  const explain = el("pre", { id: "explain", class: "code" }, "Click a pod.");
  const podBody = el("tbody");
  const sorted = [...pods].filter((p) => p.submitted !== null).sort((a, b) => b.wait - a.wait || a.pod.localeCompare(b.pod));
  for (const p of sorted.slice(0, 500)) {
    const tr = el("tr", { class: "pod", "data-pod": p.pod, "data-submitted": String(p.submitted) },
      el("td", {}, p.pod), el("td", {}, p.queue), el("td", { class: "num" }, seconds(p.submitted)),
      el("td", { class: "num" }, (p.censored ? "\u2265 " : "") + seconds(p.wait)), el("td", {}, p.mainCause));
    tr.addEventListener("click", async () => {
      for (const row of podBody.querySelectorAll("tr.selected")) row.classList.remove("selected");
      tr.classList.add("selected");
      const r = await fetch(`/api/explain?target=${encodeURIComponent(p.pod)}`);
      explain.textContent = await r.text();
    });
    podBody.append(tr);
  }
  const podTable = el("table", { class: "grid pods", id: "replay-pods" },
    el("thead", {}, el("tr", {}, ...["pod", "queue", "submitted", "waited", "main cause"].map((h) => el("th", {}, h)))), podBody);
  root.append(el("div", { class: "split" }, el("div", { class: "pod-list" }, podTable), explain));
  root.dataset.ready = "1";
}
