#pragma once
// Private: writing a set of output files as one unit.

#include <map>
#include <string>

namespace sim::replay {

/// Writes every file into a fresh sibling folder, then swaps it in: a failure leaves nothing
/// half-written. An existing folder is replaced only when it is empty or holds `marker` (a file
/// an earlier kaisim run wrote), so a user's own folder is never overwritten; `what` ("replay",
/// "trace") names the kind of folder in the message.
void write_output_folder(const std::string& out, const std::map<std::string, std::string>& files,
                         const std::string& marker, const std::string& what);

}  // namespace sim::replay
