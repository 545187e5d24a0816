// Fair-share calculator: edit a queue tree, and each queue's fair share comes back from this
// kaisim's POST /simulate (KAI v0.16.4's fair-share simulator) as you type.

const START = {
  // KAI's fair-share simulator README example: two queues, 100 GPUs, weights 3 and 1 -> 70 / 30.
  totalGpu: 100,
  totalCpu: 16000,
  totalMemory: 32000000,
  queues: [
    { uid: "queue1", name: "test-queue", parent: "", priority: 0, quota: 10, limit: "", weight: 3, request: 100 },
    { uid: "queue2", name: "test-queue2", parent: "", priority: 0, quota: 10, limit: "", weight: 1, request: 100 },
  ],
};

const COLUMNS = [
  ["uid", "queue", "text"],
  ["parent", "parent", "text"],
  ["priority", "priority", "number"],
  ["quota", "GPU quota", "number"],
  ["limit", "GPU limit", "number"],
  ["weight", "weight", "number"],
  ["request", "GPU request", "number"],
];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// The body of KAI's POST /simulate for the tree as edited (parentQueue is kaisim's extension).
export function requestBody(state) {
  return {
    totalResource: { GPU: Number(state.totalGpu), CPU: state.totalCpu, Memory: state.totalMemory },
    queues: state.queues.map((q) => {
      const gpu = { deserved: Number(q.quota), request: Number(q.request), overQuotaWeight: Number(q.weight) };
      if (q.limit !== "" && q.limit !== null) gpu.maxAllowed = Number(q.limit);
      const queue = { uid: q.uid, name: q.name ?? q.uid, priority: Number(q.priority), resourceShare: { gpu } };
      if (q.parent) queue.parentQueue = q.parent;
      return queue;
    }),
  };
}

export function mountCalculator(root) {
  const state = structuredClone(START);
  let pending = null;
  let seq = 0;

  const total = el("input", { type: "number", id: "total-gpu", min: "0", step: "any", value: state.totalGpu });
  total.addEventListener("input", () => {
    state.totalGpu = total.value;
    schedule();
  });
  const tbody = el("tbody");
  const status = el("p", { class: "status", id: "calc-status" });
  const bars = el("div", { class: "bars", id: "calc-bars" });
  const body = el("pre", { id: "calc-body", class: "code" });
  const copy = el("button", { type: "button", id: "calc-copy" }, "Copy body");
  copy.addEventListener("click", () => navigator.clipboard?.writeText(body.textContent));
  const add = el("button", { type: "button", id: "calc-add" }, "Add queue");
  add.addEventListener("click", () => {
    let n = state.queues.length + 1;
    while (state.queues.some((q) => q.uid === `queue${n}`)) n++;
    state.queues.push({ uid: `queue${n}`, name: `queue${n}`, parent: "", priority: 0, quota: 0, limit: "", weight: 1, request: 0 });
    renderRows();
    schedule();
  });

  root.append(
    el("h2", {}, "Fair-share calculator"),
    el("p", { class: "lead" },
      "Edit the queues: each queue's GPU fair share is recomputed by this kaisim (KAI v0.16.4's rules) as you type. ",
      "Quota is guaranteed; what is left goes by priority, then in proportion to weight, capped by limit and request. ",
      "A parent queue's share is divided among its children."),
    el("label", {}, "Cluster GPUs ", total),
    el("table", { class: "grid", id: "calc-table" },
      el("thead", {}, el("tr", {}, ...COLUMNS.map(([, label]) => el("th", {}, label)), el("th", {}, "fair share"), el("th", {}))),
      tbody),
    add,
    status,
    bars,
    el("h3", {}, "POST /simulate body"),
    el("p", { class: "note" }, "Send it to this server or to KAI's fair-share simulator: ",
      el("code", {}, `curl -s -X POST ${location.origin}/simulate -d @body.json`)),
    copy,
    body,
  );

  function renderRows() {
    tbody.replaceChildren();
    state.queues.forEach((q, i) => {
      const cells = COLUMNS.map(([key, , type]) => {
        const input = el("input", { type, value: q[key] ?? "", "data-queue": q.uid, "data-field": key });
        if (type === "number") input.step = "any";
        if (key === "limit") input.placeholder = "none";
        if (key === "parent") input.placeholder = "top level";
        input.addEventListener("input", () => {
          q[key] = input.value;
          if (key === "uid") q.name = input.value;
          schedule();
        });
        return el("td", {}, input);
      });
      const share = el("td", { class: "num share", "data-queue": q.uid, "data-field": "fairshare" }, "…");
      const remove = el("button", { type: "button", class: "small", title: "remove" }, "\u00d7");
      remove.addEventListener("click", () => {
        state.queues.splice(i, 1);
        renderRows();
        schedule();
      });
      tbody.append(el("tr", {}, ...cells, share, el("td", {}, remove)));
    });
  }

  function schedule() {
    clearTimeout(pending);
    pending = setTimeout(compute, 120);
  }

  async function compute() {
    const request = requestBody(state);
    body.textContent = JSON.stringify(request, null, 2);
    const mine = ++seq;
    let text;
    let ok;
    try {
      const res = await fetch("/simulate", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request) });
      text = await res.text();
      ok = res.ok;
    } catch (e) {
      text = String(e);
      ok = false;
    }
    if (mine !== seq) return;  // a newer edit is on its way
    if (!ok) {
      status.textContent = text.trim();
      status.classList.add("error");
      return;
    }
    status.textContent = "";
    status.classList.remove("error");
    const shares = JSON.parse(text);
    for (const cell of tbody.querySelectorAll("td.share")) {
      const s = shares[cell.dataset.queue];
      cell.textContent = s ? String(s.gpu) : "-";
    }
    drawBars(shares);
    root.dataset.computed = String(mine);
  }

  function drawBars(shares) {
    const total = Math.max(Number(state.totalGpu) || 0, 1e-9);
    bars.replaceChildren(el("div", { class: "legend" },
      el("span", { class: "swatch share" }), "fair share ",
      el("span", { class: "swatch quota" }), "quota ",
      el("span", { class: "swatch request" }), "request (GPUs, scale: the cluster)"));
    for (const q of state.queues) {
      const s = shares[q.uid];
      if (!s) continue;
      const pct = (v) => `${Math.max(0, Math.min(100, (100 * Number(v)) / total))}%`;
      bars.append(el("div", { class: "bar-row" },
        el("span", { class: "bar-label" }, (q.parent ? "\u2003" : "") + q.uid),
        el("span", { class: "bar-track" },
          el("span", { class: "bar request", style: `width:${pct(q.request)}` }),
          el("span", { class: "bar share", style: `width:${pct(s.gpu)}` }),
          el("span", { class: "bar quota", style: `left:${pct(q.quota)}` })),
        el("span", { class: "bar-value" }, String(s.gpu))));
    }
  }

  renderRows();
  compute();
}
