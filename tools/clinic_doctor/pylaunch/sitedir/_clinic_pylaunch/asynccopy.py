"""Host tensors that a queued non_blocking copy has not finished with.

PyTorch's `t.to("cpu", non_blocking=True)`, `host.copy_(t,
non_blocking=True)` (device to host) and `t.to("cuda", non_blocking=True)`,
`dev.copy_(pinned, non_blocking=True)` (host to device) return as soon as
the copy is queued. The check records an event right after each such copy,
on the stream it was queued in, and remembers the host tensor's bytes;
then, when the program reads a host tensor over those bytes (numpy(),
item(), tolist(), print) before the event has completed, it writes a
pyasync record: the host read what the copy had not written yet (chapter
09). A write into the bytes a host-to-device copy has not read yet
(copy_(), fill_(), zero_(), an assignment to a slice) is the same record
for chapter 19. A copy whose event has completed is forgotten; one
finding per copy is enough. Nothing is remembered while a CUDA graph is
being captured, and a copy that PyTorch makes for itself is not a
program's.
"""

import sys

_KEEP = 64  # pending copies remembered at most


def _span(t):
    """(first byte, bytes) of the storage under tensor t."""
    storage = t.untyped_storage()
    return int(storage.data_ptr()), int(storage.nbytes())


def _non_blocking(args, kwargs):
    """Whether a to() / copy_() / cuda() call asks for non_blocking: the
    keyword, or a positional True (to(device, True), copy_(src, True))."""
    if kwargs.get("non_blocking"):
        return True
    return any(a is True for a in args[:3])


class Pending:
    """The copies still queued, as far as the check knows."""

    def __init__(self, check):
        self.check = check
        self.copies = []

    def copied(self, direction, host, gpu, op):
        """A non_blocking copy was queued: direction "d2h" (host is the
        destination) or "h2d" (host is the source); gpu is the device
        tensor, whose device's current stream ran the copy."""
        torch = sys.modules["torch"]
        if host.device.type != "cpu" or gpu.device.type != "cuda":
            return
        if torch.cuda.is_current_stream_capturing():
            return
        where, internal = self.check.where("torch")
        if internal:
            return
        if direction == "h2d" and not host.is_pinned():
            return  # from pageable memory the copy is done on return
        start, size = _span(host)
        event = torch.cuda.Event()
        event.record(torch.cuda.current_stream(gpu.device))
        self.copies.append({"dir": direction, "start": start, "size": size,
                            "event": event, "op": op, "where": where,
                            "bytes": int(host.numel() * host.element_size()),
                            "device": gpu.device.index})
        del self.copies[:-_KEEP]

    def touched(self, t, op, write):
        """The host reads (or writes) tensor t."""
        if not self.copies or getattr(t, "device", None) is None or \
                t.device.type != "cpu":
            return
        start, size = _span(t)
        for copy in list(self.copies):
            if start >= copy["start"] + copy["size"] or \
                    copy["start"] >= start + size:
                continue
            if copy["event"].query():
                self.copies.remove(copy)  # finished: forget it
                continue
            bad = (write and copy["dir"] == "h2d") or (
                not write and copy["dir"] == "d2h")
            if not bad:
                continue
            where, internal = self.check.where("torch")
            if internal:
                return
            self.copies.remove(copy)
            self.check.trace.write({
                "ev": "pyasync", "lib": "torch",
                "access": "write" if write else "read", "op": op,
                "where": where,
                "copy": {k: copy[k] for k in ("dir", "op", "where", "bytes",
                                              "device")}})


_READS = ("numpy", "item", "tolist", "__array__", "__repr__", "__format__",
          "__float__", "__int__", "__bool__")
_WRITES = ("fill_", "zero_", "__setitem__")


def patch(check, torch, wrap):
    """Wraps torch.Tensor's copies and host accesses; wrap(name, before)
    replaces the method name by one that calls before(self, args, kwargs)
    first (guarded) and after(self, result, args, kwargs) after."""
    pending = Pending(check)
    tensor = torch.Tensor

    def moved(self, result, args, kwargs):
        if result is self or not _non_blocking(args, kwargs) or \
                not hasattr(result, "device"):
            return
        if self.device.type == "cuda" and result.device.type == "cpu":
            pending.copied("d2h", result, self, "to(\"cpu\", "
                           "non_blocking=True)")
        elif self.device.type == "cpu" and result.device.type == "cuda":
            pending.copied("h2d", self, result, "to(\"cuda\", "
                           "non_blocking=True)")

    def cuda(self, result, args, kwargs):
        if result is not self and (kwargs.get("non_blocking") or any(
                a is True for a in args[:2])):
            pending.copied("h2d", self, result, "cuda(non_blocking=True)")

    def copy_before(self, args, kwargs):
        pending.touched(self, "copy_", True)

    def copy_after(self, result, args, kwargs):
        src = args[0] if args else kwargs.get("src")
        if src is None or not hasattr(src, "device") or \
                not _non_blocking(args[1:], kwargs):
            return
        if self.device.type == "cpu" and src.device.type == "cuda":
            pending.copied("d2h", self, src, "copy_(..., non_blocking=True)")
        elif self.device.type == "cuda" and src.device.type == "cpu":
            pending.copied("h2d", src, self, "copy_(..., non_blocking=True)")

    wrap(tensor, "to", None, moved)
    wrap(tensor, "cuda", None, cuda)
    wrap(tensor, "copy_", copy_before, copy_after)
    for name in _READS:
        wrap(tensor, name, (lambda op: lambda self, a, k: pending.touched(
            self, op, False))(name), None)
    for name in _WRITES:
        wrap(tensor, name, (lambda op: lambda self, a, k: pending.touched(
            self, op, True))(name), None)
    return pending
