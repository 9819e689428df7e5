"""Unit tests of the doctor's Python launch check (tools/clinic_doctor/
pylaunch), run by `ctest -L doctor` without a GPU.

  - the CUDA C signature parser, on kernels written the ways users write
    them;
  - the rules (chapters 29, 30, 32; 09 and 19 for PyTorch's non_blocking
    copies) on hand-written records, each case with a near miss that must
    not fire;
  - the check itself, end to end: small programs (pylaunch_programs/) run
    under it with stand-ins for numpy, CuPy, PyCUDA, Numba and torch
    (pylaunch_fakes/) put on PYTHONPATH, once with CLINIC_TRACE_DIR set and
    once without; their output must be the same, and the records must hold
    what the rules need.
"""

import glob
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest
from unittest import mock
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tools"))
from clinic_doctor import pylaunch, trace, tracerun  # noqa: E402
from clinic_doctor.pylaunch import rules  # noqa: E402

SITE = pylaunch.site_dir()
sys.path.insert(0, SITE)
from _clinic_pylaunch import csig  # noqa: E402

FAKES = str(HERE / "pylaunch_fakes")
PROGRAMS = HERE / "pylaunch_programs"


class Signatures(unittest.TestCase):
    def params(self, source, name):
        return [(p["name"], p["type"], p["pointer"], p["dtype"])
                for p in csig.kernel_params(source, name)]

    def test_extern_c_kernel(self):
        src = r'''
        // the kernel
        extern "C" __global__
        void scale(float factor, const float *in, float *out, int n)
        { out[0] = factor * in[0]; }
        '''
        self.assertEqual(self.params(src, "scale"), [
            ("factor", "float", False, "float32"),
            ("in", "const float *", True, "float32"),
            ("out", "float *", True, "float32"),
            ("n", "int", False, "int32")])

    def test_qualifiers_block_and_launch_bounds(self):
        src = '''
        #define N 4  /* __global__ void not_me(int x) in a comment */
        extern "C" {
        __global__ void __launch_bounds__(256, 2)
        k(const double *__restrict__ a, unsigned n, long long m,
          size_t s, unsigned char *bytes, __half h, double2 *v)
        {}
        }
        static __global__ void none(void) {}
        '''
        self.assertEqual(self.params(src, "k"), [
            ("a", "const double *", True, "float64"),
            ("n", "unsigned int", False, "uint32"),
            ("m", "long long", False, "int64"),
            ("s", "size_t", False, "uint64"),
            ("bytes", "unsigned char *", True, "uint8"),
            ("h", "__half", False, "float16"),
            ("v", "double2 *", True, None)])
        self.assertEqual(self.params(src, "none"), [])
        self.assertIsNone(csig.kernel_params(src, "not_me"))
        self.assertIsNone(csig.kernel_params(src, "N"))

    def test_global_after_return_type_and_strings(self):
        src = '''
        const char *s = "__global__ void fake(int a)";
        void __global__ real(unsigned long int x, signed char c, int) {}
        '''
        self.assertIsNone(csig.kernel_params(src, "fake"))
        self.assertEqual(self.params(src, "real"), [
            ("x", "unsigned long", False, "uint64"),
            ("c", "signed char", False, "int8"),
            (None, "int", False, "int32")])

    def test_template_types_have_no_dtype(self):
        src = ("template <typename T>\n"
               "__global__ void t(T *a, int n) {}\n"
               "__global__ void plain(float *a) {}\n")
        params = csig.kernel_params(src, "t")
        self.assertIsNone(params[0]["dtype"])
        self.assertTrue(params[0].get("template"))
        self.assertEqual(params[1]["dtype"], "int32")
        self.assertNotIn("template", csig.kernel_params(src, "plain")[0])


def launch(lib, params, args, kernel="k", device=None, n=1, **extra):
    rec = {"n": n, "ev": "pylaunch", "lib": lib, "kernel": kernel,
           "device": device, "params": params, "args": args,
           "where": "prog.py:10"}
    rec.update(extra)
    return rec


def P(type_, dtype, pointer, name="p"):
    return {"name": name, "type": type_, "dtype": dtype, "pointer": pointer}


def arr(dtype, shape=(8,), strides=(4,), c=True, f=None, lib="cupy",
        device=0):
    return {"kind": "array", "dtype": dtype, "shape": list(shape),
            "strides": list(strides), "c_contiguous": c,
            "f_contiguous": c if f is None else f, "device": device,
            "lib": lib}


def scalar(pytype, dtype, value):
    return {"kind": "scalar", "pytype": pytype, "dtype": dtype,
            "value": value}


class Rules(unittest.TestCase):
    def chapters(self, records):
        return [f["chapter"] for f in rules.findings(records)]

    def test_16_packed_numpy_records_for_a_struct_are_a_hint(self):
        param = dict(P("const record *", None, True), base="record")

        def filled(size):
            rows = arr("void%d" % (8 * size), shape=(4,), strides=(size,),
                       lib="numpy", device=None)
            return [launch("pycuda", [param], [{
                "kind": "pointer", "value": "0x7f0000000000",
                "lib": "pycuda", "pytype": "DeviceAllocation",
                "filled_from": rows}])]
        found = rules.findings(filled(9))
        self.assertEqual([(f["chapter"], f["strength"]) for f in found],
                         [("16", "weak")])
        self.assertIn("9 bytes", found[0]["summary"])
        self.assertEqual(rules.findings(filled(12)), [])  # align=True
        byte_param = dict(param, base="char", type="const char *")
        self.assertEqual(rules.findings([dict(filled(9)[0],
                                              params=[byte_param])]), [])

    def test_29_array_dtype(self):
        p = [P("const float *", "float32", True)]
        found = rules.findings([launch("cupy", p, [arr("float64")])])
        self.assertEqual([f["chapter"] for f in found], ["29"])
        self.assertIn("float64", found[0]["summary"])
        self.assertIn("py#1", found[0]["evidence"][0])
        self.assertIn("float64 cupy array", found[0]["evidence"][0])
        self.assertEqual(found[0]["strength"], "strong")
        # Near misses: the same dtype; signedness only; bytes; void *.
        self.assertEqual(self.chapters([
            launch("cupy", p, [arr("float32")]),
            launch("cupy", [P("unsigned int *", "uint32", True)],
                   [arr("int32")]),
            launch("cupy", [{"name": "b", "type": "unsigned char *",
                             "base": "unsigned char", "dtype": "uint8",
                             "pointer": True}], [arr("float64")]),
            launch("cupy", [P("void *", None, True)], [arr("float64")]),
        ]), [])

    def test_29_python_float_and_ints_in_cupy(self):
        f = [P("float", "float32", False, "factor")]
        i = [P("int", "int32", False, "n")]
        found = rules.findings([
            launch("cupy", f, [scalar("float", "float64", 2.0)])])
        self.assertEqual([x["chapter"] for x in found], ["29"])
        self.assertIn("Python float", found[0]["summary"])
        self.assertIn("float64", found[0]["summary"])
        # An int64 that fits an int arrives whole; one that does not fit,
        # and a float32 given for a double, do not.
        self.assertEqual(self.chapters([
            launch("cupy", i, [scalar("int", "int64", 8)]),
            launch("cupy", f, [scalar("float32", "float32", 2.0)])]), [])
        self.assertEqual(self.chapters([
            launch("cupy", i, [scalar("int", "int64", 2 ** 40)]),
            launch("cupy", [P("double", "float64", False)],
                   [scalar("float32", "float32", 1.0)]),
            launch("cupy", i, [scalar("float", "float64", 1.0)])]),
            ["29", "29", "29"])

    def test_29_pycuda_scalars(self):
        f = [P("float", "float32", False, "factor")]
        found = rules.findings([
            launch("pycuda", f, [scalar("float", None, 2.0)])])
        self.assertEqual([x["chapter"] for x in found], ["29"])
        self.assertIn("refuses", found[0]["summary"])
        # PyCUDA packs the arguments: an int64 for an int moves the rest.
        self.assertEqual(self.chapters([
            launch("pycuda", [P("int", "int32", False)],
                   [scalar("int64", "int64", 8)])]), ["29"])
        # A prepared call packs by its format: "f" for a float is right
        # whatever the Python type; "d" is not.
        self.assertEqual(self.chapters([
            launch("pycuda", f, [scalar("float", "float32", 2.0)],
                   prepared="fPPi")]), [])
        self.assertEqual(self.chapters([
            launch("pycuda", f, [scalar("float", "float64", 2.0)],
                   prepared="dPPi")]), ["29"])

    def test_29_pointers_tensors_and_filled_allocations(self):
        p = [P("float *", "float32", True)]
        tensor = arr("float64", lib="torch")
        filled = arr("float64", lib="numpy", device=None)
        self.assertEqual(self.chapters([
            launch("cupy", p, [{"kind": "pointer", "value": "0x10",
                                "tensor": tensor}]),
            launch("pycuda", p, [{"kind": "pointer", "value": "0x20",
                                  "filled_from": filled}])]), ["29", "29"])
        self.assertEqual(self.chapters([
            launch("cupy", p, [{"kind": "pointer", "value": "0x10"}]),
            launch("pycuda", p, [{"kind": "pointer", "value": "0x20",
                                  "filled_from": arr("float32")}])]), [])

    def test_29_numba_arrays_only(self):
        p = [{"name": "a", "type": "array(float32, 1d, A)",
              "dtype": "float32", "pointer": True}]
        s = [{"name": "x", "type": "float32", "dtype": "float32",
              "pointer": False}]
        self.assertEqual(self.chapters([
            launch("numba", p, [arr("float64", lib="numpy", device=None)]),
            launch("numba", s, [scalar("float", None, 1.5)])]), ["29"])

    def test_30_layouts(self):
        p = [P("const int *", "int32", True)]
        view = arr("int32", shape=(4, 3), strides=(24, 4), c=False, f=False)
        fortran = arr("int32", shape=(4, 3), strides=(4, 16), c=False,
                      f=True)
        t_view = {"kind": "pointer", "value": "0x10",
                  "tensor": arr("int32", shape=(6, 4), strides=(4, 24),
                                c=False, f=True, lib="torch")}
        found = rules.findings([launch("cupy", p, [view]),
                                launch("pycuda", p, [fortran]),
                                launch("cupy", p, [t_view])])
        self.assertEqual([f["chapter"] for f in found], ["30"] * 3)
        self.assertIn("not contiguous", found[0]["summary"])
        self.assertIn("Fortran", found[1]["summary"])
        self.assertIn("data_ptr()", found[2]["summary"])
        # Near misses: contiguous arrays; Numba, which passes strides.
        self.assertEqual(self.chapters([
            launch("cupy", p, [arr("int32", shape=(4, 3), strides=(12, 4))]),
            launch("numba", [{"name": "a", "type": "array(int32, 2d, A)",
                              "dtype": "int32", "pointer": True}], [view]),
        ]), [])

    def test_32_devices(self):
        p = [P("float *", "float32", True)]
        found = rules.findings([launch("cupy", p, [arr("float32", device=1)],
                                       device=0)])
        self.assertEqual([f["chapter"] for f in found], ["32"])
        self.assertIn("device 1", found[0]["summary"])
        self.assertEqual(self.chapters([
            launch("cupy", p, [arr("float32", device=0)], device=0),
            launch("cupy", p, [arr("float32", device=1)], device=None),
            launch("cupy", p, [arr("float32", lib="numpy", device=None)],
                   device=0)]), [])

    def test_repeats_are_one_finding_and_junk_is_ignored(self):
        p = [P("float *", "float32", True)]
        recs = [launch("cupy", p, [arr("float64")], n=i) for i in range(5)]
        recs += [{"ev": "pystart"}, "junk", {"ev": "pylaunch", "args": [1]},
                 launch("cupy", [{"name": "x"}], [{"kind": "array"}])]
        found = rules.findings(recs)
        self.assertEqual(len(found), 1)
        self.assertIn("5 recorded launches", found[0]["evidence"][-1])


class Helpers(unittest.TestCase):
    def test_environment(self):
        """The doctor's trace run starts the check: the site folder first
        on PYTHONPATH, CLINIC_TRACE_DIR set (tracerun.environment)."""
        with mock.patch.dict(os.environ, {"PYTHONPATH": "/x"}):
            env = tracerun.environment("lib.so", "/t", True)
        self.assertEqual(env["PYTHONPATH"], SITE + os.pathsep + "/x")
        self.assertEqual(env["CLINIC_TRACE_DIR"], "/t")
        with mock.patch.dict(os.environ, {"PYTHONPATH": ""}):
            self.assertEqual(
                tracerun.environment("lib.so", "/t", True)["PYTHONPATH"],
                SITE)
        self.assertNotIn("PYTHONPATH",
                         tracerun.environment("lib.so", "/t", False))
        self.assertTrue(os.path.isfile(os.path.join(SITE,
                                                    "sitecustomize.py")))

    def test_read_records_keeps_what_came_before_a_cut(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "py-12.jsonl"), "w") as f:
                f.write('{"n":0,"ev":"pystart"}\n{"n":1,"ev":"pyla')
            with open(os.path.join(folder, "py-3.jsonl"), "w") as f:
                f.write('{"n":0,"ev":"pystart"}\n')
            with open(os.path.join(folder, "api-3.jsonl"), "w") as f:
                f.write('{"n":0,"ev":"start"}\n')
            py = trace.read_trace(folder)["py"]
        self.assertEqual([(p["pid"], [r["n"] for r in p["records"]],
                           p["truncated"]) for p in py],
                         [(3, [0], False), (12, [0], True)])

    def test_evidence_names_the_process_when_there_are_several(self):
        p = [P("float *", "float32", True)]
        one = launch("cupy", p, [arr("float64")])
        one["pid"] = 5
        two = launch("cupy", p, [arr("float64")], kernel="other")
        two["pid"] = 6
        found = rules.findings([one, two])
        self.assertIn("py#1 of pid 5", found[0]["evidence"][0])
        self.assertNotIn("pid", rules.findings([one])[0]["evidence"][0])


def read_records(folder):
    out = {}
    for path in sorted(glob.glob(os.path.join(folder, "py-*.jsonl"))):
        with open(path) as f:
            out[os.path.basename(path)] = [json.loads(line) for line in f]
    return out


class EndToEnd(unittest.TestCase):
    """The programs in pylaunch_programs/ with and without the check."""

    def run_program(self, name, trace, extra_path=()):
        env = dict(os.environ)
        env.pop("CLINIC_TRACE_DIR", None)
        env["PYTHONPATH"] = os.pathsep.join([SITE, *extra_path, FAKES])
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        folder = tempfile.mkdtemp(prefix="pylaunch-")
        self.addCleanup(lambda: [os.remove(p) for p in glob.glob(
            os.path.join(folder, "*"))] and None or os.rmdir(folder))
        if trace:
            env["CLINIC_TRACE_DIR"] = folder
        p = subprocess.run([sys.executable, name], cwd=str(PROGRAMS),
                           env=env, capture_output=True, text=True,
                           timeout=60)
        return p, read_records(folder)

    def check(self, name, extra_path=()):
        """Runs name both ways; the output must be the same. Returns the
        traced run's (result, records of its own process)."""
        plain, none = self.run_program(name, False, extra_path)
        traced, files = self.run_program(name, True, extra_path)
        self.assertEqual(none, {})
        self.assertEqual((traced.stdout, traced.stderr, traced.returncode),
                         (plain.stdout, plain.stderr, plain.returncode))
        return traced, files

    def own(self, files):
        self.assertEqual(len(files), 1, files)
        recs = list(files.values())[0]
        self.assertEqual(recs[0]["ev"], "pystart")
        self.assertEqual([r["n"] for r in recs], list(range(len(recs))))
        self.assertEqual(recs[-1]["ev"], "pyend")
        return recs

    def launches(self, recs):
        return [r for r in recs if r["ev"] == "pylaunch"]

    def test_cupy(self):
        result, files = self.check("p_cupy.py")
        self.assertEqual(result.stdout,
                         "True True RawKernel cupy._raw 7\n")
        recs = self.own(files)
        self.assertEqual(recs[-1]["failures"], 0)
        self.assertIn({"ev": "pywrap", "lib": "cupy"},
                      [{k: r[k] for k in ("ev", "lib")} for r in recs
                       if r["ev"] == "pywrap"])
        launches = self.launches(recs)
        self.assertEqual(len(launches), 7)
        first = launches[0]
        self.assertEqual(first["kernel"], "scale")
        self.assertEqual([p["type"] for p in first["params"]],
                         ["float", "const float *", "float *", "int"])
        self.assertEqual(first["args"][1]["dtype"], "float64")
        self.assertTrue(first["where"].endswith("p_cupy.py:15"),
                        first["where"])
        self.assertEqual(launches[1]["args"][0], {
            "kind": "scalar", "pytype": "float", "dtype": "float64",
            "value": 2.0})
        # numpy.float64 is a Python float too: it is told apart.
        self.assertEqual(launches[3]["args"][0]["pytype"], "float64")
        self.assertEqual(launches[4]["args"][1]["strides"], [24, 4])
        self.assertIs(launches[4]["args"][1]["c_contiguous"], False)
        self.assertEqual(launches[6]["device"], 1)
        found = rules.findings(recs)
        self.assertEqual([f["chapter"] for f in found],
                         ["29", "29", "29", "30", "29", "32"])
        self.assertIn("float64 scalar", found[2]["summary"])
        # One finding for the launch on device 1, quoting both arguments.
        self.assertEqual(len(found[5]["evidence"]), 2)

    def test_a_loop_writes_a_few_records(self):
        result, files = self.check("p_loop.py")
        recs = self.own(files)
        launches = self.launches(recs)
        # 3 of the 10 launches that differ only in a scalar's value, 3 of
        # 4 small ints and the one too big for an int, then 3 of the 5
        # whose array differs from the first ones.
        self.assertEqual(len(launches), 10)
        self.assertEqual(launches[6]["args"][0]["value"], 2 ** 40)
        self.assertEqual(launches[7]["args"][1]["dtype"], "float64")
        self.assertEqual(recs[-1]["repeats"], 7 + 1 + 2)
        self.assertEqual([f["chapter"] for f in rules.findings(recs)],
                         ["29", "29"])

    def test_torch_data_ptr(self):
        result, files = self.check("p_torch.py")
        recs = self.own(files)
        launches = self.launches(recs)
        self.assertEqual(len(launches), 4)
        view = launches[0]["args"][0]
        self.assertEqual(view["kind"], "pointer")
        self.assertEqual(view["tensor"]["strides"], [4, 24])
        self.assertIs(view["tensor"]["c_contiguous"], False)
        self.assertEqual([f["chapter"] for f in rules.findings(recs)],
                         ["30", "29", "32"])

    def test_torch_non_blocking_copies(self):
        result, files = self.check("p_torch_async.py")
        recs = self.own(files)
        self.assertEqual(recs[-1]["failures"], 0)
        accesses = [r for r in recs if r["ev"] == "pyasync"]
        self.assertEqual([(r["access"], r["op"], r["where"], r["copy"]["dir"],
                           r["copy"]["where"]) for r in accesses],
                         [("read", "numpy", "p_torch_async.py:9", "d2h",
                           "p_torch_async.py:8"),
                          ("write", "fill_", "p_torch_async.py:15", "h2d",
                           "p_torch_async.py:14")])
        found = rules.findings(recs)
        self.assertEqual([f["chapter"] for f in found], ["09", "19"])
        self.assertIn("numpy at p_torch_async.py:9", found[0]["summary"])

    def test_async_rules_need_the_harmful_direction(self):
        """A read of a host-to-device source and a write into a
        device-to-host destination are not these chapters' bugs."""
        def rec(access, direction):
            return {"ev": "pyasync", "lib": "torch", "access": access,
                    "op": "item", "where": "p.py:3",
                    "copy": {"dir": direction, "op": "copy_", "bytes": 4,
                             "where": "p.py:2", "device": 0}}
        self.assertEqual([f["chapter"] for f in rules.findings(
            [rec("read", "d2h"), rec("read", "d2h"),
             rec("write", "h2d")])], ["09", "19"])
        self.assertEqual(rules.findings([rec("read", "h2d"),
                                         rec("write", "d2h")]), [])

    def test_pycuda(self):
        result, files = self.check("p_pycuda.py")
        self.assertIn("refused: invalid type on parameter #0", result.stdout)
        recs = self.own(files)
        launches = self.launches(recs)
        self.assertEqual(len(launches), 6)
        self.assertEqual(launches[0]["args"][1]["filled_from"]["dtype"],
                         "float64")
        self.assertEqual(launches[2]["args"][0]["pytype"], "float64")
        self.assertEqual(launches[3]["prepared"], "dPPi")
        self.assertEqual(launches[3]["args"][0]["dtype"], "float64")
        self.assertEqual(launches[4]["args"][0]["dtype"], "float32")
        self.assertEqual([f["chapter"] for f in rules.findings(recs)],
                         ["29", "29", "29", "29", "30"])

    @unittest.skipIf(
        importlib.util.find_spec("numba_cuda") is not None,
        "numba-cuda is installed: its import hook hands out the real "
        "numba.cuda in place of the stand-in (the GPU host's own check, "
        "tests/doctor/pylaunch_gpu, covers Numba there)")
    def test_numba(self):
        result, files = self.check("p_numba.py")
        self.assertIn("numba: No matching definition", result.stdout)
        recs = self.own(files)
        launches = self.launches(recs)
        self.assertEqual([r["kernel"] for r in launches],
                         ["scale", "lazy", "scale"])
        self.assertEqual(launches[0]["params"][0]["dtype"], "float32")
        self.assertIsNone(launches[1]["params"])
        self.assertTrue(launches[0]["where"].endswith("p_numba.py:18"))
        self.assertEqual([f["chapter"] for f in rules.findings(recs)],
                         ["29"])

    def test_imports_nothing_itself(self):
        result, files = self.check("p_plain.py")
        self.assertEqual(result.stdout, "[]\n")
        recs = self.own(files)
        self.assertEqual(recs[0]["libs"], [])
        self.assertEqual(len(recs), 2)

    def test_uncaught_launch_error_prints_the_same_traceback(self):
        result, files = self.check("p_error.py")
        self.assertIn("TypeError: Unsupported type", result.stderr)
        self.assertNotIn("_clinic_pylaunch", result.stderr)
        self.assertNotIn("sitedir", result.stderr)
        recs = self.own(files)
        errors = [r for r in recs if r["ev"] == "pyerror"]
        self.assertEqual(len(errors), 1)
        self.assertEqual(errors[0]["type"], "TypeError")

    def test_library_failing_at_import(self):
        result, files = self.check("p_lib_import_error.py")
        self.assertIn("AttributeError", result.stderr)
        self.assertIn("broken_lib", result.stderr)
        self.assertNotIn("_clinic_pylaunch", result.stderr)
        recs = self.own(files)
        self.assertEqual([(r["type"], r["where"]) for r in recs
                          if r["ev"] == "pyerror"],
                         [("AttributeError", "broken_lib/cupy/__init__.py:5")])
        self.assertEqual(recs[0]["libs"], [])

    def test_pyerror(self):
        result, files = self.check("p_import_error.py")
        self.assertNotEqual(result.returncode, 0)
        recs = self.own(files)
        errors = [r for r in recs if r["ev"] == "pyerror"]
        self.assertEqual([(e["type"], e["where"]) for e in errors],
                         [("AttributeError", "p_import_error.py:7")])
        self.assertIn("row_stack", errors[0]["message"])

    def test_failure_inside_the_check_is_counted(self):
        result, files = self.check("p_bad_arg.py")
        self.assertEqual(result.stdout, "launched 1\n")
        recs = self.own(files)
        self.assertEqual(recs[-1]["failures"], 1)
        self.assertEqual(self.launches(recs)[0]["args"][0]["kind"],
                         "unknown")

    def test_forked_child_has_its_own_file(self):
        result, files = self.check("p_fork.py")
        self.assertEqual(result.stdout, "parent done\n")
        self.assertEqual(len(files), 2)
        for recs in files.values():
            self.assertEqual(recs[0]["ev"], "pystart")
            self.assertEqual(recs[0]["n"], 0)
            self.assertEqual(len(self.launches(recs)), 1)
            self.assertEqual(rules.findings(recs)[0]["chapter"], "29")

    def test_next_sitecustomize_still_runs(self):
        chain = str(PROGRAMS / "chain")
        result, files = self.check("p_plain.py", extra_path=[chain])
        self.assertEqual(result.stdout,
                         "the next sitecustomize ran\n[]\n")
        self.own(files)


if __name__ == "__main__":
    unittest.main()
