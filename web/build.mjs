// Bundles the web view into OUT (default: dist/): index.html, app.js (the app with uPlot) and
// app.css. `kaisim` embeds these files at build time (cmake/WebAssets.cmake).
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, "dist");
mkdirSync(out, { recursive: true });

await build({
  entryPoints: { app: join(here, "src/main.js") },
  bundle: true,
  minify: true,
  format: "iife",
  target: ["chrome110", "firefox110", "safari16"],
  outdir: out,
  loader: { ".css": "css" },
  legalComments: "none",
  logLevel: "warning",
});
copyFileSync(join(here, "src/index.html"), join(out, "index.html"));
