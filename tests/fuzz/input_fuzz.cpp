// libFuzzer target for kaisim's input parsers. The first byte picks the parser, the rest is the
// document: 'c' -> a `kaisim cycle` snapshot (manifests or snapshot.json), 'f' -> a fair-share
// simulator request (`kaisim fairshare`, `kaisim serve`; what the plain reader accepts, the field
// reader must read the same, without a warning), anything else -> a replay scenario
// with its inline manifests checked as `kaisim replay` checks them before running. Bad input must
// end in sim::Error (a located message, exit 2 in the CLI); any other exception, a crash, a leak or
// undefined behaviour is a finding.
//   build-fuzz/bin/input_fuzz -max_total_time=60 tests/fuzz/corpus

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "io/simulate_request_readers.hpp"
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

bool same(const std::optional<double>& a, const std::optional<double>& b) {
  return a.has_value() == b.has_value() && (!a || std::memcmp(&*a, &*b, sizeof(double)) == 0);
}

bool same(const sim::io::SimulateRequest& a, const sim::io::SimulateRequest& b) {
  if (std::memcmp(a.total.data(), b.total.data(), sizeof a.total) != 0 ||
      !same(a.k_value, b.k_value) || a.queues.size() != b.queues.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.queues.size(); ++i) {
    const sim::io::QueueOverrides& x = a.queues[i];
    const sim::io::QueueOverrides& y = b.queues[i];
    if (x.uid != y.uid || x.name != y.name || x.parent != y.parent || x.priority != y.priority ||
        x.created_ns != y.created_ns || x.path != y.path || x.where.file != y.where.file ||
        x.where.line != y.where.line || x.where.column != y.where.column) {
      return false;
    }
    for (std::size_t r = 0; r < x.shares.size(); ++r) {
      if (x.shares[r].has_value() != y.shares[r].has_value()) return false;
      if (!x.shares[r]) continue;
      const sim::io::ShareOverrides& s = *x.shares[r];
      const sim::io::ShareOverrides& t = *y.shares[r];
      if (!same(s.deserved, t.deserved) || !same(s.fair_share, t.fair_share) ||
          !same(s.max_allowed, t.max_allowed) || !same(s.over_quota_weight, t.over_quota_weight) ||
          !same(s.allocated, t.allocated) ||
          !same(s.allocated_not_preemptible, t.allocated_not_preemptible) ||
          !same(s.request, t.request) || !same(s.absolute_usage, t.absolute_usage)) {
        return false;
      }
    }
  }
  return true;
}

void answer_fair_share(std::string_view text) {
  const std::string body(text);
  // Both ways of reading in place: a copy with simdjson's padding, and the text as it is.
  std::string padded = body;
  padded.reserve(body.size() + sim::io::kReadPadding);
  for (bool in_place : {false, true}) {
    const std::optional<sim::io::SimulateRequest> plain =
        sim::io::read_plain_simulate_request(in_place ? padded : body, "fuzz.json", in_place);
    if (!plain) continue;
    sim::Diagnostics notes;
    bool agree = false;
    try {
      agree = same(*plain, sim::io::read_simulate_request_fields(body, "fuzz.json", notes)) &&
              notes.warnings.empty();
    } catch (const sim::Error& e) {
      std::fprintf(stderr, "input_fuzz: the plain reader took what the field reader refuses: %s\n",
                   e.what());
    }
    if (!agree) {
      std::fprintf(stderr, "input_fuzz: the simulator request's two readers disagree\n");
      std::abort();
    }
  }
  sim::Diagnostics diagnostics;
  (void)sim::api::answer_simulate_request(body, "fuzz.json", false, diagnostics);
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
