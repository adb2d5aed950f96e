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

case "$mode" in
    demo | test) ;;
    bench)
        apt_want gstreamer1.0-tools gstreamer1.0-plugins-base
        ;;
    *) echo "usage: $0 demo|test|bench" >&2; exit 2 ;;
esac

if [ "${#need_apt[@]}" -gt 0 ]; then
    echo "setup: installing ${need_apt[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ "$mode" = bench ]; then
    python3 -c "import cv2, sys; sys.exit(0 if cv2.__version__.startswith('4.14') else 1)" >/dev/null 2>&1 \
        || python3 -m pip install -q "opencv-python-headless==4.14.0.94"
fi
command -v swift >/dev/null || { echo "setup: Swift 6 toolchain not found on PATH" >&2; exit 1; }
