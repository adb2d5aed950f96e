#!/usr/bin/env bash
# Runs the edge-detection graph into a preview window under Xvfb, screenshots the window,
# presses q, and reports the exit status. Used by the window tests.
#   scripts/window_test.sh INPUT SCALE WxH OUTDIR
set -u
input=$1 scale=$2 size=$3 out=$4
cd "$(dirname "$0")/.."
xvfb-run -a -s "-screen 0 1024x768x24" bash -c '
  .build/debug/frameflow run Graphs/edge_detection_mobile_gpu.pbtxt --input "'"$input"'" --realtime \
      --output window --scale "'"$scale"'" --window-size "'"$size"'" \
      --output-stream output_video="'"$out"'"/window.mp4 > "'"$out"'"/run.out 2>&1 &
  pid=$!
  id=$(timeout 20 xdotool search --sync --name FrameFlow | head -1)
  sleep 2
  import -window "$id" "'"$out"'"/shot.png
  xdotool key --window "$id" q
  wait $pid
  echo $? > "'"$out"'"/status'
