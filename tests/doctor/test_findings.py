"""What makes the doctor's findings mean something (issue 24, part 3), run
by `ctest -L doctor` without a GPU: pooled memory and a library's probing
calls are no findings, a program that fails before its CUDA work is said so,
the silent causes follow this program's evidence, every source sign has a
near miss it must not match, timings are masked, output over the cap is cut
not blamed, input errors stop the doctor before anything runs, SIGTERM takes
the program's whole process group, launchers are examined, and the time
budget is kept. The end-to-end tests use stand-in programs that write their
own trace records (as the injection library would) when CLINIC_TRACE_DIR
is set.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCTOR = ROOT / "tools" / "clinic-doctor"
sys.path.insert(0, str(ROOT / "tools"))
from clinic_doctor import chapters as chapter_data  # noqa: E402
from clinic_doctor import evidence, examine, ranking  # noqa: E402

CHAPTERS = chapter_data.load_chapters(ROOT)
FAKE_GPU = json.dumps({"driver": 13000, "devices": 1,
                       "gpus": [{"name": "stand-in", "cc": "9.0"}]})
# A stand-in program's own trace: what the injection library would write.
WRITE_TRACE = textwrap.dedent("""\
    import json, os
    def write_trace(calls):
        folder = os.environ.get("CLINIC_TRACE_DIR")
        if not folder:
            return
        records = [{"n": 0, "ev": "start", "pid": os.getpid(),
                    "exe": "stand-in", "cupti": "ok"}]
        for n, call in enumerate(calls, 1):
            records.append(dict({"n": n, "ev": "call", "tid": 1,
                                 "layer": "rt", "dev": 0, "ctx": "0x1",
                                 "result": 0}, **call))
        records.append({"ev": "end", "records": len(records),
                        "dropped": {}})
        with open(os.path.join(folder, "api-%d.jsonl" % os.getpid()),
                  "w") as f:
            f.write("".join(json.dumps(r) + "\\n" for r in records))
    """)
MEMSET_ONE = [
    {"api": "cudaMalloc", "op": "alloc", "ptr": "0x7f0000000000",
     "bytes": 4096, "mem": "device"},
    {"api": "cudaMemset", "op": "memset", "ptr": "0x7f0000000000",
     "value": 1, "elem": 1, "count": 4096, "bytes": 4096},
    {"api": "cudaMemcpy", "op": "copy", "dst": "0x5600000000",
     "src": "0x7f0000000000", "bytes": 4096, "kind": 2, "async": False,
     "stream": "0x0", "dst_mem": "pageable", "src_mem": "device"},
]

# Every source sign of the chapters' data: a text it must match and a near
# miss it must not, after the doctor's normalisation of the source.
NEAR_MISSES = {
    ("06", 0): ("cudaMemcpy(d_out, h_in, n, cudaMemcpyDeviceToHost);",
                ["cudaMemcpy(h_out, d_in, n, cudaMemcpyDeviceToHost);"]),
    ("07", 0): ("cudaFree(dev);\ncudaMemcpy(h, dev, n, "
                "cudaMemcpyDeviceToHost);",
                ["cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost);\n"
                 "cudaFree(dev);"]),
    ("08", 0): ("cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);",
                ["cudaStreamCreate(&s);"]),
    ("08", 1): ("with torch.cuda.stream(s):\n    host = dev.cpu()",
                ["s = torch.cuda.Stream()\nhost = dev.cpu()"]),
    ("09", 0): ("cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, s);",
                ["cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost);"]),
    ("09", 1): ("dev.copy_to_host(pinned, stream=s)",
                ["dev.copy_to_host(pinned)", "dev.copy_to_host()\n"
                 "s = cuda.stream()"]),
    ("12", 0): ("kernel<<<n / 256, 256>>>(d, n);",
                ["kernel<<<(n + 255) / 256, 256>>>(d, n);"]),
    ("12", 1): ("int blocks = n / threads;",
                ["int blocks = (n + threads - 1) / threads;"]),
    ("12", 2): ("blocks = N // BLOCK\nsquares[blocks, BLOCK](dev)",
                ["blocks = (N + BLOCK - 1) // BLOCK",
                 "blocks = -(-n // threads)", "rows = N // BLOCK_ROWS + 1"]),
    ("15", 0): ("int row = blockIdx.y * blockDim.y + threadIdx.y;",
                ["int i = blockIdx.x * blockDim.x + threadIdx.x;"]),
    ("16", 0): ("#pragma pack(1)", ["#pragma once"]),
    ("17", 0): ("struct Array { int n; int *data; };",
                ["struct Pair { int n; float x; };"]),
    ("18", 0): ("cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s);",
                ["cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);"]),
    ("18", 1): ("cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s);",
                ["cudaMallocHost(&h, n);\ncudaMemcpyAsync(d, h, n, "
                 "cudaMemcpyHostToDevice, s);"]),
    ("19", 0): ("cudaMallocHost(&h, n);", ["h = malloc(n);"]),
    ("19", 1): ("cudaMemcpyAsync(d, staging[k], n, "
                "cudaMemcpyHostToDevice, s);",
                ["cudaMemcpyAsync(d, staging, n, cudaMemcpyHostToDevice, "
                 "s);"]),
    ("20", 0): ("__global__ void k(int *p) { int *q = (int *)malloc(64); }",
                ["__global__ void k(int *p) { p[0] = 1; }\n"
                 "int main() { int *q = (int *)malloc(64); }"]),
    ("21", 0): ("__global__ void k(int *p) { int *q = (int *)malloc(64); }",
                ["__global__ void k(int *p) { p[0] = 1; }\n"
                 "int main() { int *q = (int *)malloc(64); }"]),
    ("23", 0): ("__shared__ int tile[256];", ["__syncthreads();"]),
    ("24", 0): ("counts = torch.empty(8, device=\"cuda\")",
                ["counts = torch.zeros(8, device=\"cuda\")",
                 "counts = torch.zeros_like(values)"]),
    ("25", 0): ("cudaMemset(d, 1, n * sizeof(int));",
                ["cudaMemset(d, 0, n);", "cudaMemset(d, -1, n);",
                 "cudaMemset(d, 0, n * sizeof(int));",
                 "cudaMemsetAsync(d,  0, n, s);", "cudaMemset(d,0,n);"]),
    ("26", 0): ("cudaMallocPitch(&d, &pitch, w, h);",
                ["cudaMalloc(&d, w * h);"]),
    ("29", 0): ("a = np.zeros(n, dtype=np.float64)",
                ["a = np.zeros(n, dtype=np.float32)"]),
    ("30", 0): ("b = a.T\nc = a[:, 0]",
                ["b = a.copy()\nc = a[0, :]"]),
    ("30", 1): ("cudaMemcpy(d, &m[0][0], n, cudaMemcpyHostToDevice);",
                ["cudaMemcpy(d, &m[0], n, cudaMemcpyHostToDevice);"]),
    ("31", 0): ("pthread_create(&t, NULL, work, NULL);",
                ["pthread_mutex_lock(&m);"]),
    ("32", 0): ("cudaSetDevice(1);", ["cudaGetDevice(&d);"]),
    ("33", 0): ("cudaDeviceEnablePeerAccess(0, 0);",
                ["cudaDeviceCanAccessPeer(&ok, 1, 0);"]),
    ("34", 0): ("cudaMallocManaged(&p, n);", ["cudaMalloc(&p, n);"]),
    ("35", 0): ("surf2Dwrite(v, surf, x, y);",
                ["cudaMallocPitch(&d, &pitch, w, h);",
                 "cudaMemcpy2D(d, p, h, w, w, n, cudaMemcpyHostToDevice);"]),
    ("36", 0): ("size_t bytes = mib * 1048576u;",
                ["size_t bytes = (size_t)mib * 1048576u;",
                 "size_t bytes = n * sizeof(float);",
                 "a = np.zeros(n, dtype=np.int32)"]),
    ("37", 0): ("cudaGraphLaunch(exec, s);",
                ["cudaGraphicsMapResources(1, &r, s);",
                 "cudaStreamSynchronize(s);"]),
    ("37", 1): ("cudaMallocHost(&h, n);", ["h = malloc(n);"]),
    ("38", 0): ("cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);",
                ["cudaStreamCreate(&s);", "s = cuda.Stream()"]),
    ("38", 1): ("cudaMemcpyAsync(r, s, n, cudaMemcpyDeviceToDevice, lib);",
                ["cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost);",
                 "MPI_Init(&argc, &argv);", "ncclCommInitRank(&c, n, id, r);"]),
    ("39", 0): ("y = x.view(np.uint32)",
                ["memcpy(&u, &f, sizeof u);", "memcpy(host, dev, n);",
                 "y = x.view(np.float32)"]),
    ("40", 0): ("v += __shfl_down_sync(mask, v, k);",
                ["v += __shfl_down_sync(0xffffffffu, v, k);",
                 "v += __shfl_down_sync( 0xFFFFFFFF, v, k);",
                 "x = __shfl_xor_sync(FULL_MASK, x, 1);"]),
    ("40", 1): ("volatile int *v = s;",
                ["volatile int flag;", "asm volatile(\"nop;\");"]),
    ("40", 2): ("if (t < WARP) {",
                ["if (t < n) {", "if (t < BINS)", "if (t >= WARP)"]),
    ("41", 0): ("a = np.frombuffer(data, dtype='>f4')",
                ["a = np.frombuffer(data, dtype='<f4')",
                 "a = np.frombuffer(data, dtype=np.float32)",
                 "int fits = 3;"]),
    ("42", 0): ("struct op { virtual int apply(int x) const; };",
                ["struct op { int apply(int x) const; };",
                 "int virtualized = 1;"]),
    ("42", 1): ("~device_ints()\n{\n    check_cuda(cudaFree(data));\n}",
                ["~host_ints()\n{\n    free(data);\n}",
                 "cudaFree(data);"]),
    ("43", 0): ("int y = blockIdx.y;",
                ["int x = blockIdx.x;", "int h = gridDim.x * blockDim.y;"]),
    ("44", 0): ('#include "scale.cuh"\n'
                "cudaMemcpyToSymbol(scale_factor, &f, sizeof f);",
                ['#include "check_cuda.h"\n'
                 "cudaMemcpyToSymbol(offset, &f, sizeof f);",
                 '#include "scale.cuh"\nset_scale_factor(f);']),
    ("44", 1): ("cudaMemcpyToSymbol(k, &a, 4);\nx();\n"
                "cudaMemcpyToSymbol(k, &b, 4);",
                ["cudaMemcpyToSymbol(k, &a, 4);\n"
                 "cudaMemcpyToSymbol(m, &b, 4);",
                 "cudaMemcpyToSymbol(k, &a, 4);"]),
}


def source_signs():
    found = {}
    for chapter in CHAPTERS:
        signs = [s for s in chapter["signs"] if s["in"] == "source"]
        for i, sign in enumerate(signs):
            found[(chapter["number"], i)] = sign
    return found


def plain(out="", err="", code=0):
    return {"out": out, "err": err, "status": str(code), "code": code,
            "signal": None, "timed_out": False, "too_much": False,
            "seconds": 0.1, "sizes": (len(out), len(err))}


class SourceSigns(unittest.TestCase):
    def test_every_source_sign_has_a_near_miss(self):
        self.assertEqual(sorted(source_signs()), sorted(NEAR_MISSES),
                         "a source sign without a near-miss test, or a "
                         "test for a sign that is gone")

    def test_each_sign_matches_its_case_and_not_its_near_misses(self):
        for key, sign in source_signs().items():
            hit, misses = NEAR_MISSES[key]
            with self.subTest(chapter=key[0], sign=key[1]):
                self.assertTrue(ranking.sign_matches(
                    sign, examine.normalised(hit), set()), hit)
                for miss in misses:
                    self.assertFalse(ranking.sign_matches(
                        sign, examine.normalised(miss), set()), miss)

    def test_a_zero_memset_does_not_lift_25(self):
        facts = {"wrong-result", "exit-nonzero"}
        zero = ranking.silent_causes(CHAPTERS, facts, {
            "source": examine.normalised("cudaMemset(d, 0, n);")})
        one = ranking.silent_causes(CHAPTERS, facts, {
            "source": examine.normalised("cudaMemset(d, 1, n);")})
        self.assertNotEqual(zero[0]["number"], "25")
        self.assertEqual(one[0]["number"], "25")


class SilentCauses(unittest.TestCase):
    def test_evidence_first_priors_only_break_ties(self):
        """01 and 12 have the highest prior; a program whose source shows
        managed memory puts 34 first, and with no evidence at all the
        priors order the list."""
        facts = {"wrong-result"}
        managed = ranking.silent_causes(CHAPTERS, facts, {
            "source": "cudaMallocManaged(&p, n);"})
        self.assertEqual(managed[0]["number"], "34")
        bare = ranking.silent_causes(CHAPTERS, facts, {})
        self.assertEqual([c["number"] for c in bare[:2]], ["01", "12"])
        self.assertEqual(bare[0]["score"], 0)

    def test_the_trace_puts_its_chapter_first(self):
        listed = ranking.silent_causes(CHAPTERS, {"wrong-result"},
                                       {"trace_chapters": ["09"]})
        self.assertEqual(listed[0]["number"], "09")


class Consequences(unittest.TestCase):
    LEAK = {"tool": "memcheck", "kind": "leak", "api": None, "error": None,
            "headline": "Leaked 512 bytes at 0x7f00"}
    PROBE = {"tool": "memcheck", "kind": "api-error",
             "api": "cuGetErrorString", "error": "CUDA_ERROR_INVALID_VALUE",
             "headline": "Program hit CUDA_ERROR_INVALID_VALUE"}

    def test_pooled_memory_at_exit_is_no_leak(self):
        pools = ranking.pooled_libraries("import cupy as cp\n")
        self.assertEqual(pools, ["cupy"])
        kept, notes = ranking.consequences([self.LEAK], plain(), pools)
        self.assertEqual(kept, [])
        self.assertIn("pooled allocator", notes[0])
        kept, _ = ranking.consequences([self.LEAK], plain(), [])
        self.assertEqual(kept, [self.LEAK])
        self.assertEqual(ranking.pooled_libraries("# no cupy here\n"), [])
        self.assertEqual(ranking.pooled_libraries("", ["torch"]), ["torch"])

    def test_probing_calls_are_consequences(self):
        kept, notes = ranking.consequences([self.PROBE], plain(), [])
        self.assertEqual(kept, [])
        self.assertIn("probing", notes[0])


class EarlyFailure(unittest.TestCase):
    TRACEBACK = ("Traceback (most recent call last):\n  File \"a.py\", "
                 "line 1, in <module>\n")

    def test_an_import_error_is_no_cuda_work(self):
        run = plain(err=self.TRACEBACK + "ModuleNotFoundError: No module "
                    "named 'cupyx'\n", code=1)
        self.assertIn("ModuleNotFoundError", examine.early_failure(run, None))
        self.assertIn("cupyx", examine.early_failure(run, {"api": [],
                                                           "py": []}))

    def test_a_cuda_error_or_cuda_work_is_not(self):
        cuda = plain(err=self.TRACEBACK + "pycuda._driver.LogicError: "
                     "cuMemAlloc failed\n", code=1)
        self.assertIsNone(examine.early_failure(cuda, None))
        late = plain(err=self.TRACEBACK + "AttributeError: x\n", code=1)
        worked = {"api": [{"calls": [{"op": "launch"}]}], "py": []}
        self.assertIsNone(examine.early_failure(late, worked))
        wrong = plain(err=self.TRACEBACK + "AssertionError\n", code=1)
        self.assertIsNone(examine.early_failure(wrong, None))


class Timings(unittest.TestCase):
    def test_timings_in_any_unit_are_masked(self):
        for line in ("copy took 3.25 ms", "12 milliseconds", "5 msec",
                     "1.5e3 us", "7 s", "2 seconds", "3.4 GB/s",
                     "120 GFlop/s", "9.1 GFLOP/s", "2 TFLOPS", "40 MiB/s",
                     "300 ns", "0.5 sec"):
            with self.subTest(line=line):
                a = evidence.comparable(plain(out=line + "\n"), None)
                b = evidence.comparable(plain(out=line.replace(
                    line.split()[-2], "99") + "\n"), None)
                self.assertEqual(a, b)

    def test_counts_are_not_timings(self):
        for a, b in (("8 of 8 elements wrong", "7 of 8 elements wrong"),
                     ("256 MiB", "128 MiB"), ("3 streams", "2 streams")):
            with self.subTest(line=a):
                self.assertNotEqual(evidence.comparable(plain(out=a), None),
                                    evidence.comparable(plain(out=b), None))


class EndToEnd(unittest.TestCase):
    """The doctor on stand-in programs (no GPU, no sanitizer)."""

    def doctor(self, *args, env=None, cwd=None):
        environment = dict(os.environ, CLINIC_DOCTOR_PROBE=FAKE_GPU)
        environment.update(env or {})
        p = subprocess.run([sys.executable, str(DOCTOR), *args],
                           capture_output=True, text=True, timeout=120,
                           env=environment, cwd=cwd)
        self.assertNotIn("Traceback (most recent", p.stderr)
        return p

    def script(self, folder, body, name="program.py"):
        path = Path(folder) / name
        path.write_text("#!" + sys.executable + "\n" + WRITE_TRACE + body)
        path.chmod(0o755)
        return str(path)

    def test_a_bad_ignore_regex_stops_before_any_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            marker = Path(tmp) / "ran"
            prog = self.script(tmp, f"open({str(marker)!r}, 'w')\n")
            p = self.doctor("--ignore", "(unclosed", "--", prog)
            self.assertFalse(marker.exists())
        self.assertEqual(p.returncode, 2)
        self.assertIn("--ignore", p.stderr)

    def test_keep_on_an_existing_file_stops_before_any_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            marker, keep = Path(tmp) / "ran", Path(tmp) / "notes.txt"
            keep.write_text("mine")
            prog = self.script(tmp, f"open({str(marker)!r}, 'w')\n")
            p = self.doctor("--keep", str(keep), "--", prog)
            self.assertFalse(marker.exists())
            self.assertEqual(keep.read_text(), "mine")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--keep", p.stderr)

    def test_sigterm_stops_the_programs_whole_group(self):
        with tempfile.TemporaryDirectory() as tmp:
            pid_file = Path(tmp) / "child"
            prog = self.script(tmp, textwrap.dedent(f"""\
                import subprocess, time
                child = subprocess.Popen(["sleep", "300"])
                open({str(pid_file)!r}, "w").write(str(child.pid))
                time.sleep(300)
                """))
            doctor = subprocess.Popen(
                [sys.executable, str(DOCTOR), "--tools=", "--", prog],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=dict(os.environ, CLINIC_DOCTOR_PROBE=FAKE_GPU))
            for _ in range(200):
                if pid_file.exists() and pid_file.read_text():
                    break
                time.sleep(0.05)
            child = int(pid_file.read_text())
            doctor.send_signal(signal.SIGTERM)
            doctor.communicate(timeout=30)
            for _ in range(100):
                if not alive(child):
                    break
                time.sleep(0.05)
            self.assertFalse(alive(child), "the program's child survived")
        self.assertEqual(doctor.returncode, 2)

    def test_an_import_error_is_no_examination(self):
        with tempfile.TemporaryDirectory() as tmp:
            prog = self.script(tmp, "import no_such_module_here\n")
            p = self.doctor("--tools=", "--json", "--", prog)
        report = json.loads(p.stdout)
        self.assertEqual(p.returncode, 2)
        self.assertIn("failed before it did CUDA work: ModuleNotFoundError",
                      " ".join(report["cannot_examine"]))
        self.assertFalse(report.get("silent_causes"))

    def test_output_over_the_cap_is_cut_not_a_finding(self):
        with tempfile.TemporaryDirectory() as tmp:
            prog = self.script(tmp, "import sys, random\nwhile True:\n"
                               "    sys.stdout.write(str(random.random()) * "
                               "100000 + '\\n')\n")
            p = self.doctor("--repeat", "2", "--tools=", "--json",
                            "--output-limit", "2", "--", prog)
        report = json.loads(p.stdout)
        self.assertIn("output cut", " ".join(report["notes"]))
        self.assertEqual(report["findings"], [])

    def test_a_launcher_is_examined_and_the_trace_judges_it(self):
        """sh -c starts the program: the doctor examines it, and the trace
        the program writes in the child shows its bug (chapter 25)."""
        with tempfile.TemporaryDirectory() as tmp:
            prog = self.script(tmp, f"write_trace({MEMSET_ONE!r})\n"
                               "print('16843009 16843009')\n")
            p = self.doctor("--tools=", "--repeat", "1", "--json",
                            "--trace-library", __file__, "--", "/bin/sh",
                            "-c", f"{prog}; exit 0")
        report = json.loads(p.stdout)
        self.assertEqual(report["suspects"][:1], ["25"], p.stdout)
        self.assertIn("each int becomes 16843009",
                      report["findings"][0]["summary"])

    def test_the_time_budget_is_kept(self):
        with tempfile.TemporaryDirectory() as tmp:
            prog = self.script(tmp, "import time\ntime.sleep(1)\n"
                               "print('done')\n")
            start = time.monotonic()
            p = self.doctor("--tools=", "--repeat", "5", "--json",
                            "--budget", "4", "--", prog)
            seconds = time.monotonic() - start
        report = json.loads(p.stdout)
        self.assertLess(seconds, 12)
        self.assertIn("time budget", " ".join(report["notes"]))


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of a process that is gone is reaped by init
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


if __name__ == "__main__":
    unittest.main()
