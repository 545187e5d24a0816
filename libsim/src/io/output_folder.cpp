#include "sim/io/output_folder.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "sim/core/error.hpp"

namespace sim::io {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTmpInfix = ".kaisim-tmp-";
constexpr std::string_view kMarkerTitle = "kaisim output folder: ";
// The marker while files are being renamed into an existing folder: it lists the earlier run's
// files and this run's, so a run killed half-way leaves a folder that is still kaisim's.
constexpr std::string_view kNextMarker = ".kaisim-output-next";

std::string hash_hex(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = kDigits[h & 0xF];
  return out;
}

std::optional<std::string> read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

struct Marker {
  std::string kind;
  std::multimap<std::string, std::string> hashes;  // file name -> a hash kaisim wrote it with
  bool lists(const std::string& name) const { return hashes.contains(name); }
};

std::string marker_text(std::string_view kind,
                        const std::multimap<std::string, std::string>& hashes) {
  std::string out = std::string(kMarkerTitle) + std::string(kind) + "\n";
  for (const auto& [name, hash] : hashes) out += hash + " " + name + "\n";
  return out;
}

// The marker in `folder`, or nullopt when there is none or it is not one kaisim wrote.
std::optional<Marker> read_marker(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(folder / kOutputMarker, ec))) return std::nullopt;
  const std::optional<std::string> text = read_whole(folder / kOutputMarker);
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  std::string line;
  if (!std::getline(lines, line) || line.rfind(kMarkerTitle, 0) != 0) return std::nullopt;
  Marker m;
  m.kind = line.substr(kMarkerTitle.size());
  while (std::getline(lines, line)) {
    if (line.size() < 18 || line[16] != ' ') return std::nullopt;
    m.hashes.emplace(line.substr(17), line.substr(0, 16));
  }
  return m;
}

bool process_alive(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

// Deletes a temporary folder of kaisim's: only the files its marker lists, the marker, and the
// folder once empty. False when it is not kaisim's or holds anything else.
bool remove_own_temporary(const fs::path& tmp) {
  std::error_code ec;
  if (const std::optional<Marker> marker = read_marker(tmp)) {
    for (const auto& [name, hash] : marker->hashes) fs::remove(tmp / name, ec);
    fs::remove(tmp / kNextMarker, ec);
    fs::remove(tmp / kOutputMarker, ec);
  }
  return fs::remove(tmp, ec) && !ec;  // removes a directory only when it is empty
}

// `DIR.kaisim-tmp-PID/` folders next to `target` left by runs that died (this process's own PID
// included: a folder of that name is from an earlier process that had it).
void remove_stale_temporaries(const fs::path& target, OutputFolderReport& report) {
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string prefix = target.filename().string() + std::string(kTmpInfix);
  std::error_code ec;
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.size() > prefix.size() + 9 ||
        name.rfind(prefix, 0) != 0)
      continue;
    const std::string digits = name.substr(prefix.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    const long pid = std::stol(digits);
    if (pid != static_cast<long>(::getpid()) && process_alive(pid)) continue;
    if (!fs::is_directory(fs::symlink_status(it->path(), ec))) continue;
    stale.push_back(it->path());
  }
  std::sort(stale.begin(), stale.end());
  for (const fs::path& tmp : stale) {
    if (remove_own_temporary(tmp)) report.stale_removed.push_back(tmp.string() + "/");
  }
}

[[noreturn]] void refuse(const std::string& dir, const std::string& why) {
  throw Error(ErrorCode::IO, dir + ": " + why);
}

void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) throw Error(ErrorCode::IO, path.string() + ": write failed");
}

void rename_or_throw(const fs::path& from, const fs::path& to, const std::string& dir) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) refuse(dir, "cannot move " + to.filename().string() + " into place: " + ec.message());
}

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<std::string> OutputFolderReport::notes() const {
  std::vector<std::string> out;
  for (const std::string& tmp : stale_removed)
    out.push_back(tmp + ": removed, left by a kaisim run that was stopped");
  if (!replaced.empty())
    out.push_back(folder + ": replaced " + plural(replaced.size(), "file") +
                  " of an earlier kaisim run (" + joined(replaced) + ")");
  if (!removed.empty())
    out.push_back(folder + ": removed " + plural(removed.size(), "file") +
                  " of an earlier kaisim run (" + joined(removed) + ")");
  if (!kept.empty())
    out.push_back(folder + ": kept " + plural(kept.size(), "file") + " kaisim did not write (" +
                  joined(kept) + ")");
  return out;
}

OutputFolderReport write_output_folder(const std::string& dir,
                                       const std::map<std::string, std::string>& files,
                                       std::string_view kind) {
  for (const auto& [name, bytes] : files) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.rfind(".kaisim-output", 0) == 0) {
      throw Error(ErrorCode::INTERNAL,
                  "output file name \"" + name + "\" is not a plain file name");
    }
  }
  fs::path target = fs::path(dir).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "out/" names the folder "out"
  const std::string leaf = target.filename().string();
  if (leaf.empty() || leaf == "." || leaf == "..")
    refuse(dir, "give the output folder a name of its own (e.g. out/)");

  OutputFolderReport report;
  report.folder = dir;
  remove_stale_temporaries(target, report);

  // What is there now decides how the files go in (see the header).
  std::error_code ec;
  const fs::file_status status = fs::status(target, ec);
  const bool exists = fs::exists(status);
  std::optional<Marker> earlier;
  if (exists) {
    if (!fs::is_directory(status)) refuse(dir, "exists and is not a folder; not writing there");
    earlier = read_marker(target);
    if (!earlier && !fs::is_empty(target, ec)) {
      refuse(dir, "is not empty and is not a kaisim output folder (it has no " +
                      std::string(kOutputMarker) +
                      " file); not writing into it: choose a new or empty folder");
    }
    if (earlier && earlier->kind != kind) {
      refuse(dir, "holds kaisim " + earlier->kind + " output, not " + std::string(kind) +
                      " output; not writing into it");
    }
    if (earlier) {
      std::set<std::string> seen;
      for (const auto& [name, hash] : earlier->hashes) {
        if (!seen.insert(name).second) continue;
        const fs::path path = target / name;
        const fs::file_status s = fs::symlink_status(path, ec);
        if (!fs::exists(s)) continue;
        const std::optional<std::string> bytes =
            fs::is_regular_file(s) ? read_whole(path) : std::nullopt;
        bool same = false;
        if (bytes) {
          const std::string h = hash_hex(*bytes);
          for (auto [it, end] = earlier->hashes.equal_range(name); it != end; ++it)
            same = same || it->second == h;
        }
        if (!same)
          refuse(
              dir,
              name + " has changed since kaisim wrote it; not overwriting it: move it away first");
      }
      std::vector<std::string> present;
      for (fs::directory_iterator it(target, ec), end; !ec && it != end; it.increment(ec)) {
        present.push_back(it->path().filename().string());
      }
      std::sort(present.begin(), present.end());
      for (const std::string& name : present) {
        if (name == kOutputMarker || earlier->lists(name)) continue;
        if (files.contains(name))
          refuse(dir, name + " is not a file kaisim wrote; not overwriting it: move it away first");
        report.kept.push_back(name);
      }
    }
  }

  std::multimap<std::string, std::string> hashes;
  for (const auto& [name, bytes] : files) hashes.emplace(name, hash_hex(bytes));
  const fs::path tmp = target.string() + std::string(kTmpInfix) + std::to_string(::getpid());
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (!fs::create_directory(tmp, ec)) {
    refuse(tmp.string(),
           ec ? "cannot create: " + ec.message() : "exists and is not kaisim's; remove it");
  }
  try {
    write_file(tmp / kOutputMarker, marker_text(kind, hashes));
    for (const auto& [name, bytes] : files) write_file(tmp / name, bytes);
  } catch (...) {
    remove_own_temporary(tmp);
    throw;
  }
  if (!exists) {
    rename_or_throw(tmp, target, dir);
    return report;
  }

  // Into an existing folder, file by file: first a marker that owns both runs' files.
  std::multimap<std::string, std::string> both = hashes;
  if (earlier) both.insert(earlier->hashes.begin(), earlier->hashes.end());
  write_file(tmp / kNextMarker, marker_text(kind, both));
  rename_or_throw(tmp / kNextMarker, target / kOutputMarker, dir);
  for (const auto& [name, bytes] : files) {
    if (fs::exists(fs::symlink_status(target / name, ec))) report.replaced.push_back(name);
    rename_or_throw(tmp / name, target / name, dir);
  }
  if (earlier) {
    std::set<std::string> names;
    for (const auto& [name, hash] : earlier->hashes) names.insert(name);
    for (const std::string& name : names) {
      if (!files.contains(name) && fs::remove(target / name, ec)) report.removed.push_back(name);
    }
  }
  rename_or_throw(tmp / kOutputMarker, target / kOutputMarker, dir);
  fs::remove(tmp, ec);
  return report;
}

}  // namespace sim::io
