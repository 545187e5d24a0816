#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace kaisim::cli {
namespace {

constexpr double kShowAfterSeconds = 1.0;

// 1234567 -> "1,234,567".
std::string thousands(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// Virtual time: "45s", "12.5m", "53.6h".
std::string virtual_time(std::int64_t ms) {
  char buf[32];
  const double s = static_cast<double>(ms) / 1000.0;
  if (s < 600)
    std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 36000)
    std::snprintf(buf, sizeof buf, "%.1fm", s / 60);
  else
    std::snprintf(buf, sizeof buf, "%.1fh", s / 3600);
  return buf;
}

// Wall time as tqdm prints it: "00:04", "1:02:03".
std::string clock(double s) {
  const auto t = static_cast<long>(std::lround(std::max(0.0, s)));
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%02ld:%02ld", t / 60, t % 60);
  return buf;
}

}  // namespace

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

ProgressBar::ProgressBar(bool enabled)
    : enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

std::function<void(const sim::api::ReplayProgress&)> ProgressBar::callback() {
  if (!enabled_) return {};
  return [this](const sim::api::ReplayProgress& p) { update(p); };
}

std::string ProgressBar::render(const sim::api::ReplayProgress& p, double elapsed_s, int width) {
  const double fraction =
      p.end_ms > 0
          ? std::clamp(static_cast<double>(p.now_ms) / static_cast<double>(p.end_ms), 0.0, 1.0)
          : 1.0;
  static const char* kEighths[] = {"",       "\u258f", "\u258e", "\u258d",
                                   "\u258c", "\u258b", "\u258a", "\u2589"};
  const double cells = fraction * width;
  const int full = static_cast<int>(cells);
  std::string bar;
  for (int i = 0; i < full; ++i) bar += "\u2588";
  int used = full;
  if (full < width) {
    bar += kEighths[static_cast<int>((cells - full) * 8)];
    ++used;
  }
  bar += std::string(static_cast<std::size_t>(width - used), ' ');
  char percent[8];
  std::snprintf(percent, sizeof percent, "%3.0f%%", fraction * 100);
  // The replay's speed so far (virtual time per wall second) gives the time left; a replay that
  // ends when drained may finish sooner.
  const std::string eta =
      fraction > 0 && !p.finished ? clock(elapsed_s * (1 - fraction) / fraction) : "00:00";
  return std::string("replay ") + percent + "|" + bar + "| " + virtual_time(p.now_ms) + "/" +
         virtual_time(p.end_ms) + " virtual, " + thousands(p.cycles) + " cycles, " +
         thousands(p.pods_done) + "/" + thousands(p.pods_submitted) + " pods done [" +
         clock(elapsed_s) + "<" + eta + "]";
}

void ProgressBar::update(const sim::api::ReplayProgress& p) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (!shown_ && (elapsed < kShowAfterSeconds || p.finished)) return;  // short runs stay silent
  shown_ = true;
  std::cerr << "\r\033[K" << render(p, elapsed) << (p.finished ? "\n" : "") << std::flush;
}

}  // namespace kaisim::cli
