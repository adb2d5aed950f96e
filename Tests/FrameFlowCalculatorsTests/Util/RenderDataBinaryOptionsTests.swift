import FrameFlow
import FrameFlowCalculators
import Testing

/// The render-data calculators' and the overlay's options from binary graphs (`.binarypb`),
/// through their protobuf schemas: MediaPipe's field and extension numbers, nested `Color`
/// and `RenderAnnotation.Text` messages.
@Suite struct RenderDataBinaryOptionsTests {
    @Test func detectionsToRenderData() throws {
        let o = try binaryGraphOptions(
            "DetectionsToRenderDataCalculator", ports: (["DETECTIONS:d"], ["RENDER_DATA:r"]), ext: 248360806,
            as: DetectionsToRenderDataCalculator.Options.self
        ) { w in
            w.int(1, 0)  // produce_empty_packet: false
            w.string(2, ";")
            w.message(4) { t in
                t.double(4, 20)  // font_height
                t.int(7, 1)  // center_horizontally
            }
            w.double(5, 3)
            w.message(6) { c in
                c.int(1, 255)
                c.int(3, 7)
            }
            w.string(7, "FACES")
            w.int(8, 1)
        }
        var expected = DetectionsToRenderDataCalculator.Options()
        expected.produceEmptyPacket = false
        expected.textDelimiter = ";"
        expected.text.fontHeight = 20
        expected.text.centerHorizontally = true
        expected.thickness = 3
        expected.color = RenderColor(r: 255, g: 0, b: 7)
        expected.sceneClass = "FACES"
        expected.renderDetectionId = true
        #expect(o == expected)
    }

    @Test func rectAndLabelsToRenderData() throws {
        let rect = try binaryGraphOptions(
            "RectToRenderDataCalculator", ports: (["NORM_RECT:r"], ["RENDER_DATA:o"]), ext: 262270380,
            as: RectToRenderDataCalculator.Options.self
        ) { w in
            w.message(2) { c in c.int(2, 200) }
            w.double(3, 2.5)
            w.double(5, 4)
        }
        #expect(rect?.color == RenderColor(r: 0, g: 200, b: 0) && rect?.thickness == 2.5 && rect?.topLeftThickness == 4)
        let labels = try binaryGraphOptions(
            "LabelsToRenderDataCalculator", ports: (["LABELS:l"], ["RENDER_DATA:o"]), ext: 271660364,
            as: LabelsToRenderDataCalculator.Options.self
        ) { w in
            w.message(1) { c in c.int(1, 1) }
            w.message(1) { c in c.int(2, 2) }
            w.int(3, 30)
            w.int(4, 3)
            w.int(6, 0)  // TOP_LEFT
            w.int(10, 1)
        }
        #expect(labels?.color == [RenderColor(r: 1, g: 0, b: 0), RenderColor(r: 0, g: 2, b: 0)])
        #expect(
            labels?.fontHeightPx == 30 && labels?.maxNumLabels == 3 && labels?.location == .topLeft
                && labels?.displayClassificationScore == true)
    }

    @Test func annotationOverlay() throws {
        let o = try binaryGraphOptions(
            "AnnotationOverlayCalculator", ports: (["IMAGE:in"], ["IMAGE:out"]), ext: 250607623,
            as: AnnotationOverlayCalculator.Options.self
        ) { w in
            w.int(2, 64)
            w.int(3, 32)
            w.message(4) { c in c.int(3, 90) }
            w.int(5, 1)
            w.float(7, 0.5)
        }
        #expect(o?.canvasWidthPx == 64 && o?.canvasHeightPx == 32 && o?.canvasColor == RenderColor(r: 0, g: 0, b: 90))
        #expect(o?.flipTextVertically == true && o?.gpuScaleFactor == 0.5)
        #expect(o?.boxColor == [0, 255, 0], "FrameFlow's fields keep their defaults")
    }
}
