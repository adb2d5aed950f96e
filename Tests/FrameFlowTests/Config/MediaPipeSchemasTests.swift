import FrameFlow
import FrameFlowTestSupport
import Testing

@Suite struct MediaPipeSchemasTests {
    @Test func schemasAreWellFormedAndShared() {
        let all = MediaPipeSchemas.all
        #expect(Set(all.map(\.name)).count == all.count)
        let extensions = all.compactMap(\.extensionNumber)
        #expect(extensions.count == all.count)
        #expect(Set(extensions).count == extensions.count)
        for s in all {
            expectWellFormed(s)
            #expect(ProtoSchemaRegistry.mediaPipe.schema(named: s.name)?.extensionNumber == s.extensionNumber)
            #expect(ProtoSchemaRegistry.mediaPipe.schema(extension: s.extensionNumber!)?.name == s.name)
        }
        expectWellFormed(BinaryGraph.graphSchema)
        expectWellFormed(BinaryGraph.nodeSchema)
    }

    /// The options types the wheel's graphs carry, with the numbers of MediaPipe's .proto files.
    @Test func wheelOptionsTypesAreKnown() {
        let expected = [
            "mediapipe.FaceDetectionOptions": 374290926, "mediapipe.GateCalculatorOptions": 261754847,
            "mediapipe.SplitVectorCalculatorOptions": 259438222, "mediapipe.DetectionsToRectsCalculatorOptions": 262691807,
            "mediapipe.AssociationCalculatorOptions": 275124847, "mediapipe.Lift2DFrameAnnotationTo3DCalculatorOptions": 290166284,
            "mediapipe.InferenceCalculatorOptions": 336783863, "mediapipe.SwitchContainerOptions": 345967970,
            "mediapipe.TensorsToSegmentationCalculatorOptions": 374311106, "mediapipe.ImageToTensorCalculatorOptions": 334361939,
            "mediapipe.SyncSetInputStreamHandlerOptions": 155816273, "mediapipe.FixedSizeInputStreamHandlerOptions": 125744319,
        ]
        for (name, number) in expected {
            #expect(ProtoSchemaRegistry.mediaPipe.schema(named: name)?.extensionNumber == number, "\(name)")
        }
    }

    /// FaceDetectionOptions as its graphs' `graph_options` carry it: every kind of field.
    @Test func faceDetectionOptionsDecode() throws {
        var g = ProtobufWire()
        g.any(1002, "FaceDetectionOptions") { o in
            o.string(1, "face.tflite")
            o.int(11, 1)
            o.int(21, 128)
            o.int(23, 4)
            for s in [8, 16] { o.int(24, Int64(s)) }
            o.float(25, 1.0)
            o.int(31, 896)
            o.float(32, 128)
            o.float(36, 0.5)
            o.message(6) { d in d.message(4) { x in x.int(1, -1) } }
        }
        let text = """
            graph_options {
              [type.googleapis.com/mediapipe.FaceDetectionOptions] {
                model_path: "face.tflite" gpu_origin: CONVENTIONAL tensor_width: 128 num_layers: 4 strides: [8, 16]
                interpolated_scale_aspect_ratio: 1.0 num_boxes: 896 x_scale: 128 min_score_thresh: 0.5
                delegate { xnnpack { num_threads: -1 } }
              }
            }
            """
        let binary = try GraphConfig(binary: g.bytes)
        let parsed = try GraphConfig(parsing: text)
        #expect(describe(binary) == describe(parsed))
        guard case .text("mediapipe.FaceDetectionOptions", let m)? = binary.graphOptions else {
            Issue.record("graph options: \(String(describing: binary.graphOptions))")
            return
        }
        #expect(m.fields.count == 11)
    }
}
