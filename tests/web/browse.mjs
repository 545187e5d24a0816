// Drives Debian's Chromium headless through playwright-core (from web/node_modules) against a
// running `kaisim serve`, and prints what the page shows as one JSON object for the pytest side
// (tests/cli/test_web_view.py) to check. Screenshots go to OUT_DIR.
//   node tests/web/browse.mjs http://127.0.0.1:PORT calculator|replay OUT_DIR [edits.json]
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../../web/package.json"));
const { chromium } = require("playwright-core");

const [base, view, outDir] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const out = { requests: [], console: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(15000);
  page.on("request", (r) => out.requests.push(r.url()));
  page.on("console", (m) => { if (m.type() === "error") out.console.push(m.text()); });
  page.on("pageerror", (e) => out.console.push(String(e)));

  if (view === "calculator") {
    await page.goto(`${base}/#calculator`);
    await page.waitForFunction(() => document.getElementById("calculator").dataset.computed);
    const shares = () => page.$$eval("td.share", (cells) => Object.fromEntries(cells.map((c) => [c.dataset.queue, c.textContent])));
    out.initial = await shares();
    out.body = JSON.parse(await page.textContent("#calc-body"));
    await page.screenshot({ path: join(outDir, "web-calculator.png"), fullPage: true });
    // Typing: queue2's weight 1 -> 3 makes the two queues equal.
    const before = await page.$eval("#calculator", (s) => s.dataset.computed);
    await page.fill('input[data-queue="queue2"][data-field="weight"]', "3");
    await page.waitForFunction((b) => document.getElementById("calculator").dataset.computed !== b, before);
    out.after_edit = await shares();
    out.body_after_edit = JSON.parse(await page.textContent("#calc-body"));
  } else {
    await page.goto(`${base}/#replay`);
    await page.waitForFunction(() => document.getElementById("replay").dataset.ready === "1");
    out.title = await page.textContent("#replay-title");
    out.charts = await page.$$eval(".chart[data-queue]", (els) => els.map((e) => e.dataset.queue));
    out.legend = await page.$$eval(".chart[data-queue] .u-legend .u-label", (els) => [...new Set(els.map((e) => e.textContent))]);
    out.pods = await page.$$eval("tr.pod", (rows) => rows.map((r) => r.dataset.pod));
    const target = process.env.CLICK_POD;
    if (target) {
      await page.click(`tr.pod[data-pod="${target}"]`);
      await page.waitForFunction(() => document.getElementById("explain").textContent !== "Click a pod.");
      out.explain = await page.textContent("#explain");
    }
    await page.screenshot({ path: join(outDir, "web-replay.png"), fullPage: true });
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
