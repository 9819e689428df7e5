"""The process runner of the Clinic's tools: the doctor, the exercise
checker and the test driver (tests/drivers/clinic_driver.py) run programs
with it, so that all three scrub the same switches, write the same
transcripts and stop a program's whole process group."""

import os
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

# Switches that change chapters' outcomes: golden and sanitizer runs, the
# exercise checker and the doctor's runs (but its CUDA_LAUNCH_BLOCKING one)
# never see them.
SCRUBBED = (
    "CLINIC_DEBUG_SYNC",
    "CUDA_LAUNCH_BLOCKING",
    "CUDA_DEVICE_MAX_CONNECTIONS",
)
# The process groups of the commands running now: stop_all() ends them when
# the tool itself is stopped (Ctrl-C, SIGTERM).
_LIVE = set()
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


class Stopped(Exception):
    """The tool is stopping (stop_all()): no new command starts."""


def status_text(rc):
    """An exit status as the transcripts write it: the exit code, or for a
    signal (a negative returncode from subprocess) its name, such as
    "Segmentation fault". The exercise tool and the doctor use it too."""
    return str(rc) if rc >= 0 else (signal.strsignal(-rc) or "signal %d" % -rc)


def transcript(out, err, status):
    """stdout, then "[stderr]" and stderr if any, then "[exit status: N]"."""
    text = out + ("[stderr]\n" + err if err else "")
    text = text.replace("\r\n", "\n")
    if text and not text.endswith("\n"):
        text += "\n"
    return text + "[exit status: %s]\n" % status


def scrubbed_env(extra=None):
    """The environment without the SCRUBBED switches, plus <extra>."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env.update(extra or {})
    return env


def read_capped(path, keep=None):
    """(text, size) of a file: all of it as written, or with keep=(head,
    tail) bytes its head and tail with a note between when it is longer,
    with Windows line ends made plain."""
    size = path.stat().st_size if path.exists() else 0
    with open(path, "rb") as f:
        if keep is None or size <= keep[0] + keep[1]:
            data = f.read()
        else:
            head = f.read(keep[0])
            f.seek(size - keep[1])
            note = f"\n[... {size - keep[0] - keep[1]} bytes not read ...]\n"
            data = head + note.encode() + f.read()
    text = data.decode("utf-8", "replace")
    return (text if keep is None else text.replace("\r\n", "\n")), size


def kill_group(pid):
    """SIGKILL to a process group (compute-sanitizer and launchers start the
    program as a child, so killing the leader is not enough)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all():
    """Kills every command this process is running: Ctrl-C or SIGTERM stops
    the examined program's whole process group, not only the tool."""
    _STOPPING.set()
    with _LIVE_LOCK:
        groups = list(_LIVE)
    for pid in groups:
        kill_group(pid)


def _wait(process, files, timeout, output_limit):
    """Waits for the process; returns (timed_out, too_much) and kills its
    group at a limit. Any exception (KeyboardInterrupt) kills it too."""
    start = time.monotonic()
    try:
        while True:
            try:
                process.wait(timeout=0.2)
                return False, False
            except subprocess.TimeoutExpired:
                pass
            over = timeout is not None and time.monotonic() - start > timeout
            big = output_limit is not None and sum(
                f.stat().st_size for f in files) > output_limit
            if over or big:
                kill_group(process.pid)
                process.wait()
                return over, big and not over
    except BaseException:
        kill_group(process.pid)
        process.wait()
        raise


def run(command, timeout=None, env_extra=None, scratch=None,
        output_limit=None, keep=None, cwd=None):
    """Runs a command with stdin closed, its output in files, in a process
    group of its own; returns a dict: out, err, status (text), code (int or
    None), signal (name or None), seconds, timed_out, too_much (output over
    <output_limit> bytes), sizes. <keep>=(head, tail) reads only that much
    of a long output back. Raises OSError when the command cannot start."""
    if _STOPPING.is_set():
        raise Stopped("stopping: not starting " + str(command[0]))
    folder = Path(tempfile.mkdtemp(dir=scratch))
    paths = (folder / "stdout", folder / "stderr")
    start = time.monotonic()
    try:
        with open(paths[0], "wb") as out, open(paths[1], "wb") as err:
            process = subprocess.Popen(
                command, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                env=scrubbed_env(env_extra), start_new_session=True, cwd=cwd)
            with _LIVE_LOCK:
                _LIVE.add(process.pid)
            try:
                timed_out, too_much = _wait(process, paths, timeout,
                                            output_limit)
            finally:
                with _LIVE_LOCK:
                    _LIVE.discard(process.pid)
        result = {"timed_out": timed_out, "too_much": too_much,
                  "seconds": round(time.monotonic() - start, 2)}
        result["out"], out_size = read_capped(paths[0], keep)
        result["err"], err_size = read_capped(paths[1], keep)
    finally:
        for path in paths:
            path.unlink(missing_ok=True)
        folder.rmdir()
    result["sizes"] = (out_size, err_size)
    return finish_status(result, process.returncode, timeout, output_limit)


def finish_status(result, code, timeout, output_limit):
    """Fills a run's status, code and signal."""
    result["code"], result["signal"] = None, None
    if result["timed_out"]:
        result["status"] = f"stopped after the {timeout:g} s time limit"
    elif result["too_much"]:
        result["status"] = (
            f"stopped after writing more than {output_limit >> 20} MiB")
    else:
        result["status"] = status_text(code)
        result["code"] = code if code >= 0 else None
        result["signal"] = None if code >= 0 else result["status"]
    return result


def result_transcript(result):
    """A run result (run()'s dict) in the transcript format."""
    return transcript(result["out"], result["err"], result["status"])
