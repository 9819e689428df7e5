# record.cmake -- records the copy lab's results from full runs on this GPU (the
# bench_record target):
#   cmake -DBANDWIDTH=<exe> -DOVERLAP=<exe> -DPYTHON=<python3> -DCHECKER=<check_csv.py>
#         -DWORK=<scratch dir> -DRESULTS=<bench/results> -P record.cmake
# Runs both programs without --quick into WORK, checks what they wrote, and only
# then replaces RESULTS/bandwidth.csv, overlap.csv, overlap-timeline.csv and
# the tables they printed, bandwidth.txt and overlap.txt. A machine without a
# GPU records nothing and fails.
cmake_minimum_required(VERSION 3.25)
if(DEFINED ENV{CI})
  message(FATAL_ERROR "the copy lab's results are recorded on a GPU host, never on CI")
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
string(TIMESTAMP when "%Y-%m-%d %H:%M UTC" UTC)

# run(<name> <exe> <args>...): runs one program, keeps what it printed in WORK/<name>.txt.
function(run name exe)
  message(STATUS "Copy lab: running ${name} (this takes a while)")
  execute_process(COMMAND "${exe}" ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  message(STATUS "${out}${err}")
  if(rc STREQUAL "77")
    message(FATAL_ERROR "${name} found no GPU here, so nothing was recorded")
  elseif(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${name} exited with ${rc}, so nothing was recorded")
  endif()
  file(WRITE "${WORK}/${name}.txt" "Recorded ${when} by the bench_record target.\n\n${out}${err}")
endfunction()

run(bandwidth "${BANDWIDTH}" --csv "${WORK}/bandwidth.csv")
run(overlap "${OVERLAP}" --csv "${WORK}/overlap.csv" --timeline "${WORK}/overlap-timeline.csv")
execute_process(COMMAND "${PYTHON}" "${CHECKER}" "--dir=${WORK}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the new results failed their check, so nothing was recorded")
endif()
file(MAKE_DIRECTORY "${RESULTS}")
foreach(f bandwidth.csv overlap.csv overlap-timeline.csv bandwidth.txt overlap.txt)
  file(COPY_FILE "${WORK}/${f}" "${RESULTS}/${f}")
endforeach()
message(STATUS "Copy lab: recorded into ${RESULTS}; read `git diff -- bench/results`, "
               "then update the figures in bench/README.md")
