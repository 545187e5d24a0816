// Runs cases of KAI's outcomes through kaisim and reports which pass: KAI v0.16.4's own action
// tests (tests/kai_cases/, converted by tools/kai-cases) and the random states of
// ../shared/kai-golden/cycle/ (KAI's real outcomes, same schema). Unit cases run one action once on
// a fresh session; single-session cases run their list of actions on one session; integration
// cases replay KAI's harness: rounds of all actions with the results written back, a match on a
// fresh session, then rounds that must keep matching.
//
//   run_kai_cases [--filter TEXT] [--verbose] [--skip-if-absent] [--baseline FILE]
//                 [--write-baseline FILE] DIR
//
// A DIR holding variants.json (map-order/) gives, per case file, every outcome KAI gave over its
// runs; a case passes when kaisim equals one of them (see check_variants_against_agree for the
// entries that name agree/'s cases). --skip-if-absent: a DIR that does not exist is reported as
// skipped (exit 77) rather than a usage error. With --baseline, exits 1 if any case listed in FILE
// fails (a regression); the last line is "kai cases: passed P of R run (S skipped for unsupported
// features, T total; KAI's exact error text not compared in E)".

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "case_loader.hpp"
#include "sim/sched/actions/actions.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/framework/invariants.hpp"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Exit code for a corpus that is not there (CTest's SKIP_RETURN_CODE).
constexpr int kSkipped = 77;

// Features kaisim does not model yet; cases that need them are reported as skipped (none now).
const std::set<std::string> kUnsupported = {};
// Cases that also expect KAI's exact fit-error text: their decisions are checked, the text is not
// (kaisim words its reasons itself); the summary counts them.
const std::string kErrorText = "error-message";

// Runs one action; in Debug and sanitizer builds the session's invariants are checked after it.
void run_action(sim::sched::Session& ssn, const sim::sched::InvariantChecker& invariants,
                const std::string& action) {
  ssn.action = action;
  if (action == "allocate")
    sim::sched::run_allocate(ssn);
  else if (action == "reclaim")
    sim::sched::run_reclaim(ssn);
  else if (action == "preempt")
    sim::sched::run_preempt(ssn);
  else if (action == "consolidation")
    sim::sched::run_consolidation(ssn);
  else if (action == "stalegangeviction")
    sim::sched::run_stale_gang_eviction(ssn);
  else
    throw std::runtime_error("unknown action " + action);
  invariants.check(ssn, action);
}

const std::vector<std::string> kAllActions = {"allocate", "consolidation", "reclaim", "preempt",
                                              "stalegangeviction"};

std::vector<std::string> run_unit(const json& c, const std::string& action) {
  sim::model::ClusterState state = kai_cases::build_state(c, kai_cases::initial_pods(c));
  sim::sched::Session ssn = sim::sched::open_session(state);
  const sim::sched::InvariantChecker invariants(ssn);
  run_action(ssn, invariants, action);
  return kai_cases::check(c.at("expect"), ssn, ssn.binds.size(), ssn.evictions.size(),
                          ssn.pipelines.size());
}

// A test that runs several actions, in its own order, on one session, then matches.
std::vector<std::string> run_single_session(const json& c) {
  sim::model::ClusterState state = kai_cases::build_state(c, kai_cases::initial_pods(c));
  sim::sched::Session ssn = sim::sched::open_session(state);
  const sim::sched::InvariantChecker invariants(ssn);
  for (const json& action : c.at("actions")) run_action(ssn, invariants, action.get<std::string>());
  return kai_cases::check(c.at("expect"), ssn, ssn.binds.size(), ssn.evictions.size(),
                          ssn.pipelines.size());
}

// One round of KAI's integration harness: a fresh session, every action, then the write-back (pod
// statuses, and DRA claim statuses as the session's DRA manager holds them).
// Every round's session gets its own mock cache, so the bind/evict/pipeline limits are per round;
// `errors` receives the limit violations, plus the expectation mismatches when `match` is set.
// New shared-GPU group ids continue from the last round's (`next_gpu_group`), as a replay carries
// them: KAI's are UUIDs, so a group written back to a pod is never handed out again.
void round(json& c, std::map<std::string, kai_cases::PodState>& pods, bool match,
           std::vector<std::string>& errors, std::uint64_t& next_gpu_group) {
  sim::model::ClusterState state = kai_cases::build_state(c, pods);
  state.next_gpu_group = next_gpu_group;
  sim::sched::Session ssn = sim::sched::open_session(state);
  const sim::sched::InvariantChecker invariants(ssn);
  for (const std::string& action : kAllActions) run_action(ssn, invariants, action);
  errors = kai_cases::check(c.at("expect"), ssn, ssn.binds.size(), ssn.evictions.size(),
                            ssn.pipelines.size());
  if (!match) {
    std::erase_if(errors,
                  [](const std::string& e) { return e.find("exceeded") == std::string::npos; });
  }
  std::set<std::string> deleted_jobs;
  for (const json& j : c.at("jobs")) {
    if (j.value("delete_job_in_test", false)) deleted_jobs.insert(j.at("name").get<std::string>());
  }
  next_gpu_group = state.next_gpu_group;
  kai_cases::write_back_claims(state, c);
  for (const sim::model::Task& task : state.tasks) {
    kai_cases::PodState& p = pods.at(task.name);
    const std::string node = task.node.valid() ? state.nodes[task.node].name : "";
    switch (task.status) {
      case sim::model::TaskStatus::RELEASING:
        if (deleted_jobs.contains(state.jobs[task.job].name)) {
          p = {"Releasing", node, task.gpu_groups};
        } else {
          p.status = "Pending";
          p.node.clear();
        }
        break;
      case sim::model::TaskStatus::PIPELINED:
        p.status = "Pending";
        p.node.clear();
        break;
      case sim::model::TaskStatus::BINDING:
        p = {"Running", node, task.gpu_groups};
        break;
      default:
        p = {std::string(sim::model::to_string(task.status)), node, task.gpu_groups};
    }
  }
}

std::vector<std::string> run_integration(const json& original) {
  json c = original;  // the harness writes DRA claim statuses back between rounds
  auto pods = kai_cases::initial_pods(c);
  std::uint64_t next_gpu_group = 0;
  const int until = c.value("rounds_until_match", 2);
  const int after = c.value("rounds_after_match", 5);
  for (int i = 0; i < until; ++i) {
    std::vector<std::string> errors;
    round(c, pods, false, errors, next_gpu_group);
    if (!errors.empty()) {
      errors.insert(errors.begin(), "round " + std::to_string(i + 1) + ":");
      return errors;
    }
  }
  {
    sim::model::ClusterState state = kai_cases::build_state(c, pods);
    sim::sched::Session ssn = sim::sched::open_session(state);
    std::vector<std::string> errors = kai_cases::check(c.at("expect"), ssn, 0, 0, 0);
    if (!errors.empty()) return errors;
  }
  for (int i = 0; i < after; ++i) {
    std::vector<std::string> errors;
    round(c, pods, true, errors, next_gpu_group);
    if (!errors.empty()) {
      errors.insert(errors.begin(), "after-match round " + std::to_string(i + 1) + ":");
      return errors;
    }
  }
  return {};
}

// Runs a case; with `outcomes` (the case's entry in variants.json), against each outcome KAI gave
// in turn until one matches. `matched` gets the index of the outcome kaisim equals, or -1.
std::vector<std::string> run_case(const json& c, const json* outcomes, int& matched) {
  const std::string kind = c.at("kind").get<std::string>();
  auto run = [&](const json& one) {
    return kind == "integration"      ? run_integration(one)
           : kind == "single-session" ? run_single_session(one)
                                      : run_unit(one, kind.substr(kind.find(':') + 1));
  };
  matched = -1;
  if (outcomes == nullptr) {
    std::vector<std::string> errors = run(c);
    if (errors.empty()) matched = 0;
    return errors;
  }
  std::vector<std::string> first;
  for (std::size_t k = 0; k < outcomes->size(); ++k) {
    json variant = c;
    variant["expect"] = outcomes->at(k);
    std::vector<std::string> errors = run(variant);
    if (errors.empty()) {
      matched = static_cast<int>(k);
      return {};
    }
    if (k == 0) first = std::move(errors);
  }
  first.insert(first.begin(), "none of KAI's " + std::to_string(outcomes->size()) +
                                  " outcomes; against the first:");
  return first;
}

// variants.json (kai-golden/cycle/map-order): for each case file, every distinct outcome KAI gave
// over its runs. The folder's own case files are the cases whose outcome varied; the entries that
// name no file here are the agree/ folder's cases, each with the one outcome KAI always gave. Those
// are run by the agree/ run, not twice: here each must name a case of the sibling agree/ folder
// whose `expect` is that one outcome, so the two folders cannot drift apart unnoticed.
std::vector<std::string> check_variants_against_agree(const json& variants, const fs::path& dir) {
  std::vector<std::string> problems;
  const fs::path agree = dir.parent_path() / "agree";
  for (const auto& [name, entry] : variants.items()) {
    if (fs::exists(dir / name)) continue;
    const fs::path file = agree / name;
    if (!fs::exists(file)) {
      problems.push_back("variants.json names " + name + ", which is in neither " + dir.string() +
                         " nor " + agree.string());
      continue;
    }
    std::ifstream in(file);
    const json doc = json::parse(in);
    if (entry.at("expects").size() != 1 ||
        doc.at("cases").at(0).at("expect") != entry.at("expects").at(0)) {
      problems.push_back("variants.json gives " + name + " outcomes other than agree/" + name +
                         "'s expect");
    }
  }
  return problems;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, filter, baseline, write_baseline;
  bool verbose = false, skip_if_absent = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--filter" && i + 1 < argc)
      filter = argv[++i];
    else if (arg == "--baseline" && i + 1 < argc)
      baseline = argv[++i];
    else if (arg == "--write-baseline" && i + 1 < argc)
      write_baseline = argv[++i];
    else if (arg == "--verbose")
      verbose = true;
    else if (arg == "--skip-if-absent")
      skip_if_absent = true;
    else if (arg.rfind("-", 0) == 0)
      dir.clear(), i = argc;  // unknown option: usage
    else
      dir = arg;
  }
  if (!dir.empty() && skip_if_absent && !fs::exists(dir)) {
    std::cout << "skipped: ../shared/kai-golden not present (" << dir << ")\n";
    return kSkipped;
  }
  if (dir.empty() || !fs::is_directory(dir)) {
    std::cerr
        << "usage: run_kai_cases [--filter TEXT] [--verbose] [--skip-if-absent] [--baseline FILE] "
           "[--write-baseline FILE] DIR\n";
    return 2;
  }
  std::vector<fs::path> files;
  json variants;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    if (entry.path().filename() == "variants.json") {
      std::ifstream in(entry.path());
      variants = json::parse(in);
      continue;
    }
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> problems;
  if (!variants.is_null()) problems = check_variants_against_agree(variants, dir);

  std::map<std::string, std::array<std::size_t, 3>> by_kind;  // passed, run, skipped
  std::vector<std::string> passing;
  std::size_t total = 0;
  std::size_t text_not_compared = 0;
  std::size_t several = 0, matched_first = 0, matched_other = 0;  // cases with several outcomes
  for (const fs::path& file : files) {
    std::ifstream in(file);
    const json doc = json::parse(in);
    const std::string stem = file.parent_path().filename().string() + "/" + file.stem().string();
    const json* outcomes = nullptr;
    if (!variants.is_null()) {
      const std::string name = file.filename().string();
      if (!variants.contains(name)) {
        problems.push_back(name + " has no entry in variants.json");
        continue;
      }
      outcomes = &variants.at(name).at("expects");
    }
    for (const json& c : doc.at("cases")) {
      const std::string id = stem + ":" + std::to_string(c.at("source_line").get<int>());
      if (!filter.empty() && id.find(filter) == std::string::npos) continue;
      ++total;
      const std::string kind = c.at("kind").get<std::string>();
      auto& counts = by_kind[kind];
      bool unsupported = false;
      for (const json& tag : c.at("unsupported")) {
        unsupported = unsupported || kUnsupported.contains(tag.get<std::string>());
        text_not_compared += tag.get<std::string>() == kErrorText ? 1U : 0U;
      }
      if (unsupported) {
        ++counts[2];
        continue;
      }
      ++counts[1];
      std::vector<std::string> errors;
      int matched = -1;
      try {
        errors = run_case(c, outcomes, matched);
      } catch (const std::exception& e) {
        errors = {std::string("exception: ") + e.what()};
      }
      if (outcomes != nullptr && outcomes->size() > 1) {
        ++several;
        matched_first += matched == 0 ? 1U : 0U;
        matched_other += matched > 0 ? 1U : 0U;
      }
      if (errors.empty()) {
        ++counts[0];
        passing.push_back(id);
        if (verbose && outcomes != nullptr && outcomes->size() > 1) {
          std::cout << "MATCH " << id << " KAI's outcome " << matched + 1 << " of "
                    << outcomes->size() << "\n";
        }
      } else if (verbose) {
        std::cout << "FAIL " << id << " " << c.at("name").get<std::string>() << "\n";
        for (std::size_t i = 0; i < errors.size() && i < 6; ++i)
          std::cout << "    " << errors[i] << "\n";
      }
    }
  }

  std::size_t passed = 0, run = 0, skipped = 0;
  std::cout << "kind                 passed    run  skipped\n";
  for (const auto& [kind, c] : by_kind) {
    std::printf("%-20s %6zu %6zu %8zu\n", kind.c_str(), c[0], c[1], c[2]);
    passed += c[0];
    run += c[1];
    skipped += c[2];
  }
  int status = 0;
  if (!write_baseline.empty()) {
    std::ofstream out(write_baseline);
    for (const std::string& id : passing) out << id << "\n";
  }
  if (!baseline.empty()) {
    std::ifstream in(baseline);
    std::set<std::string> now(passing.begin(), passing.end());
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      if (!now.contains(line)) {
        std::cout << "REGRESSION: " << line << " passed before and fails now\n";
        status = 1;
      }
    }
  }
  for (const std::string& p : problems) {
    std::cout << "PROBLEM: " << p << "\n";
    status = 1;
  }
  if (several > 0) {
    std::cout << "cases with several KAI outcomes: " << several << " (kaisim equals KAI's first in "
              << matched_first << ", another in " << matched_other << ")\n";
  }
  std::cout << "kai cases: passed " << passed << " of " << run << " run (" << skipped
            << " skipped for unsupported features, " << total
            << " total; KAI's exact error text not compared in " << text_not_compared << ")\n";
  if (passed != run) status = 1;  // every case kaisim runs must agree with KAI
  return status;
}
