"""The trace rules: each reads one process's calls (model.Process) and
returns findings that name their chapter and quote the calls they rest on,
by record number and arguments:
{"chapter", "summary", "evidence": [...], "strength": "strong"|"weak"}."""

import re

from . import kernels
from .model import DEVICE_MEM, HOST_MEM, Process, device_side, threads
from .model import used_pointers
from .trace import number, quote

KERNEL_FAULTS = re.compile(
    r"IllegalAddress|LaunchFailure|IllegalInstruction|MisalignedAddress|"
    r"InvalidAddressSpace|InvalidPc|HardwareStackError|Assert|"
    r"ILLEGAL_ADDRESS|LAUNCH_FAILED|ILLEGAL_INSTRUCTION|MISALIGNED_ADDRESS|"
    r"INVALID_ADDRESS_SPACE|INVALID_PC|HARDWARE_STACK_ERROR|ASSERT")
# Driver calls that need no current context, and the probing calls a
# library makes (PyCUDA asks cuGetErrorString about every error code).
NO_CONTEXT = re.compile(
    r"^(cuInit|cuDriverGetVersion|cuDevice\w*|cuCtxGetCurrent|"
    r"cuCtxSetCurrent|cuCtxPushCurrent\w*|cuCtxPopCurrent\w*|cuCtxCreate\w*|"
    r"cuDevicePrimaryCtx\w*|cuGetErrorString|cuGetErrorName|"
    r"cuGetProcAddress\w*|cuModuleGetLoadingMode|cuGetExportTable)$")


def finding(chapter, summary, calls, strength="strong"):
    return {"chapter": chapter, "summary": summary,
            "evidence": [quote(c) for c in calls], "strength": strength}


def rule_01(p, context):
    """A buffer or a copy exactly 1/4 or 1/8 of what a launch covers."""
    found = []
    for call in p.calls:
        if call.get("op") != "launch":
            continue
        for _, alloc, kind in p.pointer_params(call):
            strength = "strong"
            if kind is None:  # extern "C" (PyCUDA, CuPy): no types known
                kind, strength = {"size": 4, "const": False}, "weak"
            if not kind["size"] or kind["size"] < 2:
                continue
            for count in p.int_params(call):
                covered = count * kind["size"]
                if count < 16 or threads(call) < count:
                    continue
                short = [c for c in copies_of(p, alloc)
                         if c["bytes"] * 4 == covered
                         or c["bytes"] * 8 == covered]
                size = alloc["end"] - alloc["base"]
                if size * 4 == covered or size * 8 == covered or short:
                    found.append(finding(
                        "01", f"{kernels.display_name(call)} covers {count} "
                        f"elements of {kind['size']} bytes ({covered} bytes),"
                        f" but the buffer holds {size} bytes"
                        + (f" and a copy moves {short[0]['bytes']}"
                           if short else "") + ": a count of elements "
                        "where bytes are due",
                        [alloc["call"], call] + short[:1], strength))
                    return found
    return found


def copies_of(p, alloc):
    """The copies whose device side lies in <alloc> (an index built once
    per process)."""
    if not hasattr(p, "copy_table"):
        p.copy_table = {}
        for c in p.calls:
            if c.get("op") != "copy":
                continue
            owners = {id(o): o for o in (p.owner(a, c.get("n", 0))
                                         for _, a in device_side(c)) if o}
            for key in owners:
                p.copy_table.setdefault(key, []).append(c)
    return p.copy_table.get(id(alloc), [])


def rule_02(p, context):
    """A failed allocation whose pointer is used later."""
    for call in p.calls:
        if call.get("op") != "alloc" or not call.get("result"):
            continue
        value = number(call.get("ptr")) or 0
        for later in p.calls:
            if later.get("n", 0) <= call.get("n", 0):
                continue
            if value == 0 and later.get("op") not in ("copy", "memset"):
                continue  # cudaFree(NULL) is harmless, a 0 may be a count
            if any(a == value for _, a in used_pointers(later)):
                return [finding(
                    "02", f"{call.get('api')} failed "
                    f"({call.get('error', call['result'])}) and its pointer "
                    f"({hex(value)}) is used afterwards", [call, later])]
    return []


def rule_03(p, context):
    """A device-to-host copy larger than its host destination."""
    for call in p.calls:
        chunk = call.get("host_chunk")
        if call.get("op") != "copy" or chunk is None:
            continue
        if call.get("host_chunk_of", "dst") == "dst" and call.get(
                "kind") in (2, 4) and call.get("bytes", 0) > chunk:
            return [finding(
                "03", f"a copy writes {call['bytes']} bytes into a host "
                f"buffer of {chunk} bytes (its heap block)", [call])]
    return []


def rule_07(p, context):
    """A pointer used after its cudaFree (an address that a new allocation
    took again is not)."""
    found = []
    for call in p.calls:
        for role, address in used_pointers(call):
            alloc = p.freed_owner(address, call.get("n", 0))
            if alloc and alloc["mem"] != "managed":
                found.append(finding(
                    "07", f"{call.get('api')} uses {hex(address)} ({role})"
                    f", freed by #{alloc['free_call'].get('n')}",
                    [alloc["call"], alloc["free_call"], call]))
                break
    return found[:1]


def true_class(p, call, side):
    """"device", "host" or None: what a copy's pointer is, by the
    allocation table and the library's class."""
    address = number(call.get(side))
    alloc = p.owner(address, call.get("n", 0))
    mem = alloc["mem"] if alloc else call.get(f"{side}_mem")
    if mem in DEVICE_MEM:
        return "device"
    if mem in HOST_MEM:
        return "host"
    return None


def rule_06(p, context):
    """A copy whose kind contradicts its pointers (even the swap that
    succeeds with pinned memory)."""
    freed = {f["evidence"][-1] for f in rule_07(p, context)}
    for call in p.calls:
        kind = call.get("kind")
        if call.get("op") != "copy" or kind not in (1, 2, 3):
            continue
        if quote(call) in freed:
            continue
        dst, src = true_class(p, call, "dst"), true_class(p, call, "src")
        if kind == 3:  # mapped pinned memory may take part in a D2D copy
            dst = None if dst == "host" and call.get(
                "dst_mem") != "pageable" else dst
            src = None if src == "host" and call.get(
                "src_mem") != "pageable" else src
        want = {1: ("device", "host"), 2: ("host", "device"),
                3: ("device", "device")}[kind]
        wrong = [(side, got, need) for side, got, need in
                 (("dst", dst, want[0]), ("src", src, want[1]))
                 if got and got != need]
        if any(got == "device" for _, got, _ in wrong):
            names = {1: "cudaMemcpyHostToDevice", 2: "cudaMemcpyDeviceToHost",
                     3: "cudaMemcpyDeviceToDevice"}
            said = ", ".join(f"{s} is {g} memory" for s, g, _ in wrong)
            return [finding("06", f"a copy says {names[kind]}, but {said}"
                            + ("" if call.get("result") else
                               " (and it succeeded)"), [call])]
    return []


def launches_writing(p, alloc, before):
    """The launches before call <before> that were given a non-const
    pointer into <alloc> (an index built once per process)."""
    if not hasattr(p, "launch_table"):
        p.launch_table = {}
        for c in p.calls:
            if c.get("op") != "launch":
                continue
            for _, owner, kind in p.pointer_params(c):
                if not (kind and kind["const"]):
                    p.launch_table.setdefault(id(owner), []).append(c)
    return [c for c in p.launch_table.get(id(alloc), [])
            if c.get("n", 0) < before]


def rule_08(p, context, library=False):
    """A kernel on a non-blocking stream writes a buffer that a copy in
    another stream then reads, with nothing ordering the two. A copy in a
    non-blocking stream of a kernel in another kind of stream is chapter
    38's (<library>: rule_38)."""
    for call in p.calls:
        if call.get("op") != "copy" or call.get("kind") not in (2, 3, 4):
            continue
        n, stream = call.get("n", 0), number(call.get("stream")) or 0
        alloc = p.owner(number(call.get("src")), n)
        if not alloc or alloc["mem"] not in DEVICE_MEM:
            continue
        src = number(call.get("src"))
        for launch in launches_writing(p, alloc, n):
            k_stream = number(launch.get("stream")) or 0
            given = [number(q.get("value")) for q in launch.get("params", [])
                     if q.get("size") == 8]
            if not any(src <= (v or -1) < src + (call.get("bytes") or 1)
                       for v in given):
                continue  # the kernel was given another part of the buffer
            if not p.ordered(launch["n"], k_stream, n, stream):
                if handed_over(p, k_stream, stream, call,
                               context) != library:
                    continue
                return [finding(
                    "38" if library else "08",
                    f"{kernels.display_name(launch)} runs in stream "
                    f"{hex(k_stream)} (flags {p.flags.get(k_stream, 0)}) "
                    f"and a copy in stream {hex(stream)} reads its buffer "
                    "with no wait between them", [launch, call])]
    return []


def rule_09(p, context, complete):
    """An async device-to-host copy that nothing waits for before the
    program ends."""
    if not complete:
        return []
    end = p.calls[-1].get("n", 0) + 1 if p.calls else 0
    for call in p.calls:
        if call.get("op") == "copy" and call.get("async") and call.get(
                "kind") == 2 and not call.get("result"):
            stream = number(call.get("stream")) or 0
            if not p.done(call["n"], stream, end):
                return [finding(
                    "09", "an async device-to-host copy is never waited "
                    "for: the host may read its destination before it "
                    "arrives", [call])]
    return []


def rule_10(p, context):
    """A kernel fault first reported by a later call: names the kernel and
    whether its launch was checked."""
    failed = next((c for c in p.calls if c.get("result")), None)
    if not failed or not KERNEL_FAULTS.search(str(failed.get("error", ""))):
        return []
    if failed.get("op") in ("launch", "sync"):
        return []  # the launch itself, or a wait made to catch it
    launches = [c for c in p.calls if c.get("op") == "launch"
                and c.get("n", 0) < failed.get("n", 0)]
    if not launches:
        return []
    launch = launches[-1]
    checked = [c for c in p.calls
               if launch["n"] < c.get("n", 0) < failed["n"]
               and c.get("api", "").endswith(("GetLastError",
                                              "PeekAtLastError"))]
    summary = (f"{kernels.display_name(launch)} faulted, and the fault was "
               f"first reported by {failed.get('api')} "
               f"({failed.get('error')})")
    if checked:
        return [finding("10", summary + "; the launch was checked, but "
                        "only for launch errors", [launch] + checked[:1]
                        + [failed], "weak")]
    late = finding("10", summary + ": nothing checked the launch",
                   [launch, failed])
    # Reported late is true of any fault: a tool's finding that names the
    # fault's own cause (13, 21, 27) goes first.
    late["score"] = 6
    return [late]


def rule_12(p, context):
    """A grid covering fewer threads than the element count passed."""
    source = context.get("source", "")
    stride = re.search(r"gridDim|grid_stride|stride", source) or not (
        re.search(r"blockIdx\.x\s*\*\s*blockDim\.x|"
                  r"blockDim\.x\s*\*\s*blockIdx\.x", source))
    for call in p.calls:
        # One thread loops over its elements by design (<<<1, 1>>>).
        if call.get("op") != "launch" or threads(call) == 1:
            continue
        room = [(alloc, kind or {"size": 4, "guess": True})
                for _, alloc, kind in p.pointer_params(call)
                if kind is None or kind["size"]]
        for count in p.int_params(call):
            fits = [a for a, k in room
                    if (a["end"] - a["base"]) >= count * k["size"]]
            if count > threads(call) and fits:
                strength = "weak" if stride or any(
                    k.get("guess") for _, k in room) else "strong"
                return [finding(
                    "12", f"{kernels.display_name(call)} is launched with "
                    f"{threads(call)} threads for {count} elements",
                    [fits[0]["call"], call], strength)]
    return []


def demangled_types(name):
    """The parameter types of a demangled kernel name, split at the commas
    that no <...>, (...) or [...] encloses (template arguments hold
    commas, and "(anonymous namespace)" parentheses); None when the name
    has no parameter list."""
    name = (name or "").rstrip()
    if not name.endswith(")"):
        return None
    depth, start = 0, None
    for i in range(len(name) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(name[i], 0)
        if depth == 0:
            start = i
            break
    if start is None:
        return None
    types, depth, word = [], 0, ""
    for ch in name[start + 1:-1]:
        depth += {"<": 1, "(": 1, "[": 1, ">": -1, ")": -1, "]": -1}.get(
            ch, 0)
        if ch == "," and depth == 0:
            types.append(word.strip())
            word = ""
        else:
            word += ch
    if word.strip():
        types.append(word.strip())
    return types


def param_types(call):
    """The declared type of each of a launch's parameters, from the kernel's
    C++ name; None when the name declares none (extern "C": PyCUDA's, CuPy's
    kernels) or they do not match the parameters."""
    types = demangled_types(call.get("kernel_demangled"))
    if not types or len(types) != len(call.get("params") or []):
        return None
    return types


def rule_04(p, context):
    """A kernel given a host address (the library found the argument in
    the process's writable host memory, not in any CUDA allocation). Only a
    parameter declared a pointer counts: not a reference (`Op const&`: a
    C++ kernel may take an empty functor so, as PyTorch's indexing kernels
    take their `ReduceAdd const&`, and never dereference it), not an
    integer. Where the types are unknown (param_types), a number such as a
    wait of 300,000,000 ns can fall in the host heap too: that is strong
    only when a kernel fault follows."""
    for call in p.calls:
        if call.get("op") != "launch":
            continue
        types = param_types(call)
        for i, param in enumerate(call.get("params") or []):
            if param.get("points_to") != "host" or (
                    types and not types[i].endswith("*")):
                continue
            faulted = any(c.get("n", 0) > call.get("n", 0) and
                          KERNEL_FAULTS.search(str(c.get("error", "")))
                          for c in p.calls)
            return [finding(
                "04", f"{kernels.display_name(call)} is given a host "
                f"address as parameter {i} ({param.get('value')}, "
                f"host {param.get('host_where') or 'memory'}): a kernel "
                "cannot dereference host memory", [call],
                "strong" if types or faulted else "weak")]
    return []


def rule_14(p, context):
    """A launch with more threads in a block than any GPU allows (1024),
    or a block shape the driver refused (PyCUDA sets it with
    cuFuncSetBlockShape before it launches, and raises when it fails)."""
    for call in p.calls:
        if re.match(r"^cuFuncSetBlockShape", call.get("api", "")) and \
                call.get("result"):
            return [finding(
                "14", f"the driver refused a block shape ({call['api']}: "
                f"{call.get('error', call['result'])}): more threads per "
                "block, or a larger dimension, than the device allows",
                [call])]
    for call in p.calls:
        block = 1
        for v in call.get("block") or []:
            block *= max(int(v), 1)
        if call.get("op") == "launch" and block > 1024:
            return [finding(
                "14", f"{kernels.display_name(call)} is launched with "
                f"{block} threads per block; the limit is 1024", [call])]
    return []


def rule_17(p, context):
    """A host-to-device copy whose data holds host addresses."""
    for call in p.calls:
        if call.get("op") == "copy" and call.get("kind") == 1 and (
                call.get("host_pointers") or call.get("host_addresses")):
            return [finding("17", "a copy to the device carries host "
                            "addresses in its data", [call])]
    return []


def waited_at_once(p, call):
    """The thread's next call waits for this one: the program meant no
    overlap (PyTorch copies from pageable memory that way)."""
    after = [c for c in p.calls if c.get("n", 0) > call.get("n", 0)
             and c.get("tid") == call.get("tid")][:1]
    stream = number(call.get("stream")) or 0
    return bool(after) and p.done(call["n"], stream, after[0]["n"] + 1)


def rule_18(p, context):
    """An async copy from or to pageable memory."""
    for call in p.calls:
        if call.get("op") != "copy" or not call.get("async"):
            continue
        host = {1: "src", 2: "dst"}.get(call.get("kind"))
        if host and true_class(p, call, host) == "host" and (
                call.get(f"{host}_mem") == "pageable") and not waited_at_once(
                    p, call):
            return [finding(
                "18", "cudaMemcpyAsync with pageable host memory: the copy "
                "cannot overlap, it runs as a plain copy", [call])]
    return []


def overlap(a, b):
    """Two copies read overlapping host bytes."""
    sa, sb = number(a.get("src")) or 0, number(b.get("src")) or 0
    size_a, size_b = a.get("bytes") or 1, b.get("bytes") or 1
    return sa < sb + size_b and sb < sa + size_a


def rule_19(p, context):
    """Two queued async copies from the same pinned buffer with nothing
    waiting for the first before the second is queued."""
    last = {}
    for call in p.calls:
        if call.get("op") != "copy" or not call.get("async") or call.get(
                "kind") != 1:
            continue
        alloc = p.owner(number(call.get("src")), call.get("n", 0))
        if not alloc or alloc["mem"] not in ("pinned", "registered"):
            continue
        before = last.get(id(alloc))
        last[id(alloc)] = call
        if before and overlap(before, call) and not p.done(
                before["n"], number(before.get("stream")) or 0, call["n"]):
            return [finding(
                "19", "a pinned buffer is copied again while its previous "
                "async copy may not have read it yet", [before, call])]
    return []


def rule_20(p, context):
    """A copy's device pointer that no allocation owns (a device-heap
    pointer, an address made up)."""
    if any(re.match(r"^cuMem(Map|Create|AddressReserve)", c.get("api", ""))
           for c in p.calls):
        return []  # virtual memory management: allocations unseen
    for call in p.calls:
        if call.get("op") != "copy" or call.get("symbol"):
            continue  # a symbol's address is no allocation's
        if call.get("result") and made_arrays(p):
            continue  # a cudaArray_t refused by a plain copy: chapter 35
        if call.get("kind") in (1, 2) and "device" in (
                true_class(p, call, "dst"), true_class(p, call, "src")) and (
                true_class(p, call, "dst") != true_class(p, call, "src")):
            if true_class(p, call, {1: "src", 2: "dst"}[call["kind"]]) == (
                    "device"):
                continue  # swapped sides: chapter 06
        for side, address in device_side(call):
            n = call.get("n", 0)
            if address and not p.owner(address, n) and not p.freed_owner(
                    address, n) and call.get(f"{side}_mem") in (
                    "unknown", "pageable", None) and not call.get(
                        f"{side}_base") and not ends_at(p, address, n):
                return [finding(
                    "20", f"{call.get('api')}'s {side} {hex(address)} "
                    "belongs to no allocation the program made (a device "
                    "heap pointer from malloc() in a kernel?)", [call])]
    return []


def becomes(byte, kind):
    """What each element of a buffer memset to <byte> holds."""
    import struct
    size = (kind or {}).get("size") or 4
    raw = bytes([byte]) * size
    if kind and kind.get("float") and size in (4, 8):
        value = struct.unpack("<f" if size == 4 else "<d", raw)[0]
        return f"each {'float' if size == 4 else 'double'} becomes {value}"
    name = {2: "short", 4: "int", 8: "long long"}.get(size, "int")
    return f"each {name} becomes {int.from_bytes(raw, 'little', signed=True)}"


def rule_25(p, context):
    """A memset whose byte is neither 0x00 nor 0xFF on a buffer used as
    wider elements afterwards."""
    for call in p.calls:
        value = call.get("value")
        if call.get("op") != "memset" or (call.get("elem") or 1) != 1 or \
                not isinstance(value, int) or value & 0xFF in (0, 0xFF):
            continue
        alloc = p.owner(number(call.get("ptr")), call.get("n", 0))
        if not alloc:
            continue
        reads = {id(c) for c in copies_of(p, alloc) if c.get("kind") == 2}
        for later in p.calls[p.calls.index(call) + 1:]:
            kinds = [k for _, a, k in p.pointer_params(later)
                     if a is alloc] if later.get("op") == "launch" else []
            wide = [k for k in kinds if k and (k["size"] or 0) > 1]
            read = id(later) in reads
            if wide or read:
                kind = wide[0] if wide else None
                return [finding(
                    "25", f"cudaMemset sets bytes: value {value} fills "
                    f"every byte with {value & 0xFF:#04x}, so "
                    f"{becomes(value & 0xFF, kind)}", [call, later])]
    return []


def never_read_back(p):
    """(launch, allocation, free) of a kernel's output buffer that no copy
    read after the launch before it was freed, in a process that copied
    nothing to the host at all: the program's read-back never reached CUDA
    (PyCUDA refuses memcpy_dtoh(dev, host), the arguments swapped, with a
    TypeError before it calls the driver)."""
    if any(c.get("op") == "copy" and c.get("kind") in (2, 4)
           for c in p.calls):
        return None
    for call in p.calls:
        if call.get("op") != "launch" or call.get("result"):
            continue
        for _, alloc, _ in p.pointer_params(call):
            if alloc["mem"] == "device" and alloc["free_call"] is not None:
                return call, alloc, alloc["free_call"]
    return None


def rule_06_unread(p, context):
    """A hint for 06: a kernel's output never copied back (see
    never_read_back); weak, for a program that also may not need it."""
    found = never_read_back(p)
    if not found:
        return []
    launch, alloc, free = found
    return [finding(
        "06", f"{kernels.display_name(launch)} writes a buffer that no copy "
        "reads back before it is freed, and nothing is copied to the host: "
        "the read-back never reached CUDA (a copy refused for its "
        "arguments, as PyCUDA refuses swapped ones)",
        [alloc["call"], launch, free], "weak")]


def pitched_launch(p):
    """(allocation, launch) of a kernel given pitched memory whose rows are
    wider than the data (pitch > width)."""
    for call in p.calls:
        if call.get("op") != "launch":
            continue
        for _, alloc, _ in p.pointer_params(call):
            made = alloc["call"]
            if alloc["mem"] == "pitched" and made.get("pitch", 0) > made.get(
                    "width", 0) > 0:
                return alloc, call
    return None


def rule_26_kernel(p, context):
    """A hint for 26: a kernel indexes pitched memory, which it must step
    by the pitch; the trace cannot see how it indexes (weak)."""
    found = pitched_launch(p)
    if not found:
        return []
    alloc, launch = found
    made = alloc["call"]
    return [finding(
        "26", f"{kernels.display_name(launch)} is given pitched memory: rows "
        f"{made['pitch']} bytes apart hold {made['width']} bytes each, so "
        "its row index must step by the pitch, not the width",
        [made, launch], "weak")]


def rule_26(p, context):
    """A pitched allocation copied or indexed with its width, not its
    pitch."""
    for call in p.calls:
        for side, pitch_key in (("dst", "dpitch"), ("src", "spitch")):
            alloc = p.owner(number(call.get(side)), call.get("n", 0))
            if call.get("op") != "copy" or not alloc or alloc["mem"] != (
                    "pitched"):
                continue
            pitch = alloc["call"].get("pitch")
            given = call.get(pitch_key)
            if given is None and call.get("bytes") == (
                    alloc["call"].get("width", 0) * alloc["call"].get(
                        "height", 0)) and pitch != alloc["call"].get("width"):
                given = alloc["call"].get("width")
            if given is not None and pitch and given != pitch:
                return [finding(
                    "26", f"pitched memory (pitch {pitch} bytes) copied "
                    f"with a row step of {given}", [alloc["call"], call])]
    return rule_26_kernel(p, context)


def rule_29(p, context):
    """A buffer a kernel reads as 4-byte floats, filled from the host with
    exactly twice the bytes the kernel's count covers, while another of its
    float buffers holds exactly that count: 8-byte values (double) read as
    float. Strong only where the kernel's parameter types are known."""
    for call in p.calls:
        if call.get("op") != "launch":
            continue
        floats = [(alloc, kind) for _, alloc, kind in p.pointer_params(call)
                  if kind and kind["size"] == 4 and kind["float"]]
        for count in p.int_params(call):
            covered = count * 4
            exact = [a for a, _ in floats if a["end"] - a["base"] == covered]
            for alloc, kind in floats:
                fills = [c for c in copies_of(p, alloc)
                         if c.get("kind") == 1 and c["n"] < call["n"]
                         and c["bytes"] == 2 * covered]
                if kind["const"] and fills and exact and alloc not in exact:
                    return [finding(
                        "29", f"{kernels.display_name(call)} reads {count} "
                        f"floats (4 bytes each, {covered} bytes) from a "
                        f"buffer the host filled with {fills[0]['bytes']} "
                        "bytes, twice that: 8-byte values (double) read as "
                        "float", [alloc["call"], fills[0], call])]
    return []


def rule_31(p, context):
    """A call in a thread with no current context (a library's probing
    calls are not)."""
    for call in p.calls:
        error = str(call.get("error", ""))
        api = call.get("api", "")
        if NO_CONTEXT.match(api):
            continue
        if re.search(r"INVALID_CONTEXT|InvalidContext|CONTEXT_IS_DESTROYED",
                     error) or (call.get("layer") == "drv" and call.get(
                         "ctx") in ("0x0", 0) and call.get("result")):
            return [finding(
                "31", f"{api} in thread {call.get('tid')}, which has no "
                "current context", [call])]
    return []


def allocated_on(p, device, before):
    """True when the process allocated device memory on <device> before
    call <before>."""
    return any(a["dev"] == device and a["mem"] == "device" and a["n"] < before
               for a in p.allocs)


def rule_32_33(p, context):
    """A kernel on one device given another device's allocation without
    peer access: 32 when the allocation was made on the default device
    before any cudaSetDevice, 33 when it was made there on purpose (after a
    cudaSetDevice, or with no cudaSetDevice at all beside memory the
    program also placed on the launch's device)."""
    for call in p.calls:
        if call.get("op") != "launch" or call.get("dev") is None:
            continue
        for _, alloc, _ in p.pointer_params(call):
            other = alloc["dev"]
            if other is None or other == call["dev"] or alloc["mem"] == (
                    "managed") or (call["dev"], other) in p.peers:
                continue
            early = p.set_device_at is None or alloc["n"] < p.set_device_at
            if p.set_device_at is None and allocated_on(p, call["dev"],
                                                        call["n"]):
                # No cudaSetDevice (contexts, as PyCUDA uses): a program
                # that also placed memory on the launch's device chose
                # each buffer's device on purpose.
                early = False
            chapter = "32" if early else "33"
            return [finding(
                chapter, f"{kernels.display_name(call)} runs on device "
                f"{call['dev']} and is given memory of device {other}"
                + (", allocated before any cudaSetDevice" if early else
                   ", with no peer access enabled"),
                [alloc["call"], call])]
    return []


# The calls that make a CUDA array: the handle they return is no address.
ARRAY_CALLS = re.compile(r"^(cudaMalloc(3D|Mipmapped)?Array|"
                         r"cuArray(3D)?Create|cuMipmappedArrayCreate)")


def made_arrays(p):
    """The first successful call that made a CUDA array, or None."""
    return next((c for c in p.calls if ARRAY_CALLS.match(c.get("api", ""))
                 and not c.get("result")), None)


def rule_35(p, context):
    """A plain copy refused whose device side belongs to no allocation, in
    a process that made CUDA arrays: a cudaArray_t handed to cudaMemcpy,
    which takes addresses (the trace cannot see a handle's value, only
    that such a call was made)."""
    made = made_arrays(p)
    if not made:
        return []
    for call in p.calls:
        if call.get("op") != "copy" or call.get("symbol") or not call.get(
                "result"):
            continue
        n = call.get("n", 0)
        for side, address in device_side(call):
            if address and not p.owner(address, n) and not p.freed_owner(
                    address, n):
                return [finding(
                    "35", f"{call.get('api')} was refused "
                    f"({call.get('error')}): its {side} {hex(address)} "
                    f"belongs to no allocation, and the program made CUDA "
                    f"arrays ({made.get('api')}): a cudaArray_t is a "
                    "handle, not an address; copy with cudaMemcpy2DToArray "
                    "or cudaMemcpy2DFromArray", [made, call])]
    return []


def process_findings(process, context):
    """Every rule's findings for one traced process."""
    p = Process(process["calls"])
    found = []
    for rule in RULES:
        found += rule(p, context)
    found += rule_09(p, context, process.get("complete", False))
    return found


def ruled_out(trace):
    """The chapters a trace speaks against: 12 when every launch's grid
    covers the counts it was given, 25 when every memset's byte is 0x00
    or 0xFF, 10 when the faulting kernel's launch was checked."""
    against = set()
    for process in trace.get("api", []):
        p = Process(process["calls"])
        launches = [c for c in p.calls if c.get("op") == "launch"]
        if launches and not rule_12(p, {}) and all(
                max(p.int_params(c) or [0]) <= threads(c) for c in launches):
            against.add("12")
        memsets = [c for c in p.calls if c.get("op") == "memset"]
        if memsets and not rule_25(p, {}):
            against.add("25")
        if any(f["strength"] == "weak" for f in rule_10(p, {})):
            against.add("10")
    return sorted(against)


def trace_findings(trace, context, python_rules=None):
    """The findings of a whole trace: every process's, then the Python
    launch check's (<python_rules>: pylaunch.rules.findings)."""
    found = []
    for process in trace.get("api", []):
        for f in process_findings(process, context):
            if len(trace["api"]) > 1:
                f["evidence"] = [f"process {process['pid']}: {e}"
                                 for e in f["evidence"]]
            found.append(f)
    if python_rules:
        for process in trace.get("py", []):
            found += [dict(f, source="pylaunch")
                      for f in python_rules(process["records"])]
    return explained_by_launch_check(found)


# A program that makes its own side streams with PyTorch: they are
# non-blocking (torch.cuda.Stream() has flags 1), and work in them is the
# program's own, not a library's it handed a buffer to.
OWN_SIDE_STREAMS = re.compile(r"\btorch\.cuda\.(stream|Stream)\(")


def handed_over(p, k_stream, stream, call, context=None):
    """A device-to-device copy runs in a non-blocking stream and the kernel
    does not: the buffer went on to code with a stream of its own (a
    library's), unless the program makes such streams itself
    (OWN_SIDE_STREAMS in its source). A copy to the host in such a stream
    is the program reading its own results, chapter 08's."""
    if context and OWN_SIDE_STREAMS.search(context.get("source") or ""):
        return False
    to_device = call.get("kind") == 3 or (
        call.get("kind") == 4 and call.get("dst_mem") in DEVICE_MEM)
    return to_device and bool(p.flags.get(stream, 0) & 0x1) and not (
        p.flags.get(k_stream, 0) & 0x1)


def rule_38(p, context):
    """Chapter 08's race the other way round: a kernel in the caller's
    stream writes a buffer, and a copy in a non-blocking stream, a
    library's own, reads it with nothing ordering the two: the pointer was
    handed over before the kernel was done."""
    return rule_08(p, context, library=True)


# The largest grid a launch may have, x, y, z, on every GPU CUDA 13
# supports (Programming Guide, "Features and Technical Specifications").
MAX_GRID = (2 ** 31 - 1, 65535, 65535)


def rule_43(p, context):
    """A refused launch whose block is within 1024 threads (that is rule
    14's): a grid dimension above its maximum, or a block with more
    threads than the kernel's registers allow (out of resources)."""
    for call in p.calls:
        if call.get("op") != "launch" or not call.get("result"):
            continue
        error = str(call.get("error", call["result"]))
        grid = [int(v) for v in call.get("grid") or []]
        over = [f"grid.{axis} = {size}" for axis, size, top in
                zip("xyz", grid, MAX_GRID) if size > top]
        if over:
            return [finding(
                "43", f"{kernels.display_name(call)} was launched with "
                f"{', '.join(over)}, above the limit (x 2^31 - 1, y and z "
                f"65535): the launch was refused ({error})", [call])]
        if re.search(r"OutOfResources|OUT_OF_RESOURCES", error):
            block = 1
            for size in call.get("block") or []:
                block *= max(int(size), 1)
            return [finding(
                "43", f"the launch of {kernels.display_name(call)} with "
                f"{block} threads per block was refused ({error}): "
                "the kernel needs more registers than a block that size "
                "can have", [call])]
    return []


DEVICES = re.compile(r"runs on device (\d+)\b.*\bgiven memory (?:of|on) "
                     r"device (\d+)")


def explained_by_launch_check(found):
    """Drops the trace's 33 for a launch on device D given device O's
    memory when the Python launch check names 32 for the same pair: the
    check saw the program launch a raw kernel on the current device with
    a tensor or array it had placed on the other, and a library that
    switches devices for each allocation (PyTorch's device guard) makes
    the trace look like memory placed on purpose."""
    pairs = {DEVICES.search(f["summary"]).groups() for f in found
             if f.get("source") == "pylaunch" and f["chapter"] == "32"
             and DEVICES.search(f["summary"])}
    return [f for f in found if not (
        f["chapter"] == "33" and f.get("source") != "pylaunch"
        and DEVICES.search(f["summary"])
        and DEVICES.search(f["summary"]).groups() in pairs)]


def ends_at(p, address, n):
    """The allocation live at call n that ends exactly at <address>: the
    address is one past its last byte (where the next chunk of a buffer
    that came out short would go), not a pointer from nowhere."""
    alloc = p.owner(address - 1, n) if address else None
    return alloc if alloc and alloc["end"] == address else None


def rule_36(p, context):
    """A copy whose device pointer is the end of an allocation, after
    copies that filled the allocation up to there: the program goes on
    past a buffer that is shorter than it thinks (a byte count multiplied
    in 32 bits wraps past 4 GiB to a small size)."""
    for call in p.calls:
        if call.get("op") != "copy" or call.get("symbol"):
            continue
        n = call.get("n", 0)
        for side, address in device_side(call):
            alloc = ends_at(p, address, n)
            if not alloc or p.owner(address, n):
                continue
            before = [c for c in copies_of(p, alloc) if c.get("n", 0) < n]
            if not any(number(c.get(side)) + c.get("bytes", 0) == address
                       for c in before):
                continue
            size = alloc["end"] - alloc["base"]
            return [finding(
                "36", f"{call.get('api')}'s {side} {hex(address)} is the end "
                f"of a {size}-byte allocation that the copies before it "
                "filled: the program goes on past a buffer shorter than it "
                "thinks; was its byte count computed in 32 bits?",
                [alloc["call"], before[-1], call])]
    return []


# A Numba kernel takes each array as Numba's own struct, which the launch
# flattens into 8-byte parameters: meminfo, parent, nitems, itemsize, data,
# then ndim shapes and ndim strides (numba-cuda's _prepare_args); the
# demangled name lists it as Array<int, 1, C, mutable, aligned>.
NUMBA_ARRAY = re.compile(r"^Array<([^,<>]+), (?:\(int\))?(\d+),")


def numba_arrays(call):
    """(nitems, data pointer, element bytes) of each array a Numba kernel
    was launched with, read from its parameters by the layout above; []
    for any other kernel, or one with a parameter this cannot size."""
    m = re.search(r"\]\((.*)\)\s*$", call.get("kernel_demangled") or "")
    if not m or "Array<" not in m.group(1):
        return []
    params, found, i = call.get("params") or [], [], 0
    texts = re.split(r",\s*(?![^<>]*>)", m.group(1))
    for text in texts:
        array = NUMBA_ARRAY.match(text.strip())
        kind = kernels.demangled_params("(%s)" % (
            array.group(1) if array else text))
        if not kind or kind[0]["size"] is None or "complex" in text:
            return []  # a record, a tuple, a complex: not one parameter
        if not array:
            i += 1
            continue
        ndim = int(array.group(2))
        if i + 5 + 2 * ndim > len(params):
            return []
        found.append((number(params[i + 2].get("value")),
                      number(params[i + 4].get("value")), kind[0]["size"]))
        i += 5 + 2 * ndim
    return found


def rule_12_numba(p, context):
    """Rule 12 for a one-dimensional Numba launch: fewer threads than the
    elements of an array it was given, whose allocation holds them all. A
    hint only: a Numba kernel is given every array's size, a lookup
    table's as well as its output's."""
    for call in p.calls:
        if call.get("op") != "launch" or any(
                int(v) > 1 for v in list(call.get("grid") or [1])[1:]
                + list(call.get("block") or [1])[1:]):
            continue
        for nitems, data, size in numba_arrays(call):
            alloc = p.owner(data, call.get("n", 0))
            if nitems and alloc and nitems > threads(call) and (
                    alloc["end"] - alloc["base"] >= nitems * size):
                return [finding(
                    "12", f"{kernels.display_name(call)} is launched with "
                    f"{threads(call)} threads for an array of {nitems} "
                    "elements", [alloc["call"], call], "weak")]
    return []


# Every rule process_findings() applies (rule_09 apart: it needs to know
# whether the trace is complete), in the order a finding goes first when two
# fit: 07 before 06.
RULES = (rule_02, rule_07, rule_06, rule_03, rule_01, rule_04, rule_08,
         rule_10, rule_12, rule_14, rule_17, rule_18, rule_19, rule_20,
         rule_25, rule_26, rule_29, rule_31, rule_32_33, rule_06_unread,
         rule_35, rule_38, rule_43, rule_36, rule_12_numba)
