"""The py-<pid>.jsonl writer (docs: the doctor's trace format v1).

Each record is one JSON line written with one write() on a file opened for
appending, so a crash keeps every record before it. A process made by
fork() gets its own file, which opens with its own pystart. Whatever goes
wrong here is counted, never raised: the program must run as it would
without the check.
"""

import json
import os
import sys
import threading

MAX_DEFAULT = 200000


class Trace:
    def __init__(self, folder, argv=None):
        self.folder = folder
        self.argv = list(argv if argv is not None else sys.argv)
        self.lock = threading.Lock()
        self.pid = None
        self.fd = None
        self.n = 0
        self.broken = False
        self.libs = []
        self.failures = 0     # exceptions swallowed inside the check
        self.internal = 0     # launches made by a library for itself
        self.repeats = 0      # launches like REPEATS written ones, unwritten
        self.dropped = {}     # ev or lib -> count past the cap
        try:
            self.cap = int(os.environ.get("CLINIC_TRACE_MAX", MAX_DEFAULT))
        except ValueError:
            self.cap = MAX_DEFAULT
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)

    def _after_fork(self):
        # The parent's lock may have been held by a thread that the child
        # does not have; the child starts its own file at its next record.
        self.lock = threading.Lock()

    def _open(self):
        pid = os.getpid()
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
        self.fd, self.pid, self.n = None, pid, 0
        path = os.path.join(self.folder, "py-%d.jsonl" % pid)
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND
                          | getattr(os, "O_CLOEXEC", 0), 0o644)
        self._write_locked({"ev": "pystart", "pid": pid, "argv": self.argv,
                            "libs": list(self.libs)})

    def _write_locked(self, record):
        rec = {"n": self.n}
        rec.update(record)
        rec.setdefault("tid", threading.get_native_id()
                       if hasattr(threading, "get_native_id") else 0)
        line = json.dumps(rec, separators=(",", ":"), default=str) + "\n"
        self.n += 1
        os.write(self.fd, line.encode("utf-8", "replace"))

    def write(self, record):
        """Appends record ({"ev": ...}); False when it was not written."""
        if self.broken:
            return False
        try:
            with self.lock:
                if self.pid != os.getpid():
                    self._open()
                if self.n >= self.cap:
                    key = record.get("lib") or record.get("ev", "?")
                    self.dropped[key] = self.dropped.get(key, 0) + 1
                    return False
                self._write_locked(record)
                return True
        except Exception:
            self.failures += 1
            if self.fd is None:
                self.broken = True  # the folder cannot be written: stop
            return False

    def start(self):
        """Writes pystart now, so that a program that launches nothing
        still shows the check was there."""
        try:
            with self.lock:
                if self.pid != os.getpid():
                    self._open()
        except Exception:
            self.failures += 1
            self.broken = True

    def finish(self):
        """The pyend record, at exit (absent after a crash or os._exit)."""
        if self.pid != os.getpid():
            return  # a forked child that wrote nothing has nothing to end
        try:
            with self.lock:
                self._write_locked({"ev": "pyend", "records": self.n,
                                    "dropped": dict(self.dropped),
                                    "failures": self.failures,
                                    "internal": self.internal,
                                    "repeats": self.repeats,
                                    "libs": list(self.libs)})
        except Exception:
            pass
