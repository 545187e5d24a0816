#pragma once
// Private: figures drawn by gnuplot (Debian's gnuplot-nox, installed by tools/setup) as SVG.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sim::plan {

struct Figure {
  std::string file;    ///< e.g. "gpus.svg"
  std::string script;  ///< gnuplot commands that draw it (terminal and output are set around them)
  std::map<std::string, std::string> data;  ///< data files the script reads, by name
};

/// Draws every figure in one gnuplot run inside a private temporary folder; returns the SVG
/// text by file name, or nullopt (with the reason in `why`) when gnuplot is missing or fails.
std::optional<std::map<std::string, std::string>> draw(const std::vector<Figure>& figures,
                                                       std::string& why);

/// A string as a gnuplot string literal (single quotes, a quote doubled).
std::string gp_string(const std::string& s);

}  // namespace sim::plan
