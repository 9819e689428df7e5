"""Unit tests of the doctor's trace rules (tools/clinic_doctor/rules.py) on
hand-written traces, in the format the injection library writes
(docs/doctor.md): every rule fires on its bug and stays quiet on the fixed
form, and the edge cases hold (an address reused after a free,
cudaMemcpyDefault, the per-thread default stream, two threads and
contexts, pooled allocators, a log cut by a crash). When recorded traces of
the chapters' programs exist (tests/doctor/traces/chNN/), each broken
program's trace must raise its chapter first and no fixed program's trace
may raise any.
"""

import json
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRACES = Path(__file__).resolve().parent / "traces"
sys.path.insert(0, str(ROOT / "tools"))
from clinic_doctor import rules, trace, tracerun  # noqa: E402
from clinic_doctor.pylaunch import rules as pylaunch_rules  # noqa: E402

DEV, DEV2, HOST, PINNED = 0x7f0000000000, 0x7f1000000000, 0x5600000000, \
    0x7e0000000000
LEGACY, PER_THREAD, STREAM = "0x0", "0x2", "0x5000"


class Calls:
    """A trace being written: each method appends one call record."""

    def __init__(self):
        self.calls = []

    def add(self, api, **fields):
        record = {"n": len(self.calls) + 1, "ev": "call", "tid": 1,
                  "api": api, "layer": "rt", "dev": 0, "ctx": "0x100",
                  "result": 0}
        for key, value in fields.items():
            record[key] = hex(value) if key in (
                "ptr", "dst", "src", "event") and isinstance(
                    value, int) else value
        self.calls.append(record)
        return self

    def malloc(self, ptr, size, mem="device", dev=0, **more):
        return self.add("cudaMalloc", op="alloc", ptr=ptr, bytes=size,
                        mem=mem, dev=dev, **more)

    def free(self, ptr):
        return self.add("cudaFree", op="free", ptr=ptr, mem="device")

    def copy(self, dst, src, size, kind, dst_mem="device", src_mem="pageable",
             stream=LEGACY, is_async=False, **more):
        return self.add("cudaMemcpyAsync" if is_async else "cudaMemcpy",
                        op="copy", dst=dst, src=src, bytes=size, kind=kind,
                        dst_mem=dst_mem, src_mem=src_mem, stream=stream,
                        **{"async": is_async}, **more)

    def launch(self, kernel, params, grid=(4, 1, 1), block=(256, 1, 1),
               stream=LEGACY, dev=0):
        values = [{"offset": 8 * i, "size": size, "value": hex(value)}
                  for i, (size, value) in enumerate(params)]
        return self.add("cudaLaunchKernel", op="launch", kernel=kernel,
                        grid=list(grid), block=list(block), shmem=0,
                        stream=stream, params=values, dev=dev)

    def sync(self, what="device", **more):
        return self.add({"device": "cudaDeviceSynchronize",
                         "stream": "cudaStreamSynchronize",
                         "event": "cudaEventSynchronize"}[what], op="sync",
                        what=what, **more)

    def trace(self, complete=True):
        return {"api": [{"pid": 1, "exe": "prog", "cupti": "ok",
                         "calls": self.calls, "complete": complete,
                         "dropped": {}, "truncated": False,
                         "file": "api-1.jsonl"}], "py": []}


def chapters(calls, source="", complete=True):
    """The chapters the rules name for a trace, strong ones first."""
    found = rules.trace_findings(calls.trace(complete), {"source": source})
    strong = [f["chapter"] for f in found if f["strength"] == "strong"]
    return strong + [f["chapter"] for f in found if f["chapter"] not in
                     strong]


def strong(calls, source="int i = blockIdx.x * blockDim.x + threadIdx.x;"):
    found = rules.trace_findings(calls.trace(), {"source": source})
    return [f["chapter"] for f in found if f["strength"] == "strong"]


SQUARES = "_Z7squaresPii"  # squares(int *, int)


class EachRule(unittest.TestCase):
    def test_01_a_buffer_of_n_bytes_for_n_ints(self):
        broken = Calls().malloc(DEV, 1000).launch(SQUARES, [(8, DEV),
                                                            (4, 1000)])
        broken.copy(HOST, DEV, 1000, 2, "pageable", "device")
        self.assertEqual(strong(broken), ["01"])
        fixed = Calls().malloc(DEV, 4000).launch(SQUARES, [(8, DEV),
                                                           (4, 1000)])
        fixed.copy(HOST, DEV, 4000, 2, "pageable", "device")
        self.assertEqual(strong(fixed), [])

    def test_29_doubles_copied_into_a_float_buffer(self):
        """scale(float, const float *, float *, int): the input filled with
        twice the bytes n floats take, the output n floats."""
        scale = "_Z5scalefPKfPfi"
        out = DEV + 0x1000

        def program(in_bytes):
            calls = Calls().malloc(DEV, in_bytes).copy(DEV, HOST, in_bytes, 1)
            calls.malloc(out, 4000)
            calls.launch(scale, [(4, 0x40000000), (8, DEV), (8, out),
                                 (4, 1000)])
            return calls.copy(HOST, out, 4000, 2, "pageable", "device")

        self.assertEqual(strong(program(8000)), ["29"])
        # The near miss, the fixed program's shape: n floats copied in.
        self.assertEqual(strong(program(4000)), [])
        # Twice the bytes, but no buffer of exactly n floats beside it: a
        # kernel that reads half its input is not a type mix-up.
        half = Calls().malloc(DEV, 8000).copy(DEV, HOST, 8000, 1)
        half.malloc(out, 2000).launch(scale, [(4, 0), (8, DEV), (8, out),
                                              (4, 1000)])
        self.assertEqual(strong(half), [])

    def test_02_a_failed_allocation_used(self):
        broken = Calls().add("cudaMalloc", op="alloc", ptr=0, bytes=1 << 40,
                             mem="device", result=2,
                             error="cudaErrorMemoryAllocation")
        broken.copy(0, HOST, 64, 1, "unknown", "pageable")
        self.assertIn("02", strong(broken))
        fixed = Calls().add("cudaMalloc", op="alloc", ptr=0, bytes=1 << 40,
                            mem="device", result=2,
                            error="cudaErrorMemoryAllocation")
        self.assertEqual(strong(fixed), [])

    def test_03_a_copy_larger_than_its_host_block(self):
        broken = Calls().malloc(DEV, 4096)
        broken.copy(HOST, DEV, 4096, 2, "pageable", "device",
                    host_chunk=4008, host_chunk_of="dst")
        self.assertEqual(strong(broken), ["03"])
        fixed = Calls().malloc(DEV, 4096)
        fixed.copy(HOST, DEV, 4000, 2, "pageable", "device",
                   host_chunk=4008, host_chunk_of="dst")
        self.assertEqual(strong(fixed), [])

    def test_06_a_swapped_copy_even_when_it_succeeds(self):
        for host_mem, result in (("pageable", 1), ("pinned", 0)):
            with self.subTest(host=host_mem):
                broken = Calls().malloc(DEV, 4096)
                broken.copy(DEV, HOST, 4096, 2, "device", host_mem,
                            result=result)
                self.assertEqual(strong(broken), ["06"])
        fixed = Calls().malloc(DEV, 4096)
        fixed.copy(HOST, DEV, 4096, 2, "pageable", "device")
        self.assertEqual(strong(fixed), [])

    def test_07_a_pointer_used_after_its_free_comes_before_06(self):
        broken = Calls().malloc(DEV, 4096).free(DEV)
        broken.copy(HOST, DEV, 4096, 2, "pageable", "unknown", result=1,
                    error="cudaErrorInvalidValue")
        self.assertEqual(strong(broken)[0], "07")
        self.assertNotIn("06", strong(broken))
        fixed = Calls().malloc(DEV, 4096)
        fixed.copy(HOST, DEV, 4096, 2, "pageable", "device").free(DEV)
        self.assertEqual(strong(fixed), [])

    def nonblocking(self, wait):
        calls = Calls().malloc(DEV, 4096).add(
            "cudaStreamCreateWithFlags", op="stream_create", stream=STREAM,
            flags=1, priority=0)
        calls.launch(SQUARES, [(8, DEV), (4, 1024)], stream=STREAM)
        if wait:
            calls.sync("stream", stream=STREAM)
        return calls.copy(HOST, DEV, 4096, 2, "pageable", "device")

    def test_08_a_non_blocking_stream_and_a_legacy_copy(self):
        self.assertEqual(strong(self.nonblocking(False)), ["08"])
        self.assertEqual(strong(self.nonblocking(True)), [])

    def test_08_a_blocking_stream_is_ordered_by_the_legacy_copy(self):
        calls = Calls().malloc(DEV, 4096).add(
            "cudaStreamCreate", op="stream_create", stream=STREAM, flags=0)
        calls.launch(SQUARES, [(8, DEV), (4, 1024)], stream=STREAM)
        calls.copy(HOST, DEV, 4096, 2, "pageable", "device")
        self.assertEqual(strong(calls), [])

    def handed_over(self, wait):
        """Chapter 38: a kernel in the legacy stream fills DEV, and a
        library copies DEV to DEV2 on its own non-blocking stream."""
        calls = Calls().malloc(DEV, 4096).malloc(DEV2, 4096).add(
            "cudaStreamCreateWithFlags", op="stream_create", stream=STREAM,
            flags=1, priority=0)
        calls.launch(SQUARES, [(8, DEV), (4, 1024)])
        if wait:
            calls.sync("stream", stream=LEGACY)
        calls.copy(DEV2, DEV, 4096, 3, "device", "device", STREAM, True)
        return calls.sync("stream", stream=STREAM)

    def test_38_a_buffer_handed_to_a_non_blocking_stream_too_early(self):
        self.assertEqual(strong(self.handed_over(False)), ["38"])
        self.assertEqual(strong(self.handed_over(True)), [])

    def test_38_not_08_and_08_not_38(self):
        """The non-blocking stream decides: the copy's is chapter 38, the
        kernel's chapter 08; both non-blocking is chapter 08's."""
        both = Calls().malloc(DEV, 4096).malloc(DEV2, 4096)
        for s in (STREAM, "0x6000"):
            both.add("cudaStreamCreateWithFlags", op="stream_create",
                     stream=s, flags=1, priority=0)
        both.launch(SQUARES, [(8, DEV), (4, 1024)], stream="0x6000")
        both.copy(DEV2, DEV, 4096, 3, "device", "device", STREAM, True)
        self.assertEqual(strong(both.sync("stream", stream=STREAM)), ["08"])
        self.assertNotIn("38", strong(self.nonblocking(False)))
        # a copy to the host in a non-blocking stream (PyTorch's t.cpu()
        # in a side stream) is the program reading its results: 08
        home = Calls().malloc(DEV, 4096).add(
            "cudaStreamCreateWithFlags", op="stream_create", stream=STREAM,
            flags=1, priority=0)
        home.launch(SQUARES, [(8, DEV), (4, 1024)])
        home.copy(PINNED, DEV, 4096, 2, "pinned", "device", STREAM, True)
        self.assertEqual(strong(home.sync("stream", stream=STREAM)), ["08"])

    def test_08_not_38_for_pytorch_side_streams(self):
        """PyTorch hands out non-blocking streams: a copy in a stream the
        program made with torch.cuda.Stream() (its source says so) of a
        kernel's buffer in the legacy stream is the program's own race,
        chapter 08, not a buffer handed to a library (38)."""
        torch = 's = torch.cuda.Stream()\nwith torch.cuda.stream(s):\n'
        self.assertEqual(strong(self.handed_over(False), torch), ["08"])
        self.assertEqual(strong(self.handed_over(True), torch), [])
        self.assertEqual(strong(self.handed_over(False), "s = Stream()"),
                         ["38"])

    def test_09_an_async_readback_never_waited_for(self):
        broken = Calls().malloc(DEV, 4096).malloc(PINNED, 4096, "pinned")
        broken.copy(PINNED, DEV, 4096, 2, "pinned", "device", STREAM, True)
        self.assertEqual(strong(broken), ["09"])
        fixed = Calls().malloc(DEV, 4096).malloc(PINNED, 4096, "pinned")
        fixed.copy(PINNED, DEV, 4096, 2, "pinned", "device", STREAM, True)
        fixed.sync("stream", stream=STREAM)
        self.assertEqual(strong(fixed), [])

    def test_10_a_fault_reported_by_the_next_copy(self):
        broken = Calls().malloc(DEV, 4096).launch("_Z7scatterPiPKii",
                                                  [(8, DEV), (8, DEV),
                                                   (4, 1024)])
        broken.copy(HOST, DEV, 4096, 2, "pageable", "device", result=700,
                    error="cudaErrorIllegalAddress")
        found = rules.trace_findings(broken.trace(), {})
        self.assertEqual([f["chapter"] for f in found], ["10"])
        self.assertIn("scatter", found[0]["summary"])
        self.assertIn("nothing checked the launch", found[0]["summary"])

    def test_10_a_checked_launch_is_only_a_hint(self):
        calls = Calls().malloc(DEV, 4096).launch(SQUARES,
                                                 [(8, DEV), (4, 1024)])
        calls.add("cudaGetLastError")
        calls.copy(HOST, DEV, 4096, 2, "pageable", "device", result=700,
                   error="cudaErrorIllegalAddress")
        self.assertEqual(strong(calls), [])
        self.assertEqual(chapters(calls), ["10"])

    def test_12_a_grid_too_small(self):
        broken = Calls().malloc(DEV, 4000).launch(SQUARES,
                                                  [(8, DEV), (4, 1000)],
                                                  grid=(3, 1, 1))
        self.assertEqual(strong(broken), ["12"])
        stride = "for (i = x; i < n; i += blockDim.x * gridDim.x)"
        self.assertEqual(strong(broken, stride), [])
        fixed = Calls().malloc(DEV, 4000).launch(SQUARES,
                                                 [(8, DEV), (4, 1000)])
        self.assertEqual(strong(fixed), [])

    def test_12_not_for_one_thread_that_loops(self):
        """<<<1, 1>>> with a count: one thread walks every element by
        design (chapter 41's kernel), so no hint of 12 either."""
        one = Calls().malloc(DEV, 4000).launch(SQUARES,
                                               [(8, DEV), (4, 1000)],
                                               grid=(1, 1, 1), block=(1, 1, 1))
        self.assertEqual([f["chapter"] for f in rules.trace_findings(
            one.trace(), {})], [])

    def test_14_a_block_too_large(self):
        broken = Calls().malloc(DEV, 8192).launch(
            SQUARES, [(8, DEV), (4, 2048)], grid=(1, 1, 1),
            block=(2048, 1, 1))
        self.assertEqual(strong(broken), ["14"])
        fixed = Calls().malloc(DEV, 8192).launch(
            SQUARES, [(8, DEV), (4, 2048)], grid=(2, 1, 1),
            block=(1024, 1, 1))
        self.assertEqual(strong(fixed), [])

    def test_17_host_addresses_in_copied_data(self):
        broken = Calls().malloc(DEV, 16)
        broken.copy(DEV, HOST, 16, 1, host_pointers=[
            {"offset": 8, "value": hex(HOST + 64), "where": "heap"}])
        self.assertEqual(strong(broken), ["17"])
        fixed = Calls().malloc(DEV, 16).copy(DEV, HOST, 16, 1)
        self.assertEqual(strong(fixed), [])

    def test_18_an_async_copy_from_pageable_memory(self):
        broken = Calls().malloc(DEV, 4096)
        broken.copy(DEV, HOST, 4096, 1, stream=STREAM, is_async=True)
        self.assertEqual(strong(broken), ["18"])
        fixed = Calls().malloc(DEV, 4096).malloc(PINNED, 4096, "pinned")
        fixed.copy(DEV, PINNED, 4096, 1, src_mem="pinned", stream=STREAM,
                   is_async=True).sync()
        self.assertEqual(strong(fixed), [])

    def test_18_not_for_a_copy_waited_for_at_once(self):
        """PyTorch copies from pageable memory with cudaMemcpyAsync and
        waits for the stream right after: no overlap was meant."""
        calls = Calls().malloc(DEV, 4096)
        calls.copy(DEV, HOST, 4096, 1, stream=STREAM, is_async=True)
        calls.sync("stream", stream=STREAM)
        self.assertEqual(strong(calls), [])

    def test_20_not_for_a_symbol(self):
        calls = Calls().copy(DEV2, HOST, 64, 1, "device", symbol="table")
        self.assertEqual(strong(calls), [])

    def test_cudaFree_waits_for_the_device(self):
        calls = self.nonblocking(False)
        calls.calls.insert(-1, dict(calls.calls[0], op="free",
                                    api="cudaFree", ptr=hex(DEV2)))
        for n, call in enumerate(calls.calls, 1):
            call["n"] = n
        self.assertEqual(strong(calls), [])

    def staging(self, wait):
        calls = Calls().malloc(DEV, 8192).malloc(PINNED, 4096, "pinned")
        for b in range(2):
            if wait and b:
                calls.add("cudaEventSynchronize", op="sync", what="event",
                          event=0xe0)
            calls.copy(DEV + 4096 * b, PINNED, 4096, 1, src_mem="pinned",
                       stream=STREAM, is_async=True)
            calls.add("cudaEventRecord", op="event_record", event=0xe0,
                      stream=STREAM)
        return calls.sync()

    def test_19_a_pinned_buffer_copied_again_before_it_was_read(self):
        self.assertEqual(strong(self.staging(False)), ["19"])
        self.assertEqual(strong(self.staging(True)), [])

    def test_20_a_pointer_no_allocation_owns(self):
        broken = Calls().malloc(DEV, 8)
        broken.copy(HOST, DEV2, 4096, 2, "pageable", "unknown", result=1,
                    error="cudaErrorInvalidValue")
        self.assertEqual(strong(broken), ["20"])
        fixed = Calls().malloc(DEV, 8).copy(HOST, DEV, 8, 2, "pageable",
                                            "device")
        self.assertEqual(strong(fixed), [])

    def test_35_a_cudaArray_t_given_to_cudaMemcpy(self):
        """A refused plain copy into no allocation, in a program that made
        a CUDA array: the handle was passed as an address (35, not 20)."""
        broken = Calls().add("cudaMallocArray")
        broken.copy(HOST + 0x1000, HOST, 96, 1, "pageable", "pageable",
                    result=1, error="cudaErrorInvalidValue")
        self.assertEqual(strong(broken), ["35"])
        fixed = Calls().add("cudaMallocArray").add("cudaMemcpy2DToArray")
        fixed.malloc(DEV, 96).copy(DEV, HOST, 96, 1)
        self.assertEqual(strong(fixed), [])
        # Near miss: the same refused copy with no array made is 20's.
        heap = Calls().copy(DEV2, HOST, 96, 1, "unknown", "pageable",
                            result=1, error="cudaErrorInvalidValue")
        self.assertEqual(strong(heap), ["20"])

    def memset(self, value):
        calls = Calls().malloc(DEV, 4096)
        calls.add("cudaMemset", op="memset", ptr=DEV, value=value, elem=1,
                  count=4096, bytes=4096)
        return calls.copy(HOST, DEV, 4096, 2, "pageable", "device")

    def test_25_memset_with_a_byte_other_than_0_or_ff(self):
        found = rules.trace_findings(self.memset(1).trace(), {})
        self.assertEqual([f["chapter"] for f in found], ["25"])
        self.assertIn("each int becomes 16843009", found[0]["summary"])
        for value in (0, 0xFF, -1):
            with self.subTest(value=value):
                self.assertEqual(strong(self.memset(value)), [])

    def test_26_pitched_memory_copied_with_its_width(self):
        def pitched(step):
            calls = Calls().add("cudaMallocPitch", op="alloc", ptr=DEV,
                                bytes=512 * 8, mem="pitched", pitch=512,
                                width=400, height=8, dev=0)
            return calls.copy(DEV, HOST, 400 * 8, 1, dpitch=step, spitch=400,
                              width=400, height=8)
        self.assertEqual(strong(pitched(100)), ["26"])
        self.assertEqual(strong(pitched(512)), [])

    def test_04_a_kernel_given_a_host_address(self):
        def given(points_to, signature="doubled(int const*, int*, int)"):
            calls = Calls().malloc(DEV, 4096).launch(
                "_Z7doubledPKiPii", [(8, HOST), (8, DEV), (4, 1024)])
            calls.calls[-1]["kernel_demangled"] = signature
            calls.calls[-1]["params"][0].update(points_to)
            return calls
        host = {"points_to": "host", "host_where": "heap"}
        self.assertEqual(strong(given(host)), ["04"])
        self.assertEqual(strong(given({"points_to": "pinned"})), [])
        self.assertEqual(strong(given({})), [])
        # An integer that falls in the heap is no address.
        self.assertEqual(strong(given(host, "doubled(unsigned long long, "
                                            "int*, int)")), [])

    def test_04_extern_c_kernel_needs_a_fault(self):
        """An extern "C" kernel's types are unknown: a host address is a
        hint, strong only when a kernel fault follows (chapter 19's
        PyTorch twin passes a 300 ms wait, 0x11e1a300 ns, that fell in
        the host heap)."""
        calls = Calls().malloc(DEV, 4096).launch(
            "busy_wait", [(8, 300000000)])
        calls.calls[-1]["params"][0].update({"points_to": "host",
                                             "host_where": "heap"})
        self.assertEqual(strong(calls), [])
        self.assertEqual(chapters(calls), ["04"])
        calls.add("cudaMemcpy", op="copy", result=700,
                  error="cudaErrorIllegalAddress")
        self.assertEqual(strong(calls)[:1], ["04"])

    def test_04_not_for_a_reference_parameter(self):
        """A C++ kernel that takes a functor by reference (PyTorch's
        indexFuncLargeIndex, `ReduceAdd const&`) is given a host address it
        never dereferences: no finding; the same address as a pointer
        parameter is one."""
        def given(signature):
            calls = Calls().malloc(DEV, 4096).launch(
                "k", [(16, 0), (8, HOST), (4, 1024)])
            calls.calls[-1]["kernel_demangled"] = signature
            calls.calls[-1]["params"][1].update(
                {"points_to": "host", "host_where": "anon"})
            return calls
        by_ref = ("void at::native::k<int, long, (anonymous namespace)::Op>"
                  "(at::cuda::detail::TensorInfo<int, unsigned int>, "
                  "at::native::(anonymous namespace)::Op const&, int)")
        self.assertEqual(strong(given(by_ref)), [])
        self.assertEqual(strong(given(by_ref.replace("Op const&",
                                                     "int const*"))), ["04"])
        self.assertEqual(rules.demangled_types(by_ref), [
            "at::cuda::detail::TensorInfo<int, unsigned int>",
            "at::native::(anonymous namespace)::Op const&", "int"])

    def test_14_a_refused_block_shape(self):
        broken = Calls().add("cuFuncSetBlockShape", layer="drv", result=1,
                             error="CUDA_ERROR_INVALID_VALUE")
        self.assertEqual(strong(broken), ["14"])
        fixed = Calls().add("cuFuncSetBlockShape", layer="drv")
        self.assertEqual(strong(fixed), [])

    def test_26_a_kernel_given_pitched_memory_is_a_hint(self):
        def launched(pitch):
            calls = Calls().add("cuMemAllocPitch_v2", op="alloc", ptr=DEV,
                                bytes=pitch * 3, mem="pitched", pitch=pitch,
                                width=20, height=3, dev=0)
            return calls.launch("fill_matrix", [(8, DEV), (8, pitch),
                                                (4, 5), (4, 3)])
        self.assertEqual(strong(launched(512)), [])
        self.assertEqual(chapters(launched(512)), ["26"])
        self.assertEqual(chapters(launched(20)), [])  # no padding

    def test_06_a_read_back_that_never_reached_cuda_is_a_hint(self):
        broken = Calls().malloc(DEV, 4000).launch("count_up",
                                                  [(8, DEV), (4, 1000)])
        broken.free(DEV)
        self.assertEqual(strong(broken), [])
        self.assertEqual(chapters(broken), ["06"])
        fixed = Calls().malloc(DEV, 4000).launch("count_up",
                                                 [(8, DEV), (4, 1000)])
        fixed.copy(HOST, DEV, 4000, 2, "pageable", "device").free(DEV)
        self.assertEqual(chapters(fixed), [])

    def test_33_with_contexts_and_memory_on_both_devices(self):
        # PyCUDA: no cudaSetDevice; the program pushes each device's
        # context and places memory on both, then hands device 0's to a
        # kernel on device 1 (33); with memory only on device 0 it is the
        # wrong current device (32).
        calls = Calls().malloc(DEV, 4096, dev=0).malloc(DEV2, 4096, dev=1)
        calls.launch(SQUARES, [(8, DEV), (8, DEV2), (4, 1024)], dev=1)
        self.assertEqual(strong(calls), ["33"])
        alone = Calls().malloc(DEV, 4096, dev=0)
        alone.launch(SQUARES, [(8, DEV), (4, 1024)], dev=1)
        self.assertEqual(strong(alone), ["32"])

    def test_31_a_call_with_no_current_context(self):
        broken = Calls().add("cuMemAlloc_v2", layer="drv", ctx="0x0",
                             result=201, error="CUDA_ERROR_INVALID_CONTEXT")
        self.assertEqual(strong(broken), ["31"])

    def test_31_probing_calls_are_noise(self):
        probing = Calls()
        for code in range(3):
            probing.add("cuGetErrorString", layer="drv", ctx="0x0", result=1,
                        error="CUDA_ERROR_INVALID_VALUE")
        self.assertEqual(strong(probing), [])

    def test_32_and_33_another_devices_allocation(self):
        early = Calls().malloc(DEV, 4096, dev=0).add(
            "cudaSetDevice", op="set_device", dev=1)
        early.launch(SQUARES, [(8, DEV), (4, 1024)], dev=1)
        self.assertEqual(strong(early), ["32"])
        late = Calls().add("cudaSetDevice", op="set_device", dev=0)
        late.malloc(DEV, 4096, dev=0).add("cudaSetDevice", op="set_device",
                                          dev=1)
        late.launch(SQUARES, [(8, DEV), (4, 1024)], dev=1)
        self.assertEqual(strong(late), ["33"])
        late.calls.insert(-1, dict(late.calls[-1], op="peer", api=(
            "cudaDeviceEnablePeerAccess"), dev=1, peer=0, n=len(
                late.calls)))
        for n, call in enumerate(late.calls, 1):
            call["n"] = n
        self.assertEqual(strong(late), [])

    def test_32_when_the_launch_check_saw_a_tensor_elsewhere(self):
        """PyTorch allocates a cuda:1 tensor under a device guard
        (cudaSetDevice 1, cudaMalloc, cudaSetDevice 0), so the trace alone
        reads as memory placed on purpose (33); the launch check saw a raw
        kernel launched on the current device with that tensor's
        data_ptr() (32), which explains it. Without the check, 33 stays;
        a launch check that saw another pair of devices leaves it too."""
        calls = Calls().add("cudaSetDevice", op="set_device", dev=1)
        calls.malloc(DEV2, 2 << 20, dev=1)
        calls.add("cudaSetDevice", op="set_device", dev=0)
        calls.launch("fill", [(8, DEV2), (4, 1024)], dev=0)
        tensor = {"kind": "array", "dtype": "int32", "shape": [1024],
                  "strides": [4], "c_contiguous": True, "device": 1,
                  "lib": "torch"}
        record = {"ev": "pylaunch", "lib": "cupy", "kernel": "fill",
                  "device": 0, "where": "broken_torch.py:44",
                  "params": [{"name": "out", "type": "int *",
                              "dtype": "int32", "pointer": True},
                             {"name": "n", "type": "int",
                              "dtype": "int32", "pointer": False}],
                  "args": [{"kind": "pointer", "value": hex(DEV2),
                            "pytype": "int", "tensor": tensor},
                           {"kind": "scalar", "pytype": "int32",
                            "dtype": "int32", "value": 1024}]}
        found = calls.trace()
        self.assertEqual([f["chapter"] for f in rules.trace_findings(
            found, {})], ["33"])
        found["py"] = [{"pid": 1, "records": [record]}]
        both = rules.trace_findings(found, {}, pylaunch_rules.findings)
        self.assertEqual([f["chapter"] for f in both], ["32"])
        found["py"][0]["records"] = [dict(record, device=2)]
        other = rules.trace_findings(found, {}, pylaunch_rules.findings)
        self.assertEqual([f["chapter"] for f in other], ["33", "32"])


class EdgeCases(unittest.TestCase):
    def test_an_address_reused_after_a_free_is_not_freed(self):
        calls = Calls().malloc(DEV, 4096).free(DEV).malloc(DEV, 4096)
        calls.copy(HOST, DEV, 4096, 2, "pageable", "device")
        self.assertEqual(strong(calls), [])

    def test_cudaMemcpyDefault_never_contradicts(self):
        calls = Calls().malloc(DEV, 4096).copy(DEV, HOST, 4096, 4, "device",
                                               "pageable")
        calls.copy(HOST, DEV, 4096, 4, "pageable", "device")
        self.assertEqual(strong(calls), [])

    def test_the_per_thread_default_stream(self):
        """A kernel in the per-thread default stream is ordered before a
        legacy copy; one in a blocking stream is not ordered before a
        per-thread copy."""
        ordered = Calls().malloc(DEV, 4096).launch(
            SQUARES, [(8, DEV), (4, 1024)], stream=PER_THREAD)
        ordered.copy(HOST, DEV, 4096, 2, "pageable", "device")
        self.assertEqual(strong(ordered), [])
        loose = Calls().malloc(DEV, 4096).add(
            "cudaStreamCreate", op="stream_create", stream=STREAM, flags=0)
        loose.launch(SQUARES, [(8, DEV), (4, 1024)], stream=STREAM)
        loose.copy(PINNED, DEV, 4096, 2, "pinned", "device",
                   stream=PER_THREAD, is_async=True).sync()
        self.assertEqual(strong(loose), ["08"])

    def test_two_threads_and_two_contexts(self):
        """Each thread's allocation, in its own context, is its own: a
        copy from another thread's buffer is no use after free, and a
        failing call in one thread with a context is not chapter 31."""
        calls = Calls().malloc(DEV, 4096)
        calls.add("cudaMalloc", op="alloc", ptr=hex(DEV2), bytes=4096,
                  mem="device", dev=0, tid=2, ctx="0x200")
        calls.copy(HOST, DEV2, 4096, 2, "pageable", "device", tid=1)
        calls.copy(HOST, DEV, 4096, 2, "pageable", "device", tid=2,
                   ctx="0x200")
        calls.add("cuMemAlloc_v2", layer="drv", tid=2, ctx="0x200",
                  result=2, error="CUDA_ERROR_OUT_OF_MEMORY")
        self.assertEqual(strong(calls), [])

    def test_a_pooled_allocator(self):
        """A pool hands out pieces of one big allocation and reuses them
        without cudaFree: every piece is owned, nothing is freed."""
        calls = Calls().malloc(DEV, 2 << 20)
        for i in range(4):
            piece = DEV + 512 * (i % 2)
            calls.launch(SQUARES, [(8, piece), (4, 128)], grid=(1, 1, 1),
                         block=(128, 1, 1))
            calls.copy(HOST, piece, 512, 2, "pageable", "device")
        self.assertEqual(strong(calls), [])

    def test_a_truncated_log(self):
        """A process that crashed: its last line cut, no end record. The
        whole lines are read; an async copy is not blamed for a wait the
        crash prevented."""
        with tempfile.TemporaryDirectory() as tmp:
            lines = [{"n": 0, "ev": "start", "pid": 7, "exe": "p",
                      "cupti": "ok"}] + Calls().malloc(DEV, 4096).copy(
                PINNED, DEV, 4096, 2, "pinned", "device", STREAM,
                True).calls
            text = "".join(json.dumps(x) + "\n" for x in lines)
            (Path(tmp) / "api-7.jsonl").write_text(text + '{"n": 3, "ev"')
            found = trace.read_trace(tmp)
        process = found["api"][0]
        self.assertTrue(process["truncated"])
        self.assertFalse(process["complete"])
        self.assertEqual(len(process["calls"]), 2)
        self.assertEqual(rules.trace_findings(found, {}), [])

    def test_cupti_unavailable_is_said(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "api-9.jsonl").write_text(json.dumps(
                {"n": 0, "ev": "start", "pid": 9, "exe": "p",
                 "cupti": "unavailable: a profiler is subscribed"}) + "\n")
            found = trace.read_trace(tmp)
        self.assertIn("unavailable", trace.unavailable(found))


def recorded(kind):
    """(chapter, program, [files]) of every recorded trace,
    tests/doctor/traces/chNN/<program>.jsonl (the main process) and
    <program>.<pid>.jsonl (its children), as tools/trace/record_traces.py
    writes them; <program> is broken, fixed, a variant or a twin
    (broken.py, fixed_cupy.py)."""
    found = {}
    for path in sorted(TRACES.glob("ch[0-9][0-9]/*.jsonl")):
        name = path.name[:-len(".jsonl")]
        head, _, tail = name.rpartition(".")
        if head and tail.isdigit():
            name = head
        found.setdefault((path.parent.name[2:], name), []).append(path)
    return [(number, name, files) for (number, name), files in
            sorted(found.items()) if name.startswith(kind)]


def read_recorded(files):
    """The trace of one recorded program, read as the doctor reads a trace
    run's folder."""
    with tempfile.TemporaryDirectory() as tmp:
        for i, path in enumerate(files):
            (Path(tmp) / f"api-{i + 1}.jsonl").write_text(path.read_text())
        return trace.read_trace(tmp)


def source_of(number, name):
    folder = next((ROOT / "chapters").glob(f"{number}-*"), None)
    base = name.split(".")[0]
    for suffix in (".cu", ".py"):
        path = folder / (base + suffix) if folder else None
        if path and path.exists():
            return path.read_text()
    return ""


# The chapters a trace rule (or the Python launch check) names: their
# broken programs' traces must raise them first; the others' must raise
# nothing strong (docs/doctor.md says why they have no rule).
RULE_CHAPTERS = {"01", "02", "03", "04", "06", "07", "08", "09", "10", "12",
                 "14", "17", "18", "19", "20", "25", "26", "29", "31", "32",
                 "33", "38", "43"}


# Broken programs whose recorded trace does not name their chapter first,
# and why (docs/doctor.md): the runs and the sanitizer name them instead.
GAPS = {
    ("03", "broken"): "the host array and its guard zone are one heap "
    "block: the copy stays inside the block the library measures",
    ("09", "broken"): "the host reads the buffer before the late wait, "
    "which no CUDA call shows; the trace is the same as the fixed one's",
    ("09", "broken.py"): "the same late wait as the C program's",
    ("29", "broken.py"): "an extern \"C\" kernel's parameter types are "
    "not in its name: the Python launch check names 29 (py records)",
    ("29", "broken_cupy.py"): "the same as broken.py: the Python launch "
    "check names 29",
    ("09", "broken_torch.py"): "the same late wait as the C program's "
    "(torch.cuda.synchronize() after the read)",
    ("29", "broken_torch.py"): "the same as broken.py: the Python launch "
    "check names 29 (the data_ptr() of a float64 tensor)",
    ("09", "broken_numba.py"): "the same late wait as the C program's "
    "(s.synchronize() after the read)",
    ("29", "broken_numba.py"): "the same as broken.py: the Python launch "
    "check names 29 (a float64 array for the signature's float32[:])",
    ("21", "broken.py"): "the trace sees a fault reported late (10); "
    "memcheck sees the failed malloc's NULL access (21)",
    ("27", "broken.py"): "the trace sees a fault reported late (10); "
    "memcheck sees the wrapped index (27)",
    ("35", "broken_cupy.py"): "the trace sees a fault reported late (10); "
    "memcheck sees the misaligned surface store (35)",
    ("32", "broken_torch.py"): "PyTorch allocates the cuda:1 tensor under "
    "a device guard, which reads as memory placed on purpose (33): the "
    "Python launch check names 32 (a tensor's data_ptr() on another device "
    "than the launch's)",
}


# Chapter 36's rule: a copy that goes on past the end of a buffer that the
# copies before it filled (kept apart from the set above, which other
# branches extend too).
RULE_CHAPTERS = RULE_CHAPTERS | {"36"}


def named(found):
    """The chapters a trace's findings name: strong ones first."""
    strong_ones = [f["chapter"] for f in found if f["strength"] == "strong"]
    return strong_ones + [f["chapter"] for f in found
                          if f["strength"] != "strong"]


class RecordedTraces(unittest.TestCase):
    """The traces the GPU host recorded of every chapter program
    (tools/trace/record_traces.py): each broken program of a chapter with
    a rule names it first (strong, or a hint where the kernel's types are
    unknown), no other broken program gets a strong finding, and no fixed
    program gets any strong finding."""

    def test_every_broken_trace_raises_its_chapter_first(self):
        cases = recorded("broken")
        if not cases:
            self.skipTest("no recorded traces in tests/doctor/traces")
        for number, name, files in cases:
            with self.subTest(chapter=number, program=name):
                found = tracerun.findings(read_recorded(files),
                                          {"source": source_of(number, name)})
                chapters = named(found)
                print(f"ch{number} {name}: {chapters}")
                if (number, name) in GAPS:
                    self.assertNotEqual(chapters[:1], [number],
                                        "a known gap is gone: take it out "
                                        "of GAPS")
                elif number in RULE_CHAPTERS:
                    self.assertEqual(chapters[:1], [number], found)
                else:
                    self.assertEqual([f for f in found
                                      if f["strength"] == "strong"], [])

    def test_no_fixed_trace_raises_any(self):
        for number, name, files in recorded("fixed"):
            with self.subTest(chapter=number, program=name):
                found = tracerun.findings(read_recorded(files),
                                          {"source": source_of(number, name)})
                strong_ones = [f for f in found if f["strength"] == "strong"]
                self.assertEqual(strong_ones, [], f"ch{number} {name}")


class RefusedByOtherLimits(unittest.TestCase):
    """Rule 43: a launch refused for a grid dimension or for registers,
    with its block within 1024 threads; near misses stay quiet."""
    ROWS = "_Z11number_rowsPii"  # number_rows(int *, int)

    def launch(self, grid, block=(32, 1, 1), error=None):
        calls = Calls().malloc(DEV, 1 << 23)
        fields = {"result": 1, "error": error} if error else {}
        calls.launch(self.ROWS, [(8, DEV), (4, 64)], grid=grid,
                     block=block)
        calls.calls[-1].update(fields)
        return calls.sync().copy(HOST, DEV, 1 << 23, 2, "pageable", "device")

    def test_grid_y_above_65535(self):
        refused = self.launch((1, 65536, 1), error="cudaErrorInvalidValue")
        self.assertEqual(strong(refused), ["43"])
        # The fixed program's shape: grid.y at the limit, launched.
        self.assertEqual(strong(self.launch((1, 65535, 1))), [])

    def test_grid_z_and_x(self):
        self.assertEqual(strong(self.launch(
            (1, 1, 65536), error="cudaErrorInvalidValue")), ["43"])
        self.assertEqual(strong(self.launch(
            (2 ** 31, 1, 1), error="cudaErrorInvalidValue")), ["43"])

    def test_too_many_registers(self):
        refused = self.launch((4, 1, 1), (1024, 1, 1),
                              "cudaErrorLaunchOutOfResources")
        self.assertEqual(strong(refused), ["43"])
        # Refused for another reason (no kernel image): not this rule's.
        other = self.launch((4, 1, 1), (1024, 1, 1),
                            "cudaErrorNoKernelImageForDevice")
        self.assertNotIn("43", strong(other))

    def test_a_block_too_large_is_chapter_14s(self):
        refused = self.launch((2, 1, 1), (2048, 1, 1),
                              "cudaErrorInvalidValue")
        self.assertEqual(strong(refused), ["14"])


class PastTheEndOfAShortBuffer(unittest.TestCase):
    """Rule 36: copies that walk through a buffer a MiB at a time and go on
    past its end (its byte count wrapped in 32 bits); near misses stay
    quiet."""
    MIB = 1 << 20

    def walk(self, size, chunks, refused_at=None):
        calls = Calls().malloc(DEV, size).add(
            "cudaMallocHost", op="alloc", ptr=PINNED, bytes=self.MIB,
            mem="pinned")
        for k in range(chunks):
            more = {}
            if k == refused_at:
                more = {"result": 1, "error": "cudaErrorInvalidValue"}
            inside = k * self.MIB < size
            calls.copy(DEV + k * self.MIB, PINNED, self.MIB, 1,
                       dst_mem="device" if inside else "pageable",
                       src_mem="pinned", **more)
            if more:
                break
        return calls

    def test_the_second_chunk_past_a_one_mib_buffer(self):
        self.assertEqual(strong(self.walk(self.MIB, 4, refused_at=1)),
                         ["36"])

    def test_the_whole_buffer_is_quiet(self):
        # The fixed program's shape: every chunk inside the allocation.
        self.assertEqual(strong(self.walk(4 * self.MIB, 4)), [])

    def test_a_neighbouring_allocation_is_quiet(self):
        # The address after the first buffer is a second one's start.
        calls = self.walk(self.MIB, 1).malloc(DEV + self.MIB, self.MIB)
        calls.copy(DEV + self.MIB, PINNED, self.MIB, 1, src_mem="pinned")
        self.assertEqual(strong(calls), [])

    def test_a_lone_pointer_past_the_end_is_not_36(self):
        # No copy filled the buffer up to its end: nothing walked there.
        calls = Calls().malloc(DEV, self.MIB)
        calls.copy(DEV + self.MIB, HOST, 64, 1, dst_mem="pageable",
                   result=1, error="cudaErrorInvalidValue")
        self.assertNotIn("36", strong(calls))


class NumbaGrid(unittest.TestCase):
    """Rule 12 for Numba's launches (rules.numba_arrays): each array is 5 +
    2 * ndim parameters, its element count the third and its data the
    fifth; a hint when a one-dimensional grid has fewer threads than an
    array's elements and the array's allocation holds them all."""
    MANGLED = "_ZN8__main__7squaresB2v1E5ArrayIiLi1E1C7mutable7alignedE"
    ARRAY = "Array<int, 1, C, mutable, aligned>"

    def launch(self, grid, block=(256, 1, 1), alloc=4000, scalar=False):
        params = [(8, 0), (8, 0), (8, 1000), (8, 4), (8, DEV), (8, 1000),
                  (8, 4)]
        name = "__main__::squares[abi:v1](%s)" % self.ARRAY
        if scalar:  # a float32 factor before the array
            params = [(4, 0x40000000)] + params
            name = "__main__::squares[abi:v1](float, %s)" % self.ARRAY
        calls = Calls().malloc(DEV, alloc)
        calls.launch(self.MANGLED, params, grid=grid, block=block)
        calls.calls[-1]["kernel_demangled"] = name
        return calls

    def test_too_few_threads_is_a_hint(self):
        self.assertEqual(chapters(self.launch((3, 1, 1))), ["12"])
        self.assertEqual(strong(self.launch((3, 1, 1))), [])

    def test_enough_threads_is_quiet(self):
        self.assertEqual(chapters(self.launch((4, 1, 1))), [])

    def test_a_scalar_before_the_array_is_one_parameter(self):
        self.assertEqual(chapters(self.launch((3, 1, 1), scalar=True)),
                         ["12"])

    def test_near_misses(self):
        # An allocation smaller than the array says: not a grid problem.
        self.assertEqual(chapters(self.launch((3, 1, 1), alloc=400)), [])
        # A two-dimensional block: its threads may each do a row.
        self.assertEqual(chapters(self.launch((1, 1, 1), (16, 16, 1))), [])
        # A C kernel's name, or a Numba parameter this cannot size.
        self.assertEqual(rules.numba_arrays(
            {"kernel_demangled": "squares(int*, int)"}), [])
        self.assertEqual(rules.numba_arrays(
            {"kernel_demangled": "__main__::k[abi:v1](complex64, "
             + self.ARRAY + ")", "params": []}), [])


class StoringTraces(unittest.TestCase):
    """record_traces.py --store of a run that recorded a few chapters keeps
    the summary rows of the others (it once replaced the whole file)."""

    def test_a_partial_run_keeps_the_other_rows(self):
        sys.path.insert(0, str(ROOT / "tools" / "trace"))
        import record_traces
        with tempfile.TemporaryDirectory() as work:
            old, new = Path(work, "store.json"), Path(work, "run.json")
            old.write_text(json.dumps([
                {"chapter": "01", "program": "broken", "lines": 1},
                {"chapter": "35", "program": "broken", "lines": 1}]))
            new.write_text(json.dumps([
                {"chapter": "35", "program": "broken", "lines": 2},
                {"chapter": "35", "program": "fixed", "lines": 2}]))
            record_traces.merge_summary(str(new), str(old))
            rows = {(r["chapter"], r["program"]): r["lines"]
                    for r in json.loads(old.read_text())}
        self.assertEqual(rows, {("01", "broken"): 1, ("35", "broken"): 2,
                                ("35", "fixed"): 2})


if __name__ == "__main__":
    unittest.main()
