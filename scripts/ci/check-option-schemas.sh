#!/usr/bin/env bash
# The generated MediaPipe option schemas are current: regenerates them from the mediapipe==0.10.21
# wheel's descriptors (downloaded once into .build/mediapipe-wheel) and fails with a diff if
# the committed Sources/FrameFlow/Config/Binary/MediaPipeOptionSchemas.generated.swift differs.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -c "import google.protobuf" >/dev/null 2>&1 || python3 -m pip install -q protobuf
python3 scripts/generate-option-schemas.py --check
