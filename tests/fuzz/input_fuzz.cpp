// libFuzzer target for kaisim's input parsers. The first byte picks the parser, the rest is the
// document: 'c' -> a `kaisim cycle` snapshot (manifests or snapshot.json), 'f' -> a fair-share
// simulator request (`kaisim fairshare`, `kaisim serve`), anything else -> a replay scenario
// with its inline manifests checked as `kaisim replay` checks them before running. Bad input must
// end in sim::Error (a located message, exit 2 in the CLI); any other exception, a crash, a leak or
// undefined behaviour is a finding.
//   build-fuzz/bin/input_fuzz -max_total_time=60 tests/fuzz/corpus

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "io/snapshot_fields.hpp"
#include "io/yaml_field.hpp"
#include "replay/scenario.hpp"
#include "sim/api/cycle_report.hpp"
#include "sim/api/fair_share_simulator.hpp"
#include "sim/core/error.hpp"

namespace {

void parse_scenario(std::string_view text) {
  sim::Diagnostics diagnostics;
  // No base folder: manifest file names fail as unreadable files, inline manifests are parsed.
  const sim::replay::Scenario sc =
      sim::replay::load_scenario_text(text, "fuzz.yaml", "/nonexistent", diagnostics);
  std::vector<sim::io::Field> docs;
  for (const sim::replay::Manifest& m : sc.manifests) docs.emplace_back(m.doc, "", &m.file);
  for (const sim::replay::Step& step : sc.steps) {
    // Generated pods (step.pods) come from checked fields; the replay does not re-check them.
    for (const sim::replay::Manifest& m : step.apply) docs.emplace_back(m.doc, "", &m.file);
  }
  (void)sim::io::build_cluster_state(docs, {}, diagnostics);
}

void answer_fair_share(std::string_view text) {
  sim::Diagnostics diagnostics;
  (void)sim::api::answer_simulate_request(text, "fuzz.json", false, diagnostics);
}

void run_cycle(std::string_view text) {
  sim::Diagnostics diagnostics;
  (void)sim::api::run_cycle_report({{std::string(text), "fuzz.yaml"}}, {}, diagnostics);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] == 'c') {
      run_cycle(text);
    } else if (data[0] == 'f') {
      answer_fair_share(text);
    } else {
      parse_scenario(text);
    }
  } catch (const sim::Error&) {
    // The expected outcome for bad input.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "input_fuzz: escaped exception: %s\n", e.what());
    std::abort();
  }
  return 0;
}
