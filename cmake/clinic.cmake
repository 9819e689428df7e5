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
set(CLINIC_DRIVERS "${CLINIC_ROOT}/tests/drivers")
set(CLINIC_SANITIZER_TOOLS memcheck racecheck initcheck synccheck)

# Tests are on wherever a chapter is configured, alone or in the whole project.
# (enable_testing() sets a directory variable, so it must run here, not in a function.)
enable_testing()

# clinic_chapter([BROKEN_COMPILE_ERROR <regex>]
#                [BROKEN_SANITIZER <tool> <regex>]
#                [FIXED_SANITIZER <tool> <regex>])
# Registers the chapter in the current folder (named NN-slug): its programs
# chNN_broken and chNN_fixed (files "broken" and "fixed") and all its tests:
#   chNN.<prog>.golden      stdout + stderr + exit status == expected/<prog>.out
#   chNN.fixed.<tool>       clean under memcheck (leak check), racecheck, initcheck, synccheck
#   chNN.broken.<tool>      with BROKEN_SANITIZER: the tool reports the bug
#   chNN.broken.compile_fails  with BROKEN_COMPILE_ERROR: nvcc rejects broken.cu with that message
# FIXED_SANITIZER is for a fixed program whose lesson is how an error is
# caught or reported, so it still makes that error on purpose (chapters 02 and
# 10): under <tool> its report must match <regex>, which should pin the error count.
function(clinic_chapter)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "BROKEN_COMPILE_ERROR"
                        "BROKEN_SANITIZER;FIXED_SANITIZER")
  get_filename_component(_nvcc_dir "${CMAKE_CUDA_COMPILER}" DIRECTORY)
  find_program(CLINIC_SANITIZER compute-sanitizer HINTS "${_nvcc_dir}")
  find_program(CLINIC_DIFF diff)
  get_filename_component(chapter "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  string(SUBSTRING "${chapter}" 0 2 num)
  set(id ch${num})
  set(src "${CMAKE_CURRENT_SOURCE_DIR}")
  set(golden_args -DDIFF=${CLINIC_DIFF} -P "${CLINIC_DRIVERS}/golden.cmake")

  foreach(prog broken fixed)
    set(target ${id}_${prog})
    if(prog STREQUAL "broken" AND arg_BROKEN_COMPILE_ERROR)
      add_executable(${target} EXCLUDE_FROM_ALL ${prog}.cu)
    else()
      add_executable(${target} ${prog}.cu)
      add_test(NAME ${id}.${prog}.golden
               COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${target}>
                       -DEXPECTED=${src}/expected/${prog}.out
                       -DWORK=${CMAKE_CURRENT_BINARY_DIR}/${prog}.actual ${golden_args})
      set_tests_properties(${id}.${prog}.golden PROPERTIES
        LABELS "gpu;golden;${id}" SKIP_REGULAR_EXPRESSION "\\[SKIPPED\\]"
        TIMEOUT 120 RESOURCE_LOCK gpu)
    endif()
    set_target_properties(${target} PROPERTIES OUTPUT_NAME ${prog}
                          CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
    target_compile_options(${target} PRIVATE -lineinfo) # file:line in sanitizer reports
    target_include_directories(${target} PRIVATE "${CLINIC_ROOT}/common")
  endforeach()

  set(fixed_tool "")
  if(arg_FIXED_SANITIZER)
    list(GET arg_FIXED_SANITIZER 0 fixed_tool)
    list(GET arg_FIXED_SANITIZER 1 regex)
    clinic_sanitizer_test(${id}.fixed.${fixed_tool} ${id}_fixed ${fixed_tool} "${regex}")
  endif()
  foreach(tool IN LISTS CLINIC_SANITIZER_TOOLS)
    if(NOT tool STREQUAL fixed_tool)
      clinic_sanitizer_test(${id}.fixed.${tool} ${id}_fixed ${tool} CLEAN)
    endif()
  endforeach()
  if(arg_BROKEN_SANITIZER)
    list(GET arg_BROKEN_SANITIZER 0 tool)
    list(GET arg_BROKEN_SANITIZER 1 regex)
    clinic_sanitizer_test(${id}.broken.${tool} ${id}_broken ${tool} "${regex}")
  endif()

  if(arg_BROKEN_COMPILE_ERROR)
    add_test(NAME ${id}.broken.compile_fails
             COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DTARGET=${id}_broken
                     "-DERROR_REGEX=${arg_BROKEN_COMPILE_ERROR}"
                     -DEXPECTED=${src}/expected/broken.out
                     -DWORK=${CMAKE_CURRENT_BINARY_DIR}/broken.actual -DDIFF=${CLINIC_DIFF}
                     -P "${CLINIC_DRIVERS}/compile_fail.cmake")
    set_tests_properties(${id}.broken.compile_fails PROPERTIES
      LABELS "cpu;compile_fail;${id}" TIMEOUT 300 RESOURCE_LOCK build_tree)
    set(broken_exe "-")
  else()
    set(broken_exe "$<TARGET_FILE:${id}_broken>")
  endif()
  set_property(GLOBAL APPEND PROPERTY CLINIC_TOUR
               "${chapter}|${broken_exe}|$<TARGET_FILE:${id}_fixed>|${src}")
endfunction()

# A clean run must also end with the exit status recorded in expected/<prog>.out.
function(clinic_sanitizer_test name target tool expect)
  string(REGEX REPLACE "^ch[0-9]+_" "" prog "${target}")
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} "-DSANITIZER=${CLINIC_SANITIZER}" -DTOOL=${tool}
                   -DPROGRAM=$<TARGET_FILE:${target}> "-DEXPECT=${expect}"
                   -DEXPECTED=${CMAKE_CURRENT_SOURCE_DIR}/expected/${prog}.out
                   -P "${CLINIC_DRIVERS}/sanitizer.cmake")
  string(REGEX MATCH "^ch[0-9]+" id "${name}")
  set_tests_properties(${name} PROPERTIES LABELS "sanitizer;${tool};${id}"
    SKIP_REGULAR_EXPRESSION "\\[SKIPPED\\]" TIMEOUT 600 RESOURCE_LOCK gpu)
endfunction()

# The `tour` target: every chapter's programs in reading order, one line each.
function(clinic_tour)
  get_property(entries GLOBAL PROPERTY CLINIC_TOUR)
  list(JOIN entries "\n" text)
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/tour-chapters.txt" CONTENT "${text}\n")
  add_custom_target(tour
    COMMAND ${CMAKE_COMMAND} -DCHAPTERS=${CMAKE_BINARY_DIR}/tour-chapters.txt
            -P "${CLINIC_DRIVERS}/tour.cmake"
    USES_TERMINAL COMMENT "Touring every chapter")
endfunction()
