# clinic.cmake -- everything a chapter needs, for the whole project and for a
# chapter built on its own (`cmake -S chapters/NN-slug -B build-NN`).
# Include it before project(): it sets the default GPU architectures, which
# must be known when CMake enables the CUDA language.
include_guard(GLOBAL)

# Portable default: native code for Turing (75), Ampere/Ada (80) and Hopper
# (90), plus compute_90 PTX that newer GPUs compile at load time. Unlike
# "native", it configures on a machine without a GPU.
# -DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS environment variable wins.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;90" CACHE STRING "GPU architectures to build for")
endif()

get_filename_component(CLINIC_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
include("${CMAKE_CURRENT_LIST_DIR}/clinic_tests.cmake")
set(CLINIC_SANITIZER_TOOLS memcheck racecheck initcheck synccheck)

# Tests are on wherever a chapter is configured, alone or in the whole project.
# (enable_testing() sets a directory variable, so it must run here, not in a function.)
enable_testing()

# The tools the tests use, looked for once per configure: compute-sanitizer
# next to nvcc (CLINIC_SANITIZER, cached), and a Python that can import
# PyCUDA for the chapters' PyCUDA twins. Sets CLINIC_PYTHON (empty without
# Python) and CLINIC_PYCUDA_MISSING (why PyCUDA cannot run here, or empty).
function(clinic_find_tools)
  get_property(found GLOBAL PROPERTY CLINIC_TOOLS_FOUND)
  if(NOT found)
    get_filename_component(nvcc_dir "${CMAKE_CUDA_COMPILER}" DIRECTORY)
    find_program(CLINIC_SANITIZER compute-sanitizer HINTS "${nvcc_dir}")
    find_package(Python3 COMPONENTS Interpreter QUIET)
    set(python "${Python3_EXECUTABLE}")
    set(missing "")
    if(NOT python)
      set(missing "no Python 3 found (set Python3_EXECUTABLE)")
    else()
      execute_process(COMMAND "${python}" -c "import importlib.util as u, sys; sys.exit(u.find_spec('pycuda') is None or u.find_spec('numpy') is None)"
                      RESULT_VARIABLE no_pycuda OUTPUT_QUIET ERROR_QUIET)
      if(NOT no_pycuda STREQUAL "0")
        set(missing "PyCUDA and numpy are not installed for ${python} (pip install numpy pycuda)")
      endif()
    endif()
    set_property(GLOBAL PROPERTY CLINIC_PYTHON "${python}")
    set_property(GLOBAL PROPERTY CLINIC_PYCUDA_MISSING "${missing}")
    set_property(GLOBAL PROPERTY CLINIC_TOOLS_FOUND TRUE)
  endif()
  get_property(python GLOBAL PROPERTY CLINIC_PYTHON)
  get_property(missing GLOBAL PROPERTY CLINIC_PYCUDA_MISSING)
  set(CLINIC_PYTHON "${python}" PARENT_SCOPE)
  set(CLINIC_PYCUDA_MISSING "${missing}" PARENT_SCOPE)
endfunction()

# clinic_chapter([BROKEN_COMPILE_ERROR <regex>...]
#                [BROKEN_SANITIZER <tool> <regex>]
#                [FIXED_SANITIZER <tool> <regex>]
#                [SERIAL] [FAULTS])
# Registers the chapter in the current folder, named NN-slug: its programs
# chNN_broken and chNN_fixed (files "broken" and "fixed") and all its tests:
#   chNN.<prog>.golden         stdout + stderr + exit status == expected/<prog>.out
#   chNN.fixed.<tool>          clean under memcheck (leak check), racecheck, initcheck, synccheck
#   chNN.broken.<tool>         with BROKEN_SANITIZER: <tool> reports the bug (<regex>)
#   chNN.broken.compile_fails  with BROKEN_COMPILE_ERROR: nvcc rejects broken.cu, and
#                              each regex matches one of its diagnostic lines
#   chNN.<prog>.py.golden      for each PyCUDA twin <prog>.py in the folder
# FIXED_SANITIZER is for a fixed program whose lesson is how an error is
# caught or reported, so it still makes that error on purpose (chapters 02 and
# 10): under <tool> its report must match <regex>, which should pin the error count.
# SERIAL: the programs measure time, so their golden tests run with the
# machine to themselves. (Under a sanitizer only the exit status counts, which
# must not depend on a measurement, so those run alongside the rest.)
# FAULTS: a program makes the GPU fault on purpose (an illegal address). Such
# golden tests run one at a time: with many processes faulting at once, an H100
# once let a fault go unreported (chapter 10's fixed program exited 0, 1 run in 48).
# Under a sanitizer the tool stops the bad access before the GPU faults.
function(clinic_chapter)
  cmake_parse_arguments(PARSE_ARGV 0 arg "SERIAL;FAULTS" ""
                        "BROKEN_COMPILE_ERROR;BROKEN_SANITIZER;FIXED_SANITIZER")
  clinic_find_tools()
  get_filename_component(chapter "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  if(NOT chapter MATCHES "^([0-9][0-9])-[a-z0-9-]+$")
    message(FATAL_ERROR "${CMAKE_CURRENT_SOURCE_DIR}: a chapter folder is named NN-slug")
  endif()
  set(id "ch${CMAKE_MATCH_1}")
  set(src "${CMAKE_CURRENT_SOURCE_DIR}")
  set(golden_options "")
  if(arg_SERIAL)
    set(golden_options SERIAL)
  endif()
  if(arg_FAULTS)
    list(APPEND golden_options RESOURCE_LOCK gpu_fault)
  endif()

  foreach(prog broken fixed)
    add_executable(${id}_${prog} ${prog}.cu)
    set_target_properties(${id}_${prog} PROPERTIES OUTPUT_NAME ${prog}
                          CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
    target_compile_options(${id}_${prog} PRIVATE -lineinfo) # file:line in sanitizer reports
    target_include_directories(${id}_${prog} PRIVATE "${CLINIC_ROOT}/common")
  endforeach()

  if(arg_BROKEN_COMPILE_ERROR)
    set_target_properties(${id}_broken PROPERTIES EXCLUDE_FROM_ALL TRUE)
    clinic_compile_fail_test(${id}.broken.compile_fails TARGET ${id}_broken
      PATTERNS ${arg_BROKEN_COMPILE_ERROR} EXPECTED "${src}/expected/broken.out"
      LABELS cpu compile_fail ${id})
    set(programs fixed)
  else()
    set(programs broken fixed)
  endif()
  foreach(prog IN LISTS programs)
    clinic_golden_test(${id}.${prog}.golden PROGRAM "$<TARGET_FILE:${id}_${prog}>"
      EXPECTED "${src}/expected/${prog}.out" REQUIRES gpu LABELS gpu golden ${id} ${golden_options})
  endforeach()

  set(fixed_tool "")
  if(arg_FIXED_SANITIZER)
    list(GET arg_FIXED_SANITIZER 0 fixed_tool)
    list(GET arg_FIXED_SANITIZER 1 fixed_regex)
  endif()
  foreach(tool IN LISTS CLINIC_SANITIZER_TOOLS)
    set(expect CLEAN)
    if(tool STREQUAL fixed_tool)
      set(expect "${fixed_regex}")
    endif()
    clinic_sanitizer_test(${id}.fixed.${tool} PROGRAM "$<TARGET_FILE:${id}_fixed>" TOOL ${tool}
      EXPECT "${expect}" RECORDED "${src}/expected/fixed.out"
      LABELS sanitizer ${tool} ${id})
  endforeach()
  if(arg_BROKEN_SANITIZER)
    list(GET arg_BROKEN_SANITIZER 0 tool)
    list(GET arg_BROKEN_SANITIZER 1 regex)
    clinic_sanitizer_test(${id}.broken.${tool} PROGRAM "$<TARGET_FILE:${id}_broken>" TOOL ${tool}
      EXPECT "${regex}" RECORDED "${src}/expected/broken.out"
      LABELS sanitizer ${tool} ${id})
  endif()

  foreach(prog broken fixed)
    if(EXISTS "${src}/${prog}.py")
      clinic_golden_test(${id}.${prog}.py.golden PROGRAM "${src}/${prog}.py"
        INTERPRETER "${CLINIC_PYTHON}" WHY "${CLINIC_PYCUDA_MISSING}"
        EXPECTED "${src}/expected/${prog}.py.out" REQUIRES gpu pycuda
        LABELS pycuda golden ${id} ${golden_options}
        ENVIRONMENT "PYTHONPATH=${CLINIC_ROOT}/common" PYTHONDONTWRITEBYTECODE=1)
    endif()
  endforeach()

  # What the tour (clinic_tour) runs for this chapter, kept on the folder.
  if(arg_BROKEN_COMPILE_ERROR)
    set(broken_exe "")
    set(tour_targets ${id}_fixed)
  else()
    set(broken_exe "$<TARGET_FILE:${id}_broken>")
    set(tour_targets ${id}_broken ${id}_fixed)
  endif()
  set_property(DIRECTORY PROPERTY CLINIC_TOUR_CALL
    "clinic_tour_chapter(\"${chapter}\" \"${broken_exe}\" \"$<TARGET_FILE:${id}_fixed>\" \"${src}\")")
  set_property(DIRECTORY PROPERTY CLINIC_TOUR_TARGETS ${tour_targets})
endfunction()

# clinic_tour(<chapter folder>...): the `tour` target runs every chapter's
# programs in reading order, one line each, and fails if any is not as recorded.
function(clinic_tour)
  set(calls "")
  add_custom_target(tour
    COMMAND "${CMAKE_COMMAND}" "-DCHAPTERS=${CMAKE_BINARY_DIR}/tour-chapters.cmake"
            -P "${CLINIC_DRIVERS}/tour.cmake"
    USES_TERMINAL COMMENT "Touring every chapter" VERBATIM)
  foreach(dir IN LISTS ARGN)
    get_property(call DIRECTORY "${dir}" PROPERTY CLINIC_TOUR_CALL)
    get_property(targets DIRECTORY "${dir}" PROPERTY CLINIC_TOUR_TARGETS)
    string(APPEND calls "${call}\n")
    add_dependencies(tour ${targets})
  endforeach()
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/tour-chapters.cmake" CONTENT "${calls}")
endfunction()
