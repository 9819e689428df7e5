# plot_timeline.gp -- the copy lab's pipeline, serial against pipelined, from
# the timeline CSV that `overlap --timeline` writes:
#   gnuplot -e "csv='overlap-timeline.csv'; out='timeline.png'; pipelined=4; summary='overlap.csv'" \
#           plot_timeline.gp
# One bar per operation, from its start to its end event, in ms since the run
# began; one row per stage. Top: one stream, every operation in turn. Bottom:
# `pipelined` streams (4 unless given). Both share the time axis, so the
# shorter bottom run is the time that overlap saved. Chunks alternate in shade.
# With `summary` (the CSV of `overlap --csv`), a dashed line marks the ideal.
if (!exists("pipelined")) pipelined = 4
set terminal pngcairo size 900,520 font "sans,11" noenhanced
set output out
set datafile separator ","

# columns: 1 streams, 2 chunk, 3 stage, 4 stream, 5 ready_ms, 6 start_ms, 7 end_ms
stats csv skip 1 using (column(1) == 1 ? column(7) : NaN) name "serial" nooutput
stats csv skip 1 using (column(1) == pipelined ? column(7) : NaN) name "piped" nooutput
if (exists("summary")) {
    stats summary skip 1 using 9 name "ideal" nooutput # column 9: ideal_ms
}

lane(s) = s eq "h2d" ? 3 : (s eq "kernel" ? 2 : 1)
shade(s, c) = s eq "h2d" ? (int(c) % 2 ? 0x8fb3de : 0x1f5fa8) : \
              s eq "kernel" ? (int(c) % 2 ? 0xe5a3a0 : 0xc0392b) : (int(c) % 2 ? 0x8fd1ae : 0x2e8b57)
# a boxxyerror bar per operation of the run with n streams (x, y, half width, half height, colour)
bars(n) = sprintf("(column(1) == %d ? (column(6) + column(7)) / 2 : NaN):(lane(strcol(3)))" . \
                  ":((column(7) - column(6)) / 2):(0.38):(shade(strcol(3), column(2)))", n)
serial_bars = bars(1)
piped_bars = bars(pipelined)

set xrange [0:serial_max * 1.02]
set yrange [0.4:3.6]
set ytics ("H2D" 3, "kernel" 2, "D2H" 1)
set grid xtics
set style fill solid 1.0 noborder
unset key

set multiplot layout 2,1 title "Copy lab: H2D -> kernel -> D2H in chunks, serial against pipelined"
set title sprintf("1 stream: %.2f ms", serial_max)
plot csv skip 1 using @serial_bars with boxxyerror lc rgb variable
if (exists("summary")) {
    set arrow 1 from ideal_max, graph 0 to ideal_max, graph 1 nohead dt 2 lw 2 lc rgb "#444444"
    set label 1 sprintf("ideal %.2f ms", ideal_max) at ideal_max, graph 0.5 offset 1, 0
}
set title sprintf("%d streams: %.2f ms, %.2fx faster", pipelined, piped_max, serial_max / piped_max)
set xlabel "ms since the run's start event"
plot csv skip 1 using @piped_bars with boxxyerror lc rgb variable
unset multiplot
