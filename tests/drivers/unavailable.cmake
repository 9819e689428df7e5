# unavailable.cmake -- a test for something the configure step did not find:
# skips with the reason, or fails when CLINIC_REQUIRE requires it.
#   cmake -DREQUIRES=<what> -DWHY=<why> -DSKIP_TOKEN=<token> -P unavailable.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/run_program.cmake")
clinic_skip("${REQUIRES}" "${WHY}")
