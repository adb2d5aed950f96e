#!/usr/bin/env bash
# Fuzzes one FrameFlow parser with libFuzzer + AddressSanitizer, seeded with real files.
#   scripts/fuzz.sh graph|binarygraph|cube|cascade|hog|onnx|tflite|bundle|batchlist|fleet|camerabody|options SECONDS
# Stops on the first crash, hang over 1 s or allocation over 1 GiB; the input is saved under
# .build/fuzz/TARGET/findings/ (commit it as a regression test under Tests/Fixtures/fuzz/).
# -max_len is the largest seed's size (at least 4096), so no seed is cut; FUZZ_MAX_LEN
# overrides it; FUZZ_RUNS=N stops after N executions (SECONDS still caps the run). The
# whole run is logged to .build/fuzz/TARGET/fuzz.log; what is printed is that log without
# libFuzzer's progress lines (so a sanitizer report comes out whole), then the number of
# executions. Exits non-zero when the fuzzer found something.
# The body is one { … } block: bash reads it whole before running it, so editing this file
# during a long run does not derail that run.
{
set -euo pipefail
target=${1:?target: graph|binarygraph|cube|cascade|hog|onnx|tflite|bundle|batchlist|fleet|camerabody|options}
seconds=${2:-60}
cd "$(dirname "$0")/.."
case "$target" in graph|binarygraph|cube|cascade|hog|onnx|tflite|bundle|batchlist|fleet|camerabody|options) ;; *) echo "unknown target $target" >&2; exit 2 ;; esac
work=.build/fuzz/$target
corpus=$work/corpus
mkdir -p "$corpus" "$work/findings"
if ! swift build --package-path Fuzz -c release --product "fuzz-$target" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >"$work/build.log" 2>&1; then
    grep -E "error" "$work/build.log" || tail -40 "$work/build.log"
    echo "fuzz.sh: building fuzz-$target failed (log: $work/build.log)" >&2
    exit 1
fi
bin=$(swift build --package-path Fuzz -c release --show-bin-path 2>/dev/null)/fuzz-$target
case "$target" in
    graph) cp Graphs/*.pbtxt "$corpus"/ ;;
    binarygraph) # MediaPipe's compiled graphs from the wheel (scripts/setup.sh test extracts them).
                 find .build/fixtures/mediapipe -name '*.binarypb' -exec cp {} "$corpus"/ \; 2>/dev/null || true ;;
    cube) cp Tests/Fixtures/luts/*.cube "$corpus"/ ;;
    cascade) # LBP, new-format Haar and old-format Haar cascades, the smallest of each kind.
             for f in lbpcascades/lbpcascade_frontalface_improved.xml haarcascades/haarcascade_russian_plate_number.xml \
                      haarcascades/haarcascade_licence_plate_rus_16stages.xml; do
                 cp "/usr/share/opencv4/$f" "$corpus"/ 2>/dev/null || true
             done
             printf '<?xml version="1.0"?>\n<opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType><height>4</height><width>4</width><stageParams><maxWeakCount>1</maxWeakCount></stageParams><featureParams><maxCatCount>0</maxCatCount></featureParams><stageNum>1</stageNum><stages><_><maxWeakCount>1</maxWeakCount><stageThreshold>-1.0</stageThreshold><weakClassifiers><_><internalNodes>0 -1 0 0.5</internalNodes><leafValues>-1. 1.</leafValues></_></weakClassifiers></_></stages><features><_><rects><_>0 0 4 2 -1.</_><_>0 2 4 2 1.</_></rects></_></features></cascade></opencv_storage>\n' > "$corpus/minimal.xml" ;;
    hog) # OpenCV's default people detector as HOGDescriptor::save writes it (scripts/setup.sh test),
         # and a small descriptor of the same form (8×8 window, one block, 4 bins, 16 weights + bias).
         cp .build/fixtures/hog/hog_people_default.xml "$corpus"/ 2>/dev/null || true
         printf '<?xml version="1.0"?>\n<opencv_storage>\n<hog type_id="opencv-object-detector-hog">\n  <winSize>8 8</winSize>\n  <blockSize>8 8</blockSize>\n  <blockStride>4 4</blockStride>\n  <cellSize>4 4</cellSize>\n  <nbins>4</nbins>\n  <derivAperture>1</derivAperture>\n  <winSigma>2.</winSigma>\n  <histogramNormType>0</histogramNormType>\n  <L2HysThreshold>0.2</L2HysThreshold>\n  <gammaCorrection>1</gammaCorrection>\n  <nlevels>8</nlevels>\n  <signedGradient>0</signedGradient>\n  <SVMDetector>\n    0.1 -0.2 0.3 -0.1 0.2 0.05 -0.3 0.1 0.1 -0.2 0.3 -0.1 0.2 0.05 -0.3 0.1 -0.5</SVMDetector></hog>\n</opencv_storage>\n' > "$corpus/small.xml" ;;
    onnx) for t in relu conv_with_strides_padding gemm_default_single_elem_vector_bias maxpool_2d_pads softmax_axis_1 concat_2d_axis_0 reshape_reduced_dims; do
              [ -f "/usr/share/libonnx-testdata/data/node/test_$t/model.onnx" ] && cp "/usr/share/libonnx-testdata/data/node/test_$t/model.onnx" "$corpus/$t.onnx"
          done
          cp .build/fixtures/models/pnet.onnx "$corpus"/ 2>/dev/null || true ;;
    fleet) cp Tests/Fixtures/fleet/*.fleet "$corpus"/ ;;  # fleet files: defaults, mqtt, cameras, outputs
    tflite) cp .build/fixtures/models/face_detection_short_range.tflite "$corpus"/ 2>/dev/null || true
            cp .build/fixtures/litert_tasks/single.*.tflite "$corpus"/ 2>/dev/null || true  # TRANSPOSE, GATHER, UNPACK, …
            cp Tests/Fixtures/mediapipe/custom_ops_seed.tflite "$corpus"/ ;;  # CUSTOM ops, FlexBuffer options
    bundle) # ZIP archives (stored, deflated, after other bytes, a bomb), a nested .task with a
            # model whose metadata sets every field, the same model alone.
            cp Tests/Fixtures/tasks/deflate.zip Tests/Fixtures/tasks/appended.bin Tests/Fixtures/tasks/zeros.zip \
               Tests/Fixtures/tasks/nested.task Tests/Fixtures/tasks/all_fields.tflite "$corpus"/ ;;
    batchlist) # frameflow batch lists: comments, CRLF, a URL, relative and absolute paths.
               printf '# cameras\n\nlobby/cam1.mp4\r\n  /srv/door.mkv\t\nrtsp://10.0.0.5:8554/yard.sdp\nweird #name.mp4\n' > "$corpus/list.txt" ;;
    camerabody) ;;  # POST /api/cameras bodies: the seeds in Tests/Fixtures/fuzz/camerabody (text and JSON)
    options) # The input is only a source of choices (calculator, fields, values): random bytes.
             for i in 1 2 3 4 5 6 7 8; do head -c 256 /dev/urandom > "$corpus/random-$i"; done ;;
esac
for f in Tests/Fixtures/fuzz/$target/*; do [ -f "$f" ] && cp "$f" "$corpus"/; done 2>/dev/null || true
largest=$(find "$corpus" -type f -printf '%s\n' | sort -n | tail -1)
max_len=${FUZZ_MAX_LEN:-$(( ${largest:-0} > 4096 ? largest : 4096 ))}
cd "$work"
log=fuzz.log
before=$(ls findings | wc -l)
echo "fuzz-$target: ${seconds} s, -max_len=$max_len (largest seed ${largest:-0} bytes), log $work/$log"
set +e
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$bin" corpus -max_total_time="$seconds" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -timeout=1 \
    -malloc_limit_mb=1024 -rss_limit_mb=2048 -max_len="$max_len" -artifact_prefix=findings/ -print_final_stats=1 >"$log" 2>&1
status=$?
set -e
# Everything but the progress lines (#N NEW/REDUCE/pulse/…, NEW_FUNC): the start-up, any
# report in full, the final stats; then the last progress line.
grep -avE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|RELOAD|INITED|DONE)|^[[:space:]]+NEW_FUNC' "$log" || true
grep -aE '^#[0-9]+[[:space:]]' "$log" | tail -1 || true
executions=$(grep -aoE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1 || true)
if [ -z "$executions" ]; then  # no final stats (killed): the last progress line's count
    executions=$(grep -aoE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
fi
found=$(( $(ls findings | wc -l) - before ))
echo "fuzz-$target: executions: ${executions:-unknown}, libFuzzer exit status $status, new findings: $found"
if [ "$found" -gt 0 ]; then
    ls -t findings | head -n "$found" | sed "s|^|fuzz-$target: finding: $work/findings/|"
fi
if [ "$status" -ne 0 ] || [ "$found" -gt 0 ]; then exit 1; fi
exit 0
}
