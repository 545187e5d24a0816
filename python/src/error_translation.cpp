#include "error_translation.hpp"

#include <cerrno>

#include "sim/core/error.hpp"
#include "sim/live/connection.hpp"

namespace py = pybind11;

namespace kaisim::python {
namespace {

// Raises kaisim.errors.<name>(message, **attributes). The classes live in Python so users can
// catch and subclass them like any other exception.
void raise(const char* name, const std::string& message, const py::dict& attributes) {
  const py::object cls = py::module_::import("kaisim.errors").attr(name);
  const py::object error = cls(message, **attributes);
  PyErr_SetObject(cls.ptr(), error.ptr());
}

}  // namespace

void register_error_translation() {
  py::register_exception_translator([](std::exception_ptr pending) {
    try {
      if (pending) std::rethrow_exception(pending);
    } catch (const sim::InputError& e) {
      py::dict attributes;
      attributes["file"] =
          e.where().file.empty() ? py::object(py::none()) : py::str(e.where().file);
      attributes["line"] =
          e.where().line > 0 ? py::object(py::int_(e.where().line)) : py::object(py::none());
      attributes["column"] =
          e.where().column > 0 ? py::object(py::int_(e.where().column)) : py::object(py::none());
      attributes["field"] = e.path().empty() ? py::object(py::none()) : py::str(e.path());
      attributes["detail"] = e.detail();
      raise("ScenarioError", e.what(), attributes);
    } catch (const sim::live::ClusterError& e) {
      py::dict attributes;
      attributes["http_status"] =
          e.http_status() > 0 ? py::object(py::int_(e.http_status())) : py::object(py::none());
      attributes["reason"] = e.reason().empty() ? py::object(py::none()) : py::str(e.reason());
      raise("ClusterError", e.what(), attributes);
    } catch (const sim::Error& e) {
      if (e.code() != sim::ErrorCode::IO) {
        raise("InternalError", e.what(), py::dict());
        return;
      }
      // The class that is also the matching built-in: FileNotFoundError, IsADirectoryError, ...
      const char* cls = "KaisimIOError";
      switch (e.sys_errno()) {
        case ENOENT:
          cls = "InputFileNotFoundError";
          break;
        case EISDIR:
          cls = "InputIsADirectoryError";
          break;
        case EACCES:
        case EPERM:
          cls = "InputPermissionError";
          break;
        case EFBIG:
          cls = "InputTooLargeError";
          break;
        default:
          break;
      }
      py::dict attributes;
      attributes["errno_value"] =
          e.sys_errno() == 0 ? py::object(py::none()) : py::object(py::int_(e.sys_errno()));
      raise(cls, e.what(), attributes);
    } catch (const py::error_already_set&) {
      throw;  // a Python exception passing through: pybind11 restores it
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const std::bad_alloc&) {
      raise("KaisimMemoryError", "out of memory: the input needs more memory than this machine has",
            py::dict());
    } catch (const std::exception& e) {
      raise("InternalError", std::string("kaisim bug: ") + e.what(), py::dict());
    }
  });
}

}  // namespace kaisim::python
