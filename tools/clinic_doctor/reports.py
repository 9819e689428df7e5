"""compute-sanitizer's reports, parsed into records: the kind of error, the
kernel or CUDA call, file and line, and what the address was."""

import re

FAR = 1 << 40  # bytes from any allocation: the address is not near one
# Element sizes whose 32-bit index, wrapped past 2^31 - 1, is recognised: an
# index i that wraps to -2^31 lands 2^31 * size bytes before the array.
WRAP_ELEMENTS = {
    1: "bytes (char, or a byte offset)",
    2: "2-byte elements (short, half)",
    4: "4-byte elements (int, float)",
    8: "8-byte elements (double, long long, a pointer)",
}
SUMMARY_LINES = re.compile(
    r"^(COMPUTE-SANITIZER|ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|"
    r"Target application returned an error|Note:|"
    r"Error: process didn't terminate)"
)
KIND_RULES = (
    (r"^Invalid __\w+__ (read|write|atomic)", "invalid-access"),
    (r"^Program hit cuda|^Program hit CUDA_ERROR", "api-error"),
    (r"^Uninitialized __\w+__ memory read", "uninitialized-read"),
    (r"^Barrier error|^Invalid (warp|barrier)|[Ss]ync", "barrier"),
    (r"Race reported|[Hh]azard", "race"),
    (r"^Leaked [0-9,]+ bytes", "leak"),
    (r"^Malloc/Free|^Invalid __global__ free|[Ff]ree error|"
     r"^Address .* on the device heap", "device-heap"),
    (r"^Out-of-range|^Misaligned|^Invalid PC|^Illegal|^Hardware|"
     r"^Cuda API error|^Lane user stack overflow", "device-fault"),
)
WILD = ("the address is no valid address at all: a garbage pointer or "
        "index")


def strip_prefix(line):
    """A report line without compute-sanitizer's "========= " prefix, or
    None for a line that is the program's own output."""
    match = re.match(r"^=+ ?(.*)$", line)
    return match.group(1) if match else None


def kind_of(headline):
    """The kind of a record from its first line."""
    for pattern, kind in KIND_RULES:
        if re.search(pattern, headline):
            return kind
    return "other"


def wrapped_element(distance, size):
    """The element size (1, 2, 4 or 8 bytes) for which an access <distance>
    bytes before an allocation of <size> bytes is where a wrapped 32-bit
    index lands, or None. An index into k-byte elements that passes 2^31 - 1
    becomes -2^31 and lands k * 2^31 bytes before the start; the indices
    after it land nearer, so the window is k * 2^30 to k * 2^31 bytes. The
    allocation must hold more than 2^31 such elements, or no index into it
    would reach 2^31 (a small buffer far from the address is not one)."""
    for k in sorted(WRAP_ELEMENTS):
        if size > k << 31 and k << 30 <= distance <= k << 31:
            return k
    return None


def access_address(text, facts, says):
    """The accessed address (int or None), with its null/wild facts."""
    access = re.search(r"Access to (0x[0-9a-fA-F]+|\S+)", text)
    address = None
    if access and re.match(r"0x[0-9a-fA-F]+$", access.group(1)):
        address = int(access.group(1), 16)
        if address < 0x10000:
            facts.append("null")
            says.append("the address is (next to) NULL")
        elif address >= 1 << 47:
            facts.append("wild")
            says.append(WILD)
    return access, address


def far_facts(address, distance, facts, says):
    """An address no allocation is near: perhaps a host address."""
    if "null" in facts or "wild" in facts:
        return
    facts.append("no-allocation-near")
    host = address is not None and (
        0x550000000000 <= address < 0x570000000000
        or 0x7ff000000000 <= address < 0x800000000000)
    if host:
        facts.append("host-address")
    says.append(("a host address: " if host else "") + "no GPU allocation "
                f"is near it (the nearest is {distance} bytes away)")


def near_facts(side, distance, size, facts, says):
    """An address past the end or before the start of an allocation."""
    if side == "after":
        facts.append("past-end")
        facts.append("past-end-far" if distance + 1 >= size // 2
                     else "past-end-near")
        says.append(f"past the end of an allocation of {size} bytes, by "
                    f"{distance} bytes (at least)")
        return
    facts.append("before-start")
    if distance >= 1 << 20:
        facts.append("before-start-far")
    said = (f"{distance} bytes before the start of an allocation "
            f"of {size} bytes")
    element = wrapped_element(distance, size)
    if element:
        facts.append("before-start-wrap")
        unit = "byte" if element == 1 else "bytes"
        said += (f": about {2 * element} GiB (2^31 × {element} "
                 f"{unit}), where a 32-bit index into "
                 f"{WRAP_ELEMENTS[element]} lands when it wraps past "
                 "2^31 - 1")
    says.append(said)


def address_facts(text):
    """Facts about the address of an access, from a record's text, and a
    sentence saying it."""
    facts, says = [], []
    access, address = access_address(text, facts, says)
    m = re.search(
        r"is ([0-9,]+) bytes? (after|before) the nearest allocation at "
        r"(0x[0-9a-fA-F.]+|\S+) of size ([0-9,]+) bytes", text)
    if m:
        distance = int(m.group(1).replace(",", ""))
        size = int(m.group(4).replace(",", ""))
        if distance >= 1 << 47 and "wild" not in facts:
            facts.append("wild")  # farther than any two user addresses
            says.append(WILD)
        if distance >= FAR or "null" in facts or "wild" in facts:
            far_facts(address, distance, facts, says)
        else:
            near_facts(m.group(2), distance, size, facts, says)
    if re.search(r"inside the nearest allocation|is inside", text):
        facts.append("inside-allocation")
    if re.search(r"freed|free'd|already been freed", text, re.I):
        facts.append("freed")
        says.append("the memory was freed")
    if re.search(r"device heap|heap allocation", text, re.I):
        facts.append("device-heap")
        says.append("the memory is on the device heap (in-kernel malloc)")
    if (access and not m and "null" not in facts and "wild" not in facts
            and "out of bounds" in text):
        facts.append("no-allocation-near")
        says.append("no GPU allocation is near the address: a host pointer, "
                    "a freed buffer or a wild pointer")
    return facts, "; ".join(says)


def summary_line(line, summary):
    """Reads the counts of a summary line into <summary>."""
    m = re.match(r"ERROR SUMMARY: ([0-9]+) errors?", line)
    if m:
        summary["errors"] = int(m.group(1))
    m = re.match(r"RACECHECK SUMMARY: ([0-9]+) hazards? displayed "
                 r"\(([0-9]+) errors?, ([0-9]+) warnings?\)", line)
    if m:
        summary["hazards"] = int(m.group(1))
        summary["errors"] = int(m.group(2))
        summary["warnings"] = int(m.group(3))


def parse_report(text, tool):
    """The records of a compute-sanitizer report and its summary:
    (records, summary). A record: tool, headline, kind, lines (its text),
    kernel, file, line, api, error, facts, address."""
    records, summary = [], {"errors": None, "hazards": None, "problems": []}
    current = None
    for raw in text.splitlines():
        line = strip_prefix(raw)
        if line is None:
            continue
        if not line.strip():
            current = None
        elif line.startswith(" "):
            if current is not None:
                current["lines"].append(line.rstrip())
        else:
            summary_line(line, summary)
            current = None
            if SUMMARY_LINES.match(line):
                continue
            if re.match(r"^(Error|Internal error|Device not supported|"
                        r"Target application terminated)", line) and not \
                    re.search(r"Race reported", line):
                summary["problems"].append(line.strip())
                continue
            current = {"tool": tool, "headline": line.strip(),
                       "lines": [line.rstrip()]}
            records.append(current)
    for record in records:
        finish_record(record)
    return records, summary


def finish_record(record):
    head = record["headline"]
    text = "\n".join(record["lines"])
    record["kind"] = kind_of(head)
    record["text"] = text
    m = re.search(r"^\s+at (.+?)(?:\+0x[0-9a-fA-F.]+)?(?: in (\S+?):([0-9]+))?"
                  r"$", text, re.M)
    record["kernel"] = m.group(1).strip() if m else None
    record["file"] = m.group(2) if m and m.group(2) else None
    record["line"] = int(m.group(3)) if m and m.group(3) else None
    if record["file"] is None:
        m = re.search(r"\bin ([\w.-]+\.(?:cu|cuh|cpp|c|h)):([0-9]+)", text)
        if m:
            record["file"], record["line"] = m.group(1), int(m.group(2))
    m = re.search(r"Program hit (\w+) \(error ([0-9]+)\) due to \"([^\"]*)\""
                  r" on CUDA API call to (\w+)", head)
    record["error"] = m.group(1) if m else None
    record["api"] = m.group(4) if m else None
    facts = []
    m = re.search(r"Invalid __(\w+)__ (read|write|atomic)", head)
    if m:
        facts += [m.group(1), m.group(2)]
    if record["api"]:
        facts += [f"api:{record['api']}", f"error:{record['error']}"]
    more, says = address_facts(text)
    record["facts"] = facts + more
    record["address"] = says
    if record["kind"] == "device-heap" and "device-heap" not in facts:
        record["facts"].append("device-heap")


def group_records(records):
    """Records of one kind at one place, merged: the findings' raw material.
    Keeps the first record's text and the widest address description."""
    groups = {}
    for record in records:
        key = (record["tool"], re.sub(r"[0-9]+ bytes", "N bytes",
                                      record["headline"]),
               record["kernel"], record["file"], record["line"])
        if record["kind"] == "leak":
            key = (record["tool"], "leak")
        group = groups.get(key)
        if group is None:
            groups[key] = dict(record, count=1, all_facts=set(
                record["facts"]), overrun=overrun(record))
            continue
        group["count"] += 1
        group["all_facts"].update(record["facts"])
        if overrun(record) > group["overrun"]:
            group["overrun"] = overrun(record)
            group["address"] = record["address"]
    result = list(groups.values())
    for group in result:
        group["facts"] = sorted(group.pop("all_facts"))
        if "past-end-far" in group["facts"] and (
                "past-end-near" in group["facts"]):
            group["facts"].remove("past-end-near")
    return result


def overrun(record):
    m = re.search(r"is ([0-9,]+) bytes? after the nearest", record["text"])
    return int(m.group(1).replace(",", "")) if m else -1
