#include "output_folder.hpp"

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "sim/core/error.hpp"

namespace sim::replay {

namespace fs = std::filesystem;

void write_output_folder(const std::string& out, const std::map<std::string, std::string>& files,
                         const std::string& marker, const std::string& what) {
  fs::path target = fs::path(out).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "out/" names the folder "out"
  const std::string leaf = target.filename().string();
  if (leaf.empty() || leaf == "." || leaf == "..") {
    throw Error(ErrorCode::IO, out + ": give the output folder a name of its own (e.g. out/)");
  }
  std::error_code ec;
  if (fs::exists(target, ec)) {
    if (!fs::is_directory(target) || (!fs::is_empty(target) && !fs::exists(target / marker))) {
      throw Error(ErrorCode::IO, out + ": exists and is not a kaisim " + what + " output folder; not overwriting it");
    }
  }
  const fs::path tmp = target.string() + ".kaisim-tmp-" + std::to_string(::getpid());
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) throw Error(ErrorCode::IO, tmp.string() + ": cannot create: " + ec.message());
  for (const auto& [name, text] : files) {
    std::ofstream f(tmp / name, std::ios::binary);
    f << text;
    if (!f) {
      fs::remove_all(tmp, ec);
      throw Error(ErrorCode::IO, (tmp / name).string() + ": write failed");
    }
  }
  if (fs::exists(target)) fs::remove_all(target, ec);
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    throw Error(ErrorCode::IO, out + ": cannot move the output into place: " + ec.message());
  }
}

}  // namespace sim::replay
