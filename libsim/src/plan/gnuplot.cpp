#include "gnuplot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace sim::plan {
namespace {

namespace fs = std::filesystem;

std::atomic<int> folders{0};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string gp_string(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::optional<std::map<std::string, std::string>> draw(const std::vector<Figure>& figures,
                                                       std::string& why) {
  std::error_code ec;
  const fs::path dir =
      fs::temp_directory_path(ec) /
      ("kaisim-figures-" + std::to_string(::getpid()) + "-" + std::to_string(folders.fetch_add(1)));
  fs::create_directories(dir, ec);
  if (ec) {
    why = dir.string() + ": cannot create: " + ec.message();
    return std::nullopt;
  }
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(dir, e);  // the folder this function made, with only its own files
    }
  } cleanup{dir};
  std::ostringstream script;
  // Fixed size and font: the same figure every time, readable in a browser and on paper.
  for (const Figure& f : figures) {
    for (const auto& [name, text] : f.data) {
      std::ofstream(dir / name, std::ios::binary) << text;
    }
    script << "reset\nset terminal svg size 760,460 noenhanced font 'DejaVu Sans,12' background "
              "rgb 'white'\n"
           << "set output " << gp_string(f.file) << "\n"
           << "set datafile separator '\\t'\n"
           << f.script << "\nunset output\n";
  }
  std::ofstream(dir / "figures.gp", std::ios::binary) << script.str();
  const std::string log = (dir / "gnuplot.log").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // gnuplot reads its script from the folder; chdir there in the child via `cd` in the script
  // would need the path quoted: run it with the folder as argument instead.
  const std::string script_path = (dir / "figures.gp").string();
  const std::string cd = "cd " + gp_string(dir.string());
  char* argv[] = {const_cast<char*>("gnuplot"), const_cast<char*>("-e"),
                  const_cast<char*>(cd.c_str()), const_cast<char*>(script_path.c_str()), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    why = "gnuplot not found (tools/setup installs Debian's gnuplot-nox)";
    return std::nullopt;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    why = "gnuplot failed: " + slurp(log);
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  for (const Figure& f : figures) out[f.file] = slurp(dir / f.file);
  return out;
}

}  // namespace sim::plan
