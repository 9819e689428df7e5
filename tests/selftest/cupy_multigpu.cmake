# The self-test's cases for the CuPy twins and the multi-GPU chapters (see
# CMakeLists.txt): which skips CLINIC_REQUIRE allows, and the CuPy twins' own
# skip and error paths in common/clinic_pycuda.py, run with a stand-in CuPy.

# Too few GPUs (require_gpus_or_skip() in check_cuda.h): judged by multigpu
# alone, also where a GPU is evidently there (a one-GPU host).
fake(one_gpu "echo '[SKIPPED] this test needs 2 GPUs, the host has 1'; exit 77")
set(gpu_host CLINIC_REQUIRE=gpu,sanitizer,pycuda CLINIC_SELFTEST_GPU_EVIDENCE=1)
function(multigpu name)
  clinic_golden_test(${name} PROGRAM ${fakes}/one_gpu EXPECTED ${fakes}/ok.out
                     REQUIRES gpu multigpu LABELS golden multigpu)
  env(${name} ${ARGN})
endfunction()
multigpu(skip.golden.multigpu_one_gpu_host ${gpu_host})
multigpu(skip.golden.multigpu_gpu_required CLINIC_REQUIRE=gpu)
multigpu(fail.golden.multigpu_required CLINIC_REQUIRE=multigpu)
multigpu(fail.golden.multigpu_all_required CLINIC_REQUIRE=all)
san(skip.sanitizer.multigpu_one_gpu_host clean_tool one_gpu ok.out ENV CLINIC_REQUIRE=gpu,sanitizer
    CLINIC_SELFTEST_GPU_EVIDENCE=1)
san(fail.sanitizer.multigpu_required clean_tool one_gpu ok.out ENV CLINIC_REQUIRE=gpu,multigpu)
# No GPU at all: a multigpu test fails when CLINIC_REQUIRE names multigpu.
clinic_golden_test(fail.golden.multigpu_no_gpu_required PROGRAM ${fakes}/no_gpu EXPECTED ${fakes}/ok.out
                   REQUIRES gpu multigpu LABELS golden multigpu)
env(fail.golden.multigpu_no_gpu_required CLINIC_REQUIRE=multigpu)
set(CLINIC_SANITIZER ${fakes}/clean_tool)
clinic_sanitizer_test(fail.sanitizer.multigpu_no_gpu_required PROGRAM ${fakes}/no_gpu TOOL memcheck
  RECORDED ${fakes}/ok.out REQUIRES gpu multigpu sanitizer LABELS sanitizer multigpu)
env(fail.sanitizer.multigpu_no_gpu_required CLINIC_REQUIRE=multigpu)
clinic_sanitizer_test(skip.sanitizer.multigpu_no_gpu PROGRAM ${fakes}/no_gpu TOOL memcheck
  RECORDED ${fakes}/ok.out REQUIRES gpu multigpu sanitizer LABELS sanitizer multigpu)
env(skip.sanitizer.multigpu_no_gpu CLINIC_REQUIRE=pycuda)
_clinic_test(fail.probe.multigpu_no_gpu_required 60 probe probe --program=${fakes}/no_gpu
             --requires=gpu,multigpu)
env(fail.probe.multigpu_no_gpu_required CLINIC_REQUIRE=multigpu)
tour(pass.tour.multigpu_not_required CLINIC_REQUIRE=gpu,sanitizer one_gpu,one_gpu wrong,ok)
tour(fail.tour.multigpu_required CLINIC_REQUIRE=multigpu one_gpu,one_gpu)
# The multigpu.probe: the program gets its argument.
fake(gpus_probe "[ \"$1\" = --require-2-gpus ] && { echo '[SKIPPED] this test needs 2 GPUs, the host has 1'; exit 77; }; echo 'no argument'")
_clinic_test(skip.probe.multigpu 60 probe probe --program=${fakes}/gpus_probe --arg=--require-2-gpus)
_clinic_test(fail.probe.multigpu_required 60 probe probe --program=${fakes}/gpus_probe --arg=--require-2-gpus)
env(fail.probe.multigpu_required CLINIC_REQUIRE=multigpu)
_clinic_test(pass.require.new_words 60 require require)
env(pass.require.new_words "CLINIC_REQUIRE=cupy, MultiGPU")

# A CuPy twin, run by a Python that sees no site-packages (so no CuPy), or a
# stand-in CuPy whose device count is FAKE_CUPY_GPUS (0: no device) and whose
# twin raises a CUDA error when FAKE_CUPY_RAISE is set.
get_filename_component(common "${CMAKE_CURRENT_LIST_DIR}/../../common" ABSOLUTE)
fake(bare_python "exec '${Python3_EXECUTABLE}' -S \"$@\"")
record(cupy_twin.py "import os\nimport sys\nsys.path.insert(0, '${common}')\n\
import clinic_pycuda as clinic  # noqa: E402\nclinic.require_cupy_or_skip()\n\
import cupy  # noqa: E402\n\n\ndef run():\n    print('ran')\n\
    if os.environ.get('FAKE_CUPY_RAISE'):\n\
        raise cupy.cuda.runtime.CUDARuntimeError(\n\
            'cudaErrorInvalidValue: invalid argument')\n    return 0\n\n\n\
sys.exit(clinic.main(run))\n")
record(fake_cupy/cupy/__init__.py "from . import cuda  # noqa: F401\n")
record(fake_cupy/cupy/cuda/__init__.py "from . import driver, runtime  # noqa: F401\n")
record(fake_cupy/cupy/cuda/driver.py "class CUDADriverError(RuntimeError):\n    pass\n")
record(fake_cupy/cupy/cuda/runtime.py "import os\n\n\nclass CUDARuntimeError(RuntimeError):\n    pass\n\n\n\
def getDeviceCount():\n    if os.environ['FAKE_CUPY_GPUS'] == '0':\n\
        raise CUDARuntimeError(\n\
            'cudaErrorNoDevice: no CUDA-capable device\\n is detected')\n\
    return int(os.environ['FAKE_CUPY_GPUS'])\n")
record(ran.out "ran\n[exit status: 0]\n")
record(cupy_error.out "ran\n[stderr]\nCUDARuntimeError: cudaErrorInvalidValue: invalid argument\n[exit status: 2]\n")
function(cupy_twin name record python)
  clinic_golden_test(${name} PROGRAM ${fakes}/cupy_twin.py INTERPRETER "${python}"
                     WHY "CuPy is not installed" EXPECTED ${fakes}/${record}
                     REQUIRES gpu cupy LABELS golden cupy)
  env(${name} ${ARGN})
endfunction()
set(no_cupy ${fakes}/bare_python)
set(fake_cupy ${fakes}/bare_python PYTHONPATH=${fakes}/fake_cupy)
cupy_twin(skip.golden.cupy_missing ok.out ${no_cupy} PYTHONPATH=)
cupy_twin(skip.golden.cupy_missing_gpu_host ok.out ${no_cupy} PYTHONPATH= ${gpu_host})
cupy_twin(fail.golden.cupy_missing_required ok.out ${no_cupy} PYTHONPATH= CLINIC_REQUIRE=cupy)
cupy_twin(skip.golden.cupy_no_gpu ok.out ${fake_cupy} FAKE_CUPY_GPUS=0 CLINIC_REQUIRE=pycuda)
cupy_twin(fail.golden.cupy_no_gpu_required ok.out ${fake_cupy} FAKE_CUPY_GPUS=0 CLINIC_REQUIRE=gpu)
cupy_twin(pass.golden.cupy_gpu ran.out ${fake_cupy} FAKE_CUPY_GPUS=1)
cupy_twin(pass.golden.cupy_error_exit_2 cupy_error.out ${fake_cupy} FAKE_CUPY_GPUS=1 FAKE_CUPY_RAISE=1)
# Without any Python: the twin skips for cupy, not pycuda.
cupy_twin(skip.golden.cupy_no_python ok.out "" CLINIC_REQUIRE=pycuda)
cupy_twin(fail.golden.cupy_no_python_required ok.out "" CLINIC_REQUIRE=cupy)
