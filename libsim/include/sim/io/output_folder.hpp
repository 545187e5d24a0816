#pragma once
// Output folders: the one way kaisim writes files (`replay --out`, `gen trace --out`, and any
// later writer). A folder is kaisim's only if it holds the marker file kaisim writes there, and
// kaisim never deletes or overwrites a file it did not write (docs/replay-output.md).

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sim::io {

/// The marker file in every folder kaisim writes. Its first line names the kind of output
/// ("kaisim output folder: replay"); each further line lists a file kaisim wrote there as
/// "<FNV-1a 64 hash of its bytes, 16 hex digits> <name>".
inline constexpr std::string_view kOutputMarker = ".kaisim-output";

/// What write_output_folder did, for the caller to tell the user.
struct OutputFolderReport {
  std::string folder;                 ///< the folder as the caller named it
  std::vector<std::string> replaced;  ///< files of an earlier kaisim run, overwritten
  std::vector<std::string> removed;   ///< files of an earlier kaisim run not written again, deleted
  std::vector<std::string> kept;      ///< other files in the folder, left untouched
  std::vector<std::string> stale_removed;  ///< `DIR.kaisim-tmp-PID/` folders of dead runs, deleted
  /// One line per thing done besides writing a new folder, e.g. "out/: replaced 5 files of an
  /// earlier replay"; none for a folder that did not exist or was empty.
  std::vector<std::string> notes() const;
};

/// Writes `files` (plain names, no '/', to their bytes) into the folder `dir` as output of
/// `kind` ("replay", "trace", ...). Everything is first written to `DIR.kaisim-tmp-PID/`, so a
/// failure leaves `dir` as it was. Then:
/// - `dir` missing: the temporary folder is renamed to it;
/// - `dir` empty, or holding the marker of an earlier output of the same kind: each file is
///   renamed into place; files the earlier run wrote and this one does not are deleted; any other
///   file is kept;
/// - anything else is refused with sim::Error (IO): a file instead of a folder, a non-empty folder
///   without the marker, another kind's output, a file the marker lists whose bytes changed since
///   kaisim wrote it, or a file of this output's names that kaisim did not write.
/// Before writing, `DIR.kaisim-tmp-PID/` folders left by runs that died are deleted (only when
/// they hold kaisim's marker, only the files it lists, and only when no process PID is alive).
OutputFolderReport write_output_folder(const std::string& dir,
                                       const std::map<std::string, std::string>& files,
                                       std::string_view kind);

}  // namespace sim::io
