import FrameFlow
import Foundation
import Testing

/// MediaPipe's data types encode with MediaPipe's field names and decode back unchanged.
@Suite struct MediaPipeTypesTests {
    func json<T: Codable & Equatable>(_ value: T) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        let data = try e.encode(value)
        #expect(try JSONDecoder().decode(T.self, from: data) == value, "round trip")
        return String(decoding: data, as: UTF8.self)
    }

    @Test func rectsAndLandmarks() throws {
        #expect(
            try json(NormalizedRect(xCenter: 0.5, yCenter: 0.25, width: 0.1, height: 0.2, rotation: 1, rectID: 3))
                == #"{"height":0.2,"rect_id":3,"rotation":1,"width":0.1,"x_center":0.5,"y_center":0.25}"#)
        #expect(
            try json(RotatedRect(xCenter: 10, yCenter: 20, width: 4, height: 6))
                == #"{"height":6,"rotation":0,"width":4,"x_center":10,"y_center":20}"#)
        #expect(
            try json(NormalizedLandmarkList([NormalizedLandmark(x: 0.5, y: 0.25, z: -0.125, visibility: 0.75)]))
                == #"{"landmark":[{"visibility":0.75,"x":0.5,"y":0.25,"z":-0.125}]}"#)
        #expect(try json(LandmarkList([Landmark(x: 1, y: 2, z: 3, presence: 0.5)])) == #"{"landmark":[{"presence":0.5,"x":1,"y":2,"z":3}]}"#)
    }

    @Test func classificationsAndLocations() throws {
        #expect(
            try json(ClassificationList([Classification(index: 1, score: 0.5, label: "Right", displayName: "right hand")]))
                == #"{"classification":[{"display_name":"right hand","index":1,"label":"Right","score":0.5}]}"#)
        let location = LocationData(
            format: .relativeBoundingBox, relativeBoundingBox: .init(xmin: 0.25, ymin: 0.5, width: 0.125, height: 0.25),
            relativeKeypoints: [.init(x: 0.5, y: 0.5, keypointLabel: "nose")])
        #expect(
            try json(location)
                == #"{"format":"RELATIVE_BOUNDING_BOX","relative_bounding_box":{"height":0.25,"width":0.125,"xmin":0.25,"ymin":0.5},"relative_keypoints":[{"keypoint_label":"nose","x":0.5,"y":0.5}]}"#
        )
    }

    @Test func renderDataUsesMediaPipesShapeFields() throws {
        let data = RenderData([
            RenderAnnotation(
                .rectangle(left: 0.1, top: 0.2, right: 0.3, bottom: 0.4, normalized: true, rotation: 0, filled: false), thickness: 2,
                color: RenderColor(r: 255, g: 0, b: 0)),
            RenderAnnotation(.point(x: 5, y: 6, normalized: false)),
            RenderAnnotation(.line(xStart: 0, yStart: 0, xEnd: 1, yEnd: 1, normalized: true)),
            RenderAnnotation(.text("face", left: 1, baseline: 2, fontHeight: 12, normalized: false)),
            RenderAnnotation(.oval(left: 1, top: 2, right: 3, bottom: 4, normalized: false, filled: true)),
        ])
        let text = try json(data)
        for field in [
            #""rectangle":{"bottom":0.4,"left":0.1,"normalized":true,"right":0.3,"rotation":0,"top":0.2}"#,
            #""point":{"normalized":false,"x":5,"y":6}"#,
            #""x_start":0"#, #""display_text":"face""#, #""font_height":12"#, #""filled_oval""#, #""color":{"b":0,"g":0,"r":255}"#,
        ] {
            #expect(text.contains(field), "\(field) in \(text)")
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(RenderAnnotation.self, from: Data(#"{"thickness":1}"#.utf8)) }
    }
}
