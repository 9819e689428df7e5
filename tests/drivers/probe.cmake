# probe.cmake -- is there a usable GPU? Passes when the probe program finds
# one, skips with its reason when it does not (fails under CLINIC_REQUIRE=gpu).
#   cmake -DPROGRAM=<gpu_probe> -DSKIP_TOKEN=<token> -P probe.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/run_program.cmake")
clinic_run(got "${PROGRAM}")
if(got_SKIP)
  clinic_skip("gpu" "${got_SKIP}")
  return()
endif()
if(NOT got MATCHES "\\[exit status: 0\\]\n$")
  message(FATAL_ERROR "the GPU probe failed:\n${got}")
endif()
message(STATUS "${got}")
