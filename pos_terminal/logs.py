"""The profile's log folder: a rotating log with secrets masked, and native crash reports.

Every line written to the log goes through :class:`MaskingFormatter`, so a token is masked wherever
it appears: in a message, its arguments or a traceback. The window keeps a crash file open for
``faulthandler`` while it runs (a native crash, a deadlock dump) and removes it when it closes; a
crash file left behind means the run before ended abnormally, which the next start tells the
cashier (:meth:`CrashReports.previous_run`). Standard library only, so it costs nothing at start-up.
"""

from __future__ import annotations

import faulthandler
import logging
import os
import re
import sys
from datetime import datetime
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import IO

MAX_BYTES = 2_000_000
BACKUPS = 3
_RUNNING = "crash-running-"  # crash-running-<pid>.txt: open while a window runs
_REPORT = "crash-"  # crash-<when>.txt: what a run that ended abnormally left

# Bearer and API tokens, token fields in any spelling (access_token, "accessToken": ...), refresh tokens,
# client secrets and device codes.
SECRET = re.compile(
    r"(?i)(bearer\s+|x-api-token['\"]?\s*[:=]\s*['\"]?"
    r"|(?:access|refresh|id)_?token['\"]?\s*[:=]\s*['\"]?"
    r"|(?:client_?secret|device_?code)['\"]?\s*[:=]\s*['\"]?)[^\s'\",}&]+"
)


def mask(text: str) -> str:
    return SECRET.sub(r"\1***", text)


class MaskingFormatter(logging.Formatter):
    """Formats as usual, then masks secrets in the whole line, traceback included."""

    def format(self, record: logging.LogRecord) -> str:
        return mask(super().format(record))


_installed: list[RotatingFileHandler] = []  # the handler this module added, so a second call replaces it


def configure_logging(path: Path, program: str, *, level: int = logging.INFO) -> None:
    """Send this process's log to the rotating file ``path`` (the profile's ``Paths.log_file``)."""
    root = logging.getLogger()
    while _installed:
        previous = _installed.pop()
        root.removeHandler(previous)
        previous.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True)
    handler.setFormatter(MaskingFormatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    _installed.append(handler)
    root.setLevel(min(root.level, level) if root.level else level)
    for noisy in ("httpx", "httpcore", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.getLogger("pos_terminal").info("%s started (pid %d)", program, os.getpid())


class CrashReports:
    """Native crash reports of the window, beside the log file ``log``."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.log_dir = log.parent
        self._file: IO[str] | None = None
        self._path: Path | None = None
        self._was_enabled = False

    def previous_run(self) -> str | None:
        """One sentence when a run before this one ended abnormally (its crash file was left); None otherwise.

        What it left is kept as ``crash-<when>.txt`` when it holds a report, and removed when empty.
        """
        left = sorted(self.log_dir.glob(f"{_RUNNING}*.txt"), key=lambda p: p.stat().st_mtime)
        if not left:
            return None
        reports: list[Path] = []
        for path in left:
            if _alive(path):
                continue  # another window on this profile is running now
            if path.stat().st_size:
                when = datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y%m%d-%H%M%S")
                kept = self.log_dir / f"{_REPORT}{when}-{path.stem.removeprefix(_RUNNING)}.txt"
                path.replace(kept)
                reports.append(kept)
            else:
                path.unlink(missing_ok=True)
                reports.append(path)
        if not reports:
            return None
        written = [p for p in reports if p.exists()]
        if written:
            return f"The last run ended abnormally; its crash report is in {written[-1]}."
        return (
            "The last run ended abnormally (it was stopped from outside or the power went off); "
            f"the log is in {self.log}."
        )

    def start(self) -> Path:
        """Write a native crash of this process (and every thread's stack) to a file until :meth:`finish`."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._path = self.log_dir / f"{_RUNNING}{os.getpid()}.txt"
        # named crash-running only once a crash would be written to it: a SIGSEGV between the file's creation and
        # faulthandler taking over left an empty report (a clean-clone CI run killed the window just then)
        arming = self._path.with_suffix(".arming")
        self._file = arming.open("w", encoding="utf-8")
        self._was_enabled = faulthandler.is_enabled()
        faulthandler.enable(file=self._file, all_threads=True)
        os.replace(arming, self._path)
        return self._path

    def finish(self) -> None:
        """The run ends normally: the crash file goes (and crashes go to standard error, if they did before)."""
        if self._file is None or self._path is None:
            return
        faulthandler.disable()
        if self._was_enabled and sys.__stderr__ is not None:
            faulthandler.enable(file=sys.__stderr__, all_threads=True)
        self._file.close()
        self._path.unlink(missing_ok=True)
        self._file = self._path = None


def _alive(path: Path) -> bool:
    """Whether the process that owns ``crash-running-<pid>.txt`` still runs (POSIX; elsewhere assumed gone)."""
    try:
        pid = int(path.stem.removeprefix(_RUNNING))
    except ValueError:
        return False
    if pid == os.getpid():
        return False
    if sys.platform == "win32":
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
