# plots.cmake -- draws the copy lab's recorded results for the docs (the
# bench_plots target):
#   cmake -DGNUPLOT=<gnuplot or empty> -DRESULTS=<bench/results> -DOUT=<dir>
#         -DSRC=<bench> -DPIPELINED=<streams> -P plots.cmake
# Writes OUT/bandwidth.png and OUT/timeline.png, always: where a plot cannot be
# drawn (no gnuplot, or no recorded CSV) it copies SRC/plot-missing.png in its
# place and says why, so the docs' image links always resolve.
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${OUT}")

# draw(<png> <script> <csv> <extra gnuplot settings>)
function(draw png script csv settings)
  if(NOT GNUPLOT)
    set(why "gnuplot was not found")
  elseif(NOT EXISTS "${RESULTS}/${csv}")
    set(why "${RESULTS}/${csv} has not been recorded")
  else()
    execute_process(COMMAND "${GNUPLOT}" -e "csv='${RESULTS}/${csv}'; out='${OUT}/${png}'; ${settings}"
                            "${SRC}/${script}"
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "gnuplot ${script} failed (${rc}):\n${err}")
    endif()
    if(NOT err STREQUAL "")
      message(STATUS "gnuplot ${script} warned:\n${err}")
    endif()
    message(STATUS "Copy lab: drew ${OUT}/${png}")
    return()
  endif()
  file(COPY_FILE "${SRC}/plot-missing.png" "${OUT}/${png}")
  message(STATUS "Copy lab: ${png} is a placeholder: ${why}")
endfunction()

set(summary "")
if(EXISTS "${RESULTS}/overlap.csv")
  set(summary "summary='${RESULTS}/overlap.csv'")
endif()
draw(bandwidth.png plot_bandwidth.gp bandwidth.csv "")
draw(timeline.png plot_timeline.gp overlap-timeline.csv "pipelined=${PIPELINED}; ${summary}")
