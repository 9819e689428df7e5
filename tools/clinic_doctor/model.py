"""What a traced process did, as the rules ask it: which allocation owns an
address at a given call (a freed one, or none), the streams and their flags,
and which waits make the host or a stream wait for earlier work."""

import bisect
import re

from . import kernels
from .trace import number

LEGACY, PER_THREAD = 0x0, 0x2
DEVICE_MEM = ("device", "pitched", "async")
HOST_MEM = ("pageable", "pinned", "registered")
NON_BLOCKING = 0x1  # cudaStreamNonBlocking, CU_STREAM_NON_BLOCKING


class Process:
    """One process's calls and the tables built from them."""

    def __init__(self, calls):
        self.calls = sorted(calls, key=lambda c: c.get("n", 0))
        self.allocs, self.flags, self.waits = [], {}, []
        self._bases, self._index = [], []  # allocations sorted by base
        self.events = {}  # event -> [(n, stream)] of its records
        self.peers = set()  # (dev, peer): dev's kernels may use peer's
        self.set_device_at = None  # n of the first cudaSetDevice
        for call in self.calls:
            self.add(call)

    def add(self, call):
        op, n = call.get("op"), call.get("n", 0)
        ok = not call.get("result")
        if op == "alloc" and ok:
            base = number(call.get("ptr")) or 0
            alloc = {"base": base, "end": base + alloc_bytes(call),
                     "call": call, "mem": call.get("mem", "device"),
                     "dev": call.get("dev"), "n": n, "freed": None,
                     "free_call": None}
            self.allocs.append(alloc)
            at = bisect.bisect_right(self._bases, base)
            self._bases.insert(at, base)
            self._index.insert(at, alloc)
        elif op == "free" and ok:
            alloc = self.owner(number(call.get("ptr")), n, exact=True)
            if alloc:
                alloc["freed"], alloc["free_call"] = n, call
        elif op == "stream_create" and ok:
            self.flags[number(call.get("stream"))] = call.get("flags", 0)
        elif op == "event_record":
            self.events.setdefault(number(call.get("event")), []).append(
                (n, number(call.get("stream"))))
        elif op == "peer" and ok:
            self.peers.add((call.get("dev"), call.get("peer")))
        elif op == "set_device" and self.set_device_at is None:
            self.set_device_at = n
        self.add_wait(call, op, n, ok)

    def add_wait(self, call, op, n, ok):
        """Records what a call waits for: (n, stream or None for all,
        up to n, for stream or None for the host)."""
        api = call.get("api", "")
        stream = number(call.get("stream"))
        if op == "sync" or (ok and api.endswith(("StreamQuery",
                                                 "EventQuery"))):
            what = call.get("what") or ("event" if "Event" in api
                                        else "stream")
            if what in ("device", "ctx"):
                self.waits.append((n, None, n, None))
            elif what == "stream":
                self.waits.append((n, stream, n, None))
            elif what == "event":
                self.event_wait(number(call.get("event")), n, None)
        elif op == "stream_wait":
            self.event_wait(number(call.get("event")), n, stream)
        elif op == "free" and ok and re.match(
                r"^(cudaFree|cudaFreeHost|cuMemFree(Host)?(_v2)?)$", api):
            # cudaFree and cudaFreeHost wait for the whole device first.
            self.waits.append((n, None, n, None))
        elif op == "copy" and not call.get("async") and ok:
            # A blocking copy runs in the legacy stream, which first waits
            # for the legacy stream and every blocking stream.
            if stream in (LEGACY, None):
                self.waits.append((n, "blocking", n, None))

    def event_wait(self, event, n, for_stream):
        records = [r for r in self.events.get(event, []) if r[0] < n]
        if records:
            at, stream = records[-1]
            self.waits.append((n, stream, at, for_stream))

    def near(self, address):
        """The allocations that may hold <address>, latest first: the 64
        nearest that start at or below it (a sorted index)."""
        at = bisect.bisect_right(self._bases, address)
        return sorted(self._index[max(0, at - 64):at],
                      key=lambda a: -a["n"])

    def owner(self, address, n, exact=False):
        """The allocation live at call n that holds <address>."""
        if address is None:
            return None
        for alloc in self.near(address):
            if alloc["n"] < n and (alloc["freed"] is None
                                   or alloc["freed"] >= n):
                inside = (address == alloc["base"] if exact else
                          address < max(alloc["end"], alloc["base"] + 1))
                if inside:
                    return alloc
        return None

    def freed_owner(self, address, n):
        """The allocation freed before call n that held <address>, when no
        live allocation holds it now (an address reused is not freed)."""
        if address is None or self.owner(address, n):
            return None
        for alloc in self.near(address):
            if alloc["freed"] is not None and alloc["freed"] < n and (
                    address < max(alloc["end"], alloc["base"] + 1)):
                return alloc
        return None

    def blocking(self, stream):
        """A stream the legacy default stream waits for (and that waits for
        it): not non-blocking, not the per-thread default stream."""
        if stream in (LEGACY, None):
            return True
        return stream != PER_THREAD and not (
            self.flags.get(stream, 0) & NON_BLOCKING)

    def done(self, n, stream, at, for_stream=None):
        """Work queued at call n on <stream> is finished for the host (or
        ordered before <for_stream>'s later work) by call <at>."""
        start = bisect.bisect_right(self.waits, n, key=lambda w: w[0])
        for w_n, w_stream, upto, w_for in self.waits[start:]:
            if w_n >= at:
                break
            if upto <= n:
                continue
            if w_for is not None and w_for != for_stream:
                continue
            if w_stream is None or w_stream == stream or (
                    w_stream == "blocking" and self.blocking(stream)):
                return True
        return False

    def ordered(self, n, stream, at, other):
        """Work at call n on <stream> comes before work at call <at> on
        stream <other>."""
        if stream == other or self.done(n, stream, at, other):
            return True
        if other == LEGACY and self.blocking(stream):
            return True
        if stream in (LEGACY, None) and self.blocking(other):
            return True
        return {stream, other} == {LEGACY, PER_THREAD}

    def pointer_params(self, call):
        """(index, allocation, param type) of a launch's parameters that
        point into a live allocation."""
        found = []
        types = kernels.signature(call) or []
        for i, p in enumerate(call.get("params", [])):
            if p.get("size") != 8:
                continue
            alloc = self.owner(number(p.get("value")), call.get("n", 0))
            if alloc:
                kind = types[i] if i < len(types) else None
                found.append((i, alloc, kind))
        return found

    def int_params(self, call):
        """The values of a launch's integer parameters (4 or 8 bytes, not
        a pointer by its type or by its value)."""
        types = kernels.signature(call) or []
        values = []
        for i, p in enumerate(call.get("params", [])):
            kind = types[i] if i < len(types) else None
            if kind and (kind["pointer"] or kind["float"]):
                continue
            value = number(p.get("value"))
            if p.get("size") in (4, 8) and value is not None and (
                    0 < value < 1 << 31):
                if not self.owner(value, call.get("n", 0)):
                    values.append(value)
        return values


def alloc_bytes(call):
    if call.get("mem") == "pitched" and call.get("pitch"):
        return call["pitch"] * max(call.get("height") or 1, 1)
    return call.get("bytes") or 0


def threads(call):
    total = 1
    for v in list(call.get("grid") or [1]) + list(call.get("block") or [1]):
        total *= max(int(v), 1)
    return total


def device_side(call):
    """The pointers of a copy that its kind says are device pointers."""
    kind = call.get("kind")
    sides = {1: ("dst",), 2: ("src",), 3: ("dst", "src")}.get(kind, ())
    return [(side, number(call.get(side))) for side in sides]


def used_pointers(call):
    """(role, address) for every pointer a call uses."""
    op = call.get("op")
    if op == "copy":
        return [("dst", number(call.get("dst"))),
                ("src", number(call.get("src")))]
    if op in ("memset", "free"):
        return [("ptr", number(call.get("ptr")))]
    if op == "launch":
        return [(f"param {i}", number(p.get("value")))
                for i, p in enumerate(call.get("params", []))
                if p.get("size") == 8]
    return []
