#!/usr/bin/env bash
# Fuzzes one FrameFlow parser with libFuzzer + AddressSanitizer, seeded with real files.
#   scripts/fuzz.sh graph|cube|cascade|onnx|tflite SECONDS
# Stops on the first crash, hang over 1 s or allocation over 1 GiB; the input is saved under
# .build/fuzz/TARGET/ (commit it as a regression test under Tests/Fixtures/fuzz/).
set -euo pipefail
target=${1:?target: graph|cube|cascade|onnx|tflite}
seconds=${2:-60}
cd "$(dirname "$0")/.."
root=$(pwd)
swift build --package-path Fuzz -c release --product "fuzz-$target" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library 2>&1 | grep -E "error" && exit 1 || true
bin=$(swift build --package-path Fuzz -c release --show-bin-path 2>/dev/null)/fuzz-$target
corpus=.build/fuzz/$target/corpus
mkdir -p "$corpus" ".build/fuzz/$target/findings"
case "$target" in
    graph) cp Graphs/*.pbtxt "$corpus"/ ;;
    cube) cp Tests/Fixtures/luts/*.cube "$corpus"/ ;;
    cascade) cp /usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml "$corpus"/ 2>/dev/null || true
             printf '<?xml version="1.0"?>\n<opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType><height>4</height><width>4</width><stageParams><maxWeakCount>1</maxWeakCount></stageParams><featureParams><maxCatCount>0</maxCatCount></featureParams><stageNum>1</stageNum><stages><_><maxWeakCount>1</maxWeakCount><stageThreshold>-1.0</stageThreshold><weakClassifiers><_><internalNodes>0 -1 0 0.5</internalNodes><leafValues>-1. 1.</leafValues></_></weakClassifiers></_></stages><features><_><rects><_>0 0 4 2 -1.</_><_>0 2 4 2 1.</_></rects></_></features></cascade></opencv_storage>\n' > "$corpus/minimal.xml" ;;
    onnx) for t in relu conv_with_strides_padding gemm_default_single_elem_vector_bias maxpool_2d_pads softmax_axis_1 concat_2d_axis_0 reshape_reduced_dims; do
              [ -f "/usr/share/libonnx-testdata/data/node/test_$t/model.onnx" ] && cp "/usr/share/libonnx-testdata/data/node/test_$t/model.onnx" "$corpus/$t.onnx"
          done
          cp .build/fixtures/models/pnet.onnx "$corpus"/ 2>/dev/null || true ;;
    tflite) cp .build/fixtures/models/face_detection_short_range.tflite "$corpus"/ 2>/dev/null || true ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
esac
for f in Tests/Fixtures/fuzz/$target/*; do [ -f "$f" ] && cp "$f" "$corpus"/; done 2>/dev/null || true
cd ".build/fuzz/$target"
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$bin" corpus -max_total_time="$seconds" -timeout=1 -malloc_limit_mb=1024 -rss_limit_mb=2048 \
    -max_len="${FUZZ_MAX_LEN:-4096}" -artifact_prefix=findings/ -print_final_stats=1 2>&1 | tail -25
