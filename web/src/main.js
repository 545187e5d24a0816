// The web view of `kaisim serve`: a fair-share calculator and a replay viewer, one page, two tabs.
import "uplot/dist/uPlot.min.css";
import "./style.css";
import { mountCalculator } from "./calculator.js";
import { mountReplay } from "./replay.js";

const views = {
  calculator: { mount: mountCalculator, mounted: false },
  replay: { mount: mountReplay, mounted: false },
};

function show() {
  const name = location.hash.slice(1) in views ? location.hash.slice(1) : "calculator";
  for (const [key, view] of Object.entries(views)) {
    const section = document.getElementById(key);
    section.hidden = key !== name;
    document.getElementById(`tab-${key}`).classList.toggle("active", key === name);
    if (key === name && !view.mounted) {
      view.mounted = true;
      view.mount(section);
    }
  }
}

window.addEventListener("hashchange", show);
show();
