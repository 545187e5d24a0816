"""Exceptions raised by kaisim. libsim's C++ errors arrive here through one translator
(python/src/error_translation.cpp)."""

from __future__ import annotations

from typing import Optional


class KaisimError(Exception):
    """Base of every error kaisim raises."""


class ScenarioError(KaisimError, ValueError):
    """Bad input: a scenario, manifest, snapshot or fair-share request that does not hold.

    ``str(error)`` is the one-line message of the CLI (``FILE:LINE:COL: FIELD: DETAIL``); the
    parts are also attributes, ``None`` where unknown.
    """

    def __init__(
        self,
        message: str,
        *,
        file: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        field: Optional[str] = None,
        detail: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.detail = detail if detail is not None else message


class KaisimIOError(KaisimError, OSError):
    """A file could not be read (missing, a directory, a device or FIFO, over the size limit) or an
    output folder could not be written (kaisim never overwrites a file it did not write).

    ``str(error)`` is the CLI's message; ``errno`` is the system's error number, or ``None``."""

    def __init__(self, message: str, *, errno_value: Optional[int] = None) -> None:
        super().__init__(message)
        self.errno = errno_value


class InputFileNotFoundError(KaisimIOError, FileNotFoundError):
    """An input path that does not exist."""


class InputIsADirectoryError(KaisimIOError, IsADirectoryError):
    """A directory where a file is expected."""


class InputPermissionError(KaisimIOError, PermissionError):
    """An input file kaisim may not read."""


class InputTooLargeError(KaisimIOError):
    """An input over the size limit (:func:`kaisim.set_limits`)."""


class KaisimMemoryError(KaisimError, MemoryError):
    """The input needs more memory than the machine has (see the README's limits)."""


class ClusterError(KaisimIOError):
    """The Kubernetes API server could not be reached, refused the credentials, forbade the
    request or answered with an error. ``str(error)`` is the CLI's line (server, HTTP status and
    the server's message, never credentials); ``http_status`` is ``None`` when no answer came."""

    def __init__(self, message: str, *, http_status: Optional[int] = None, reason: Optional[str] = None) -> None:
        super().__init__(message)
        self.http_status = http_status
        self.reason = reason


class InternalError(KaisimError, RuntimeError):
    """A broken invariant inside libsim: a kaisim bug, please report it with the input."""


class ExpectationFailed(KaisimError, AssertionError):
    """``replay(..., check=True)`` found expectations of the scenario that did not hold."""

    def __init__(self, failures: list[tuple[float, str]]) -> None:
        lines = [f"at {t:g}s: {what}" for t, what in failures]
        super().__init__(f"{len(failures)} expectation(s) failed:\n" + "\n".join(lines))
        self.failures = failures
