#!/usr/bin/env python3
"""Generates Sources/FrameFlow/Config/Binary/MediaPipeOptionSchemas.generated.swift: the
`ProtoSchema` of every MediaPipe options message in ROOTS and of the messages and enums they
reference, from the FileDescriptorProtos compiled into the `*_pb2.py` modules of PyPI's
mediapipe==0.10.21 wheel (field numbers, names, types, `repeated`, enum value names,
`CalculatorOptions`/`MediaPipeOptions` extension numbers).

The wheel is downloaded once with pip (no dependencies, nothing installed) into
.build/mediapipe-wheel/, as scripts/setup.sh does; `--wheel` names another copy. The output
is sorted and run through `swift format` with the repository's .swift-format, so it is the
same on every run.

    scripts/generate-option-schemas.py           # rewrites the generated file
    scripts/generate-option-schemas.py --check   # exits 1 with a diff if it is not current
"""
import argparse, ast, difflib, glob, os, re, subprocess, sys, tempfile, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = "Sources/FrameFlow/Config/Binary/MediaPipeOptionSchemas.generated.swift"
VERSION = "0.10.21"
WHEEL_DIR = os.path.join(ROOT, ".build", "mediapipe-wheel")

# The MediaPipe messages FrameFlow decodes: every options type a FrameFlow calculator reads or
# MediaPipe's graphs carry, and the messages FrameFlow's own types mirror.
ROOTS = sorted([
    "mediapipe.AnnotationOverlayCalculatorOptions",
    "mediapipe.AssociationCalculatorOptions",
    "mediapipe.ClipVectorSizeCalculatorOptions",
    "mediapipe.CollectionHasMinSizeCalculatorOptions",
    "mediapipe.Color",
    "mediapipe.ConcatenateVectorCalculatorOptions",
    "mediapipe.ConstantSidePacketCalculatorOptions",
    "mediapipe.DetectionLabelIdToTextCalculatorOptions",
    "mediapipe.DetectionsToRectsCalculatorOptions",
    "mediapipe.DetectionsToRenderDataCalculatorOptions",
    "mediapipe.FaceDetectionOptions",
    "mediapipe.FixedSizeInputStreamHandlerOptions",
    "mediapipe.FlowLimiterCalculatorOptions",
    "mediapipe.GateCalculatorOptions",
    "mediapipe.GetVectorItemCalculatorOptions",
    "mediapipe.ImageCloneCalculatorOptions",
    "mediapipe.ImageCroppingCalculatorOptions",
    "mediapipe.ImageToTensorCalculatorOptions",
    "mediapipe.ImageTransformationCalculatorOptions",
    "mediapipe.InferenceCalculatorOptions",
    "mediapipe.LabelsToRenderDataCalculatorOptions",
    "mediapipe.LandmarkProjectionCalculatorOptions",
    "mediapipe.LandmarksRefinementCalculatorOptions",
    "mediapipe.LandmarksSmoothingCalculatorOptions",
    "mediapipe.LandmarksToDetectionCalculatorOptions",
    "mediapipe.LandmarksToRenderDataCalculatorOptions",
    "mediapipe.LandmarksToTensorCalculatorOptions",
    "mediapipe.Lift2DFrameAnnotationTo3DCalculatorOptions",
    "mediapipe.LocalFileContentsCalculatorOptions",
    "mediapipe.ResourceProviderCalculatorOptions",
    "mediapipe.NonMaxSuppressionCalculatorOptions",
    "mediapipe.RecolorCalculatorOptions",
    "mediapipe.RectToRenderDataCalculatorOptions",
    "mediapipe.RectToRenderScaleCalculatorOptions",
    "mediapipe.RectTransformationCalculatorOptions",
    "mediapipe.RefineLandmarksFromHeatmapCalculatorOptions",
    "mediapipe.RenderAnnotation.Text",
    "mediapipe.RoiTrackingCalculatorOptions",
    "mediapipe.SegmentationSmoothingCalculatorOptions",
    "mediapipe.SplitVectorCalculatorOptions",
    "mediapipe.SsdAnchorsCalculatorOptions",
    # MediaPipe Tasks: the task graphs' options (and, through them, BaseOptions and every
    # subgraph's options), so MediaPipe's own top-level task configs load as written.
    # The face geometry pipeline's calculators and subgraph (FaceGeometryPipelineCalculator's
    # options and FaceGeometryGraphOptions are also reached through FaceLandmarkerGraphOptions).
    "mediapipe.tasks.vision.face_geometry.FaceGeometryEnvGeneratorCalculatorOptions",
    "mediapipe.tasks.vision.face_geometry.FaceGeometryPipelineCalculatorOptions",
    "mediapipe.tasks.vision.face_geometry.proto.FaceGeometryGraphOptions",
    "mediapipe.tasks.TensorsToSegmentationCalculatorOptions",
    "mediapipe.tasks.vision.face_detector.proto.FaceDetectorGraphOptions",
    "mediapipe.tasks.vision.face_landmarker.proto.FaceLandmarkerGraphOptions",
    "mediapipe.tasks.vision.gesture_recognizer.proto.GestureRecognizerGraphOptions",
    "mediapipe.tasks.vision.hand_landmarker.proto.HandLandmarkerGraphOptions",
    "mediapipe.tasks.vision.image_segmenter.proto.ImageSegmenterGraphOptions",
    "mediapipe.tasks.vision.pose_landmarker.proto.PoseLandmarkerGraphOptions",
    "mediapipe.SwitchContainerOptions",
    "mediapipe.SyncSetInputStreamHandlerOptions",
    "mediapipe.TensorsToClassificationCalculatorOptions",
    "mediapipe.TensorsToDetectionsCalculatorOptions",
    "mediapipe.TensorsToFloatsCalculatorOptions",
    "mediapipe.TensorsToLandmarksCalculatorOptions",
    "mediapipe.TensorsToSegmentationCalculatorOptions",
    "mediapipe.TfLiteCustomOpResolverCalculatorOptions",
    "mediapipe.ThresholdingCalculatorOptions",
    "mediapipe.VisibilityCopyCalculatorOptions",
    "mediapipe.VisibilitySmoothingCalculatorOptions",
    "mediapipe.WarpAffineCalculatorOptions",
])

# Messages FrameFlow reads its own way, not from a generated schema: graph nodes (a switch
# container's `contained_node`) with the graph decoder's schema, options and `Any` as such.
EXTERNAL = {
    "mediapipe.CalculatorGraphConfig.Node": ".message(BinaryGraph.nodeSchema)",
    "mediapipe.CalculatorOptions": ".extensions",
    "mediapipe.MediaPipeOptions": ".extensions",
    "google.protobuf.Any": ".any",
}
EXTENDEES = {".mediapipe.CalculatorOptions", ".mediapipe.MediaPipeOptions"}

SCALARS = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32", 8: "bool",
           9: "string", 12: "bytes", 13: "uint32", 15: "sfixed32", 16: "sfixed64", 17: "sint32", 18: "sint64"}
TYPE_GROUP, TYPE_MESSAGE, TYPE_ENUM, LABEL_REPEATED = 10, 11, 14, 3


def wheel_path(explicit):
    if explicit:
        return explicit
    found = glob.glob(os.path.join(WHEEL_DIR, f"mediapipe-{VERSION}-*.whl"))
    if not found:
        os.makedirs(WHEEL_DIR, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", WHEEL_DIR,
                        f"mediapipe=={VERSION}"], check=True)
        found = glob.glob(os.path.join(WHEEL_DIR, f"mediapipe-{VERSION}-*.whl"))
    return sorted(found)[0]


def descriptors(wheel):
    """Every FileDescriptorProto the wheel's `_pb2.py` modules add to the default pool."""
    from google.protobuf import descriptor_pb2
    files = []
    with zipfile.ZipFile(wheel) as z:
        for name in sorted(z.namelist()):
            if not name.endswith("_pb2.py"):
                continue
            for node in ast.walk(ast.parse(z.read(name))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "AddSerializedFile"):
                    files.append(descriptor_pb2.FileDescriptorProto.FromString(ast.literal_eval(node.args[0])))
    return files


class Index:
    def __init__(self, files):
        self.messages, self.enums, self.extensions, self.source = {}, {}, {}, {}
        for f in files:
            prefix = "." + f.package if f.package else ""
            self._extensions(f.extension)
            for e in f.enum_type:
                self._add(self.enums, prefix + "." + e.name, e, f)
            for m in f.message_type:
                self._message(prefix + "." + m.name, m, f)

    def _add(self, table, name, value, f):
        old = table.get(name)
        if old is not None and old.SerializeToString() != value.SerializeToString():
            sys.exit(f"{name[1:]} is defined differently in {self.source[name]} and {f.name}")
        table[name] = value
        self.source.setdefault(name, f.name)

    def _extensions(self, extensions):
        for x in extensions:
            if x.extendee in EXTENDEES:
                self.extensions[x.type_name] = x.number

    def _message(self, name, m, f):
        self._add(self.messages, name, m, f)
        self._extensions(m.extension)
        for e in m.enum_type:
            self._add(self.enums, name + "." + e.name, e, f)
        for n in m.nested_type:
            self._message(name + "." + n.name, n, f)


def identifier(full):
    """`.mediapipe.InferenceCalculatorOptions.Delegate` → `inferenceCalculatorOptionsDelegate`."""
    parts = full.lstrip(".").split(".")
    if parts[0] == "mediapipe":
        parts = parts[1:]
    word = "".join(p[0].upper() + p[1:] for p in parts)
    lead = re.match(r"[A-Z]+(?=[A-Z][a-z]|[0-9]|$)|[A-Z]", word).group(0)
    return lead.lower() + word[len(lead):]


def closure(index):
    """The roots and every message and enum they reach, as (messages, enums) sets of names."""
    messages, enums = set(), set()
    stack = ["." + r for r in ROOTS]
    while stack:
        name = stack.pop()
        if name in messages:
            continue
        if name not in index.messages:
            sys.exit(f"{name[1:]} is not in mediapipe=={VERSION}'s descriptors")
        messages.add(name)
        for field in index.messages[name].field:
            if field.type == TYPE_MESSAGE and field.type_name[1:] not in EXTERNAL:
                stack.append(field.type_name)
            elif field.type == TYPE_ENUM:
                enums.add(field.type_name)
    return messages, enums


def check_acyclic(index, messages):
    state = {}

    def visit(name, path):
        if state.get(name) == "done":
            return
        if state.get(name) == "open":
            sys.exit("recursive messages cannot be ProtoSchema values: " + " → ".join(p[1:] for p in path + [name]))
        state[name] = "open"
        for field in index.messages[name].field:
            if field.type == TYPE_MESSAGE and field.type_name in messages:
                visit(field.type_name, path + [name])
        state[name] = "done"

    for name in sorted(messages):
        visit(name, [])


def swift_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(index):
    messages, enums = closure(index)
    check_acyclic(index, messages)
    names = {n: identifier(n) for n in messages | enums}
    if len(set(names.values())) != len(names):
        sys.exit("two messages or enums map to one Swift name")

    out = [
        f"// generated by scripts/generate-option-schemas.py from mediapipe=={VERSION}; do not edit",
        "",
        f"/// The protobuf schemas of MediaPipe's options messages, generated from the descriptors in",
        f"/// PyPI's mediapipe=={VERSION} wheel: each message FrameFlow decodes (`ProtoSchema`), with",
        "/// the messages and enums its fields use. Calculators' `protoSchema`s and",
        "/// `MediaPipeSchemas` refer to these.",
        "public enum MediaPipeOptionSchemas {",
    ]
    for name in sorted(enums, key=lambda n: names[n]):
        e = index.enums[name]
        values = {}
        for v in e.value:
            values.setdefault(v.number, v.name)  # an alias keeps the first name
        body = ", ".join(f"{n}: {swift_string(values[n])}" for n in sorted(values))
        out += [
            f"    /// The enum `{name[1:]}`",
            f"    /// ({index.source[name]}).",
            f"    public static let {names[name]}: ProtoField.Kind = .enumeration([{body}])",
            "",
        ]
    for name in sorted(messages, key=lambda n: names[n]):
        m = index.messages[name]
        fields = []
        for f in m.field:
            if f.type in SCALARS:
                kind = "." + SCALARS[f.type]
            elif f.type == TYPE_ENUM:
                kind = names[f.type_name]
            elif f.type == TYPE_MESSAGE and f.type_name[1:] in EXTERNAL:
                kind = EXTERNAL[f.type_name[1:]]
            elif f.type == TYPE_MESSAGE:
                kind = f".message({names[f.type_name]})"
            else:
                sys.exit(f"{name[1:]}.{f.name}: groups are not supported")
            call = ".repeated" if f.label == LABEL_REPEATED else ".init"
            fields.append(f"            {call}({f.number}, {swift_string(f.name)}, {kind}),")
        ext = index.extensions.get(name)
        head = f"{swift_string(name[1:])}" + (f", extension: {ext}" if ext is not None else "") + ","
        out += [
            f"    /// `{name[1:]}`",
            f"    /// ({index.source[name]}).",
            f"    public static let {names[name]} = ProtoSchema(",
            f"        {head}",
        ]
        out += ["        fields: [", *fields, "        ])"] if fields else ["        fields: [])"]
        out.append("")
    roots = [names["." + r] for r in ROOTS]
    out += [
        "    /// The schemas of the messages listed in the generator (options types and the messages",
        "    /// FrameFlow's own types mirror), sorted by name.",
        "    public static let roots: [ProtoSchema] = [",
        *[f"        {r}," for r in roots],
        "    ]",
        "}",
        "",
    ]
    return swift_format("\n".join(out))


def swift_format(text):
    config = os.path.join(ROOT, ".swift-format")
    with tempfile.NamedTemporaryFile("w", suffix=".swift", delete=False) as t:
        t.write(text)
    try:
        subprocess.run(["swift", "format", "format", "--in-place", "--configuration", config, t.name], check=True)
        with open(t.name) as f:
            return f.read()
    finally:
        os.unlink(t.name)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 with a diff if the committed file is not current")
    p.add_argument("--wheel", help=f"a mediapipe-{VERSION} wheel (default: downloaded into .build/mediapipe-wheel)")
    p.add_argument("--output", default=os.path.join(ROOT, OUTPUT))
    args = p.parse_args()
    text = render(Index(descriptors(wheel_path(args.wheel))))
    if args.check:
        old = open(args.output).read() if os.path.exists(args.output) else ""
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                       OUTPUT + " (committed)", OUTPUT + " (generated)"))
            sys.exit(f"{OUTPUT} is not current: run scripts/generate-option-schemas.py and commit it")
        print(f"{OUTPUT} is current")
    else:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
