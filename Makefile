# FrameFlow — the two everyday commands are `make demo` and `make test`.
.PHONY: demo test bench build fixtures clean

SWIFT ?= swift

## Run the main job: the MediaPipe edge-detection graph on a generated clip.
demo:
	scripts/setup.sh demo
	$(SWIFT) build -c release --product frameflow
	.build/release/frameflow demo

## Suites that test kernels; run again with the level forced lower (each also compares every
## level the CPU has, on its own thread).
KERNEL_TESTS ?= KernelLevelTests|OpsTests|MicrokernelTests|GEMMTests|ConvTests|ConvActivationTests|DepthwiseBlocksTests|TFLiteModelTests|RealModelTests|TFLitePoseSelfieOpsTests|TFLiteTasksOpsTests|PixelKernelTests|HaarStumpKernelTests|HaarCascadeDetectorTests|HOGDescriptorTests|ColorConvertCalculatorTests|FilterCalculatorTests|LUTCalculatorTests|LuminanceCalculatorTests|SobelEdgesCalculatorTests

## Run every test; the kernel suites again at the AVX2 and baseline levels; MediaPipe's
## solutions on whole clips and the int8 YOLOv8n / PP-OCR parity (QuantizedConvTests) again
## in an optimized build (the models are too slow unoptimized).
test:
	scripts/setup.sh test
	$(SWIFT) build
	$(SWIFT) test
	FRAMEFLOW_KERNELS=avx2 $(SWIFT) test --skip-build --filter '$(KERNEL_TESTS)'
	FRAMEFLOW_KERNELS=baseline $(SWIFT) test --skip-build --filter '$(KERNEL_TESTS)'
	$(SWIFT) test -c release -Xswiftc -enable-testing --filter 'HOGDescriptorTests|MotionGateCalculatorTests|QuantizedConvTests|FleetEventsEndToEnd|MediaPipe(FaceMesh|Hands|FaceDetection|Pose|Holistic|SelfieSegmentation)Tests|VirtualBackgroundGraphTests|DesktopLiveGraphsOnFilesTests|ImageSegmenterGraphTests|PoseLandmarkerGraphTests|HandLandmarkerGraphTests|GestureRecognizerGraphTests|TasksLongClipTests|ClassicLongClipTests'

## Benchmarks: FrameFlow against OpenCV and GStreamer in the same run, as ratios. ARGS picks
## a section and its flags: make bench ARGS="models --only yolov8n --no-reference"
## (.build/release/frameflow-bench help lists the sections, help models a section's flags).
ARGS ?=
bench:
	scripts/setup.sh bench
	$(SWIFT) build -c release --product frameflow-bench
	$(SWIFT) build -c release --product frameflow
	.build/release/frameflow-bench $(ARGS)

## The web page's screenshots in docs/images (README, "HTTP API"): the browser test on a
## fleet of two cameras on the hand clip, with headless Chromium saving web-grid.png and web-camera.png.
.PHONY: web-screenshots
web-screenshots:
	$(SWIFT) build --build-tests
	FRAMEFLOW_WEB_SCREENSHOTS=$(CURDIR)/docs/images $(SWIFT) test --skip-build --filter WebUIBrowserTests

build:
	$(SWIFT) build

## Regenerate committed fixtures (needs scikit-image).
fixtures:
	python3 scripts/fixtures/make_photos.py

clean:
	rm -rf .build demo-output.ppm

.PHONY: consumer-check

## FrameFlow adopted by another package: `from: "0.1.0"` through a file:// URL, built and run.
consumer-check:
	scripts/ci/consumer-package.sh

.PHONY: lint

## Style check: swift-format's lint with the repository's .swift-format; changes nothing
## (`swift format format -i --parallel --recursive` on the same paths applies the style).
lint:
	$(SWIFT) format lint --strict --parallel --recursive Sources Tests Examples Package.swift

.PHONY: docs

## API documentation: FrameFlow's symbol graph (built afresh in a directory of its own, so the
## main build keeps its flags and the graph is always written), the DocC archive in
## .build/docs, and a check that every public symbol has a doc comment. FrameFlowTasks' graph
## is extracted from the main debug build (`swift package dump-symbol-graph`, which changes no
## flags; building its dependencies again would take minutes) into .build/docs/FrameFlowTasks.doccarchive.
DOCS_DIR ?= $(CURDIR)/.build/docs
DOCC ?= docc
docs:
	rm -rf $(DOCS_DIR) && mkdir -p $(DOCS_DIR)/symbol-graphs $(DOCS_DIR)/tasks-symbol-graphs
	$(SWIFT) build --target FrameFlow --scratch-path $(DOCS_DIR)/build \
		-Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc $(DOCS_DIR)/symbol-graphs
	$(DOCC) convert Sources/FrameFlow/FrameFlow.docc --additional-symbol-graph-dir $(DOCS_DIR)/symbol-graphs \
		--output-dir $(DOCS_DIR)/FrameFlow.doccarchive --fallback-display-name FrameFlow \
		--fallback-bundle-identifier org.frameflow.FrameFlow --warnings-as-errors
	python3 scripts/ci/check-doc-comments.py $(DOCS_DIR)/symbol-graphs FrameFlow
	rm -f $$($(SWIFT) build --show-bin-path)/../symbolgraph/FrameFlowTasks*.symbols.json
	@# Without built tests it fails on the test modules after writing the libraries' graphs;
	@# the copy below fails if FrameFlowTasks' graph was not written.
	-$(SWIFT) package dump-symbol-graph >/dev/null 2>&1
	cp $$($(SWIFT) build --show-bin-path)/../symbolgraph/FrameFlowTasks*.symbols.json $(DOCS_DIR)/tasks-symbol-graphs/
	$(DOCC) convert Sources/FrameFlowTasks/FrameFlowTasks.docc --additional-symbol-graph-dir $(DOCS_DIR)/tasks-symbol-graphs \
		--output-dir $(DOCS_DIR)/FrameFlowTasks.doccarchive --fallback-display-name FrameFlowTasks \
		--fallback-bundle-identifier org.frameflow.FrameFlowTasks --warnings-as-errors
	python3 scripts/ci/check-doc-comments.py $(DOCS_DIR)/tasks-symbol-graphs FrameFlowTasks

.PHONY: install uninstall

## Install the release `frameflow` into $(PREFIX)/bin, its graphs into
## $(PREFIX)/share/frameflow/graphs (found by name: `frameflow run face_mesh_desktop_live.pbtxt`)
## and the bundled models into $(PREFIX)/share/frameflow/Models; `make uninstall` removes them.
PREFIX ?= $(HOME)/.local
install:
	scripts/setup.sh demo
	$(SWIFT) build -c release --product frameflow
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/frameflow/graphs $(DESTDIR)$(PREFIX)/share/frameflow/Models
	install -m 755 .build/release/frameflow $(DESTDIR)$(PREFIX)/bin/frameflow
	install -m 644 Graphs/*.pbtxt $(DESTDIR)$(PREFIX)/share/frameflow/graphs/
	install -m 644 Models/* $(DESTDIR)$(PREFIX)/share/frameflow/Models/
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "note: $(PREFIX)/bin is not on PATH (export PATH=\"$(PREFIX)/bin:\$$PATH\")";; esac

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/frameflow
	rm -rf $(DESTDIR)$(PREFIX)/share/frameflow
