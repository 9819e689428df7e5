# plot_placeholder.gp -- makes plot-missing.png, the picture the docs show in
# place of a plot that could not be drawn (no recorded results, or no gnuplot
# when the docs were built). Run it again only to change that picture:
#   gnuplot -e "out='plot-missing.png'" plot_placeholder.gp
set terminal pngcairo size 900,160 font "sans,12" noenhanced
set output out
unset border
unset tics
unset key
set label 1 "No plot here: when these docs were built, the copy lab's results had not been recorded" at screen 0.5, 0.62 center
set label 2 "or gnuplot was not found. The copy lab's page says how to record and plot them." at screen 0.5, 0.38 center
plot [0:1] [0:1] NaN
