# plot_bandwidth.gp -- the copy lab's bandwidth against transfer size, from the
# CSV that `bandwidth --csv` writes:
#   gnuplot -e "csv='bandwidth.csv'; out='bandwidth.png'" plot_bandwidth.gp
# Top: copies between host and GPU, pageable and pinned, under the PCIe link's
# rate when it was known. Bottom: copies within the GPU's memory, whose scale
# is some twenty times larger.
set terminal pngcairo size 900,760 font "sans,11" noenhanced
set output out
set datafile separator ","
set datafile missing ""

set logscale x 2
set xrange [3000:360000000]
set xtics ("4 KiB" 4096, "16 KiB" 16384, "64 KiB" 65536, "256 KiB" 262144, \
           "1 MiB" 1048576, "4 MiB" 4194304, "16 MiB" 16777216, "64 MiB" 67108864, \
           "256 MiB" 268435456)
set grid
set key top left
set yrange [0:*]

# column 1 direction, 2 memory, 3 bytes, 8 GB/s, 9 the link's GB/s
series(d, m) = (strcol(1) eq d && strcol(2) eq m) ? column(8) : NaN
link_rate = "(strcol(1) eq 'H2D' && strcol(2) eq 'pinned') ? column(9) : NaN"

set multiplot layout 2,1 title "Copy lab: bandwidth against transfer size (median of repeated copies)"
set ylabel "GB/s (1 GB = 1e9 bytes)"
set title "Between host and GPU"
plot csv skip 1 using 3:(series("H2D", "pinned")) with linespoints lw 2 pt 7 lc rgb "#1f5fa8" title "H2D pinned", \
     csv skip 1 using 3:(series("H2D", "pageable")) with linespoints lw 2 pt 6 dt 2 lc rgb "#1f5fa8" title "H2D pageable", \
     csv skip 1 using 3:(series("D2H", "pinned")) with linespoints lw 2 pt 5 lc rgb "#c0392b" title "D2H pinned", \
     csv skip 1 using 3:(series("D2H", "pageable")) with linespoints lw 2 pt 4 dt 2 lc rgb "#c0392b" title "D2H pageable", \
     csv skip 1 using 3:@link_rate with lines lw 1 dt 3 lc rgb "#444444" title "PCIe link rate after encoding"

set title "Within the GPU (D2D: each byte counted once, though it is read and written)"
set xlabel "bytes per copy"
plot csv skip 1 using 3:(series("D2D", "device")) with linespoints lw 2 pt 7 lc rgb "#2e8b57" title "D2D"
unset multiplot
