# clinic.cmake -- everything a chapter needs, for the whole project and for a
# chapter built on its own (`cmake -S chapters/NN-slug -B build-NN`).
# Include it before project(): it sets the default GPU architectures, which
# must be known when CMake enables the CUDA language.
include_guard(GLOBAL)

# Native code for Turing (75), Ampere/Ada (80) and Hopper (90), and compute_90
# PTX that newer GPUs compile at load time; unlike "native", it configures with
# no GPU. -DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS variable wins.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;90" CACHE STRING "GPU architectures to build for")
endif()

get_filename_component(CLINIC_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
include("${CMAKE_CURRENT_LIST_DIR}/clinic_tests.cmake")
set(CLINIC_SANITIZER_TOOLS memcheck racecheck initcheck synccheck)
option(CLINIC_WERROR_FIXED "Treat warnings in the chapters' fixed programs as errors (CI)" OFF)

# Tests are on wherever a chapter is configured, alone or in the whole project
# (enable_testing() sets a directory variable: here, not in a function).
enable_testing()

# The tools the tests use, looked for once per configure: compute-sanitizer
# next to nvcc (CLINIC_SANITIZER, cached), and a Python that can import
# PyCUDA, CuPy, PyTorch and Numba for the chapters' twins. Sets CLINIC_PYTHON
# (empty without Python) and CLINIC_<LIB>_MISSING for PYCUDA, CUPY, TORCH and
# NUMBA (why that library cannot run here, or empty).
function(clinic_find_tools)
  get_property(found GLOBAL PROPERTY CLINIC_TOOLS_FOUND)
  if(NOT found)
    if(CMAKE_CUDA_COMPILER_VERSION AND NOT CMAKE_CUDA_COMPILER_VERSION MATCHES "^13\\.")
      message(WARNING "The CUDA compiler is ${CMAKE_CUDA_COMPILER_VERSION}; the recorded "
        "outputs in expected/ were made with CUDA 13, so some golden tests may differ.")
    endif()
    get_filename_component(nvcc_dir "${CMAKE_CUDA_COMPILER}" DIRECTORY)
    find_program(CLINIC_SANITIZER compute-sanitizer HINTS "${nvcc_dir}")
    find_package(Python3 COMPONENTS Interpreter QUIET) # _clinic_lacks(): clinic_tests.cmake
    set_property(GLOBAL PROPERTY CLINIC_PYTHON "${Python3_EXECUTABLE}")
    _clinic_lacks(PYCUDA "PyCUDA and numpy are" "numpy pycuda" pycuda numpy)
    _clinic_lacks(CUPY "CuPy is" cupy-cuda13x cupy)
    _clinic_lacks(TORCH "PyTorch is" torch torch)
    _clinic_lacks(NUMBA "Numba is" "-r requirements.txt" numba.cuda)
    set_property(GLOBAL PROPERTY CLINIC_TOOLS_FOUND TRUE)
  endif()
  foreach(var PYTHON PYCUDA_MISSING CUPY_MISSING TORCH_MISSING NUMBA_MISSING)
    get_property(value GLOBAL PROPERTY CLINIC_${var})
    set(CLINIC_${var} "${value}" PARENT_SCOPE)
  endforeach()
endfunction()

# clinic_chapter([SERIAL] [FAULTS] [MULTIGPU] [STREAMS] [VARIANTS <name>...]
#                [SOURCES <file>...])
# Registers the chapter in the current folder, named NN-slug: its programs
# chNN_broken and chNN_fixed (files "broken" and "fixed"), one more for each
# VARIANTS <name>.cu, and all their tests. SOURCES: files built into every
# program beside its own <prog>.cu, a second .cu and the headers they share
# (chapter 44); not programs, so no tests. CONTRIBUTING.md (step 4) says what
# each option means and which file of expected/ asks for which test:
#   chNN.<prog>.golden         stdout + stderr + exit status == expected/<prog>.out
#   chNN.<prog>.<tool>         compute-sanitizer: the fixed program clean, unless
#                              expected/fixed.<tool> holds the report's regexes;
#                              a broken one for each expected/<prog>.<tool>
#   chNN.broken.compile_fails  with expected/broken.compile-errors
#   chNN.<twin>.golden         each twin: PyCUDA (label pycuda), CuPy (cupy),
#                              PyTorch (torch), Numba (numba)
# In update mode the sanitizer tests that have an expectation file also record
# the tool's report, masked, into expected/<prog>.<tool>.out for the READMEs.
# SERIAL: golden tests run with the machine to themselves (the programs time).
# FAULTS: the tests of a program whose record shows a GPU fault run one at a
# time (_clinic_fault_lock), memcheck's aside. MULTIGPU: label multigpu, and
# the golden tests require gpu and multigpu. STREAMS: the lesson needs streams
# to run side by side, so its golden tests keep the driver's eight work queues;
# the others have one (CUDA_DEVICE_MAX_CONNECTIONS=1), as the sanitizer tests:
# a context starts faster, one stream runs the same (docs/gpu-host.md).
# CLINIC_EXERCISE on (tools/clinic-exercise, building a learner's copy of the
# chapter): only chNN_broken is built, from the copy's broken.cu (and its
# copies of the SOURCES); no tests.
function(clinic_chapter)
  cmake_parse_arguments(PARSE_ARGV 0 arg "SERIAL;FAULTS;MULTIGPU;STREAMS" "" "VARIANTS;SOURCES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "clinic_chapter(): unknown arguments '${arg_UNPARSED_ARGUMENTS}'; it takes only "
      "SERIAL, FAULTS, MULTIGPU, STREAMS, VARIANTS and SOURCES (expectations are files in expected/, see CONTRIBUTING.md)")
  endif()
  get_filename_component(chapter "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  if(NOT chapter MATCHES "^([0-9][0-9])-[a-z0-9-]+$")
    message(FATAL_ERROR "${CMAKE_CURRENT_SOURCE_DIR}: a chapter folder is named NN-slug")
  endif()
  set(id "ch${CMAKE_MATCH_1}")
  set(src "${CMAKE_CURRENT_SOURCE_DIR}")
  set(exp "${src}/expected")
  set(built broken fixed ${arg_VARIANTS})
  if(CLINIC_EXERCISE)
    set(built broken)
  endif()
  foreach(prog IN LISTS built)
    add_executable(${id}_${prog} ${prog}.cu ${arg_SOURCES})
    set_target_properties(${id}_${prog} PROPERTIES OUTPUT_NAME ${prog}
                          CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
    # -lineinfo: file:line in sanitizer reports; warnings on for the host code.
    target_compile_options(${id}_${prog} PRIVATE -lineinfo -Xcompiler=-Wall,-Wextra)
    target_include_directories(${id}_${prog} PRIVATE "${CLINIC_ROOT}/common")
  endforeach()
  if(CLINIC_EXERCISE)
    return()
  endif()
  clinic_find_tools()
  set(golden_options "")
  if(arg_SERIAL)
    set(golden_options SERIAL)
  endif()
  set(multigpu "") # the extra label, and what the tests need beside the GPU
  if(arg_MULTIGPU)
    set(multigpu multigpu)
  endif()
  set(queues ONE_QUEUE) # see STREAMS
  if(arg_STREAMS)
    set(queues "")
  endif()
  if(CLINIC_WERROR_FIXED) # CI: a warning in a fixed program is an error
    target_compile_options(${id}_fixed PRIVATE -Xcompiler=-Werror "SHELL:-Werror all-warnings")
  endif()

  set(programs broken fixed)
  if(EXISTS "${exp}/broken.compile-errors")
    set_target_properties(${id}_broken PROPERTIES EXCLUDE_FROM_ALL TRUE)
    clinic_compile_fail_test(${id}.broken.compile_fails TARGET ${id}_broken
      PATTERNS_FILE "${exp}/broken.compile-errors" EXPECTED "${exp}/broken.out"
      LABELS cpu compile_fail ${id})
    set(programs fixed)
  endif()
  list(APPEND programs ${arg_VARIANTS})
  foreach(prog IN LISTS programs)
    _clinic_fault_lock(lock ${arg_FAULTS} "${exp}/${prog}.out")
    clinic_golden_test(${id}.${prog}.golden PROGRAM "$<TARGET_FILE:${id}_${prog}>"
      EXPECTED "${exp}/${prog}.out" REQUIRES gpu ${multigpu} LABELS gpu golden ${id} ${multigpu}
      ${golden_options} ${lock} ${queues})
    # racecheck, initcheck and synccheck take the same lock: they do not check
    # addresses, so the fault happens under them too.
    foreach(tool IN LISTS CLINIC_SANITIZER_TOOLS)
      set(tool_lock "${lock}")
      if(tool STREQUAL "memcheck")
        set(tool_lock "") # it stops the access: no fault
      endif()
      set(expect "")
      if(EXISTS "${exp}/${prog}.${tool}")
        set(expect EXPECT_FILE "${exp}/${prog}.${tool}" REPORT_RECORD "${exp}/${prog}.${tool}.out")
      elseif(NOT prog STREQUAL "fixed")
        continue() # a broken program is run under the tools its bug is for
      endif()
      clinic_sanitizer_test(${id}.${prog}.${tool} PROGRAM "$<TARGET_FILE:${id}_${prog}>"
        TOOL ${tool} RECORDED "${exp}/${prog}.out" ${expect} ${tool_lock}
        REQUIRES gpu ${multigpu} sanitizer LABELS sanitizer ${tool} ${id} ${multigpu})
      # It reads the golden record's exit status: after that is recorded.
      set_tests_properties(${id}.${prog}.${tool} PROPERTIES DEPENDS ${id}.${prog}.golden)
    endforeach()
  endforeach()

  foreach(twin broken.py fixed.py broken_cupy.py fixed_cupy.py broken_torch.py
               fixed_torch.py broken_numba.py fixed_numba.py)
    set(lib pycuda)
    if(twin MATCHES "_(cupy|torch|numba)\\.py$")
      set(lib ${CMAKE_MATCH_1})
    endif()
    string(TOUPPER ${lib} LIB)
    if(EXISTS "${src}/${twin}")
      _clinic_fault_lock(lock ${arg_FAULTS} "${exp}/${twin}.out")
      clinic_golden_test(${id}.${twin}.golden PROGRAM "${src}/${twin}"
        INTERPRETER "${CLINIC_PYTHON}" WHY "${CLINIC_${LIB}_MISSING}"
        EXPECTED "${exp}/${twin}.out" REQUIRES gpu ${multigpu} ${lib}
        LABELS ${lib} golden ${id} ${multigpu} ${golden_options} ${lock}
        ${queues} ENVIRONMENT PYTHONDONTWRITEBYTECODE=1) # each finds common/ itself
    endif()
  endforeach()

  set(broken_exe "") # what the tour (clinic_tour) runs, kept on the folder
  set(tour_targets ${id}_fixed)
  if("broken" IN_LIST programs) # not where broken.cu must not compile
    set(broken_exe "$<TARGET_FILE:${id}_broken>")
    list(APPEND tour_targets ${id}_broken)
  endif()
  set_property(DIRECTORY PROPERTY CLINIC_TOUR_LINE
               "${chapter}\t${broken_exe}\t$<TARGET_FILE:${id}_fixed>\t${src}")
  set_property(DIRECTORY PROPERTY CLINIC_TOUR_TARGETS ${tour_targets})
endfunction()

# clinic_tour(<chapter folder>...): the `tour` target runs every chapter's
# programs in reading order, one row each (a skip: a row that says why); it
# fails if a row is not as recorded, or is a skip that CLINIC_REQUIRE forbids.
function(clinic_tour)
  set(lines "")
  add_custom_target(tour COMMAND ${CLINIC_DRIVER} tour "--chapters=${CMAKE_BINARY_DIR}/tour-chapters.tsv"
    USES_TERMINAL COMMENT "Touring every chapter" VERBATIM)
  foreach(dir IN LISTS ARGN)
    get_property(line DIRECTORY "${dir}" PROPERTY CLINIC_TOUR_LINE)
    get_property(targets DIRECTORY "${dir}" PROPERTY CLINIC_TOUR_TARGETS)
    string(APPEND lines "${line}\n")
    add_dependencies(tour ${targets})
  endforeach()
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/tour-chapters.tsv" CONTENT "${lines}")
endfunction()
