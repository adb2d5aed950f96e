import Foundation
import FrameFlow
import FrameFlowMedia
import Testing

/// Float masks (`grayFloat32`, as segmentation calculators give them) leaving through
/// `--output-stream`: 8-bit grey image and video files (value × 255, clamped, rounded) read
/// back by FFmpeg, and a JSON Lines summary checked against its formula.
@Suite struct MaskOutputTests {
    /// A mask with values from below 0 to above 1, different at each `seed`.
    static func mask(width: Int = 64, height: Int = 48, seed: Int = 0) throws -> ImageFrame {
        let values = (0..<width * height).map { i -> Float in
            let x = i % width, y = i / width
            return Float(x + 3 * seed) / Float(width) * 1.2 - 0.1 + Float(y % 7) * 0.01
        }
        return try ImageFrame.grayFloat(width: width, height: height, values: values)
    }

    /// The 8-bit level of a mask value.
    static func level(_ v: Float) -> UInt8 { UInt8(min(max(v * 255, 0), 255).rounded()) }

    func write(_ packets: [Packet], to name: String) throws -> String {
        let path = MediaFixtures.path(name)
        var encode = EncodeOptions()
        encode.crf = 12  // near-lossless video, so the comparison sees the conversion, not the codec
        let sink = try makeSink(path, stream: "segmentation_mask", encode: encode)
        for p in packets { try sink.write(p) }
        try sink.finish()
        return path
    }

    @Test func pngIsOneChannelGreyOfTheValuesTimes255() throws {
        let mask = try Self.mask()
        let path = try write([Packet(mask, at: 0)], to: "mask-\(UUID().uuidString).png")
        defer { unlink(path) }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(bytes.count > 26 && Array(bytes[12..<16]) == Array("IHDR".utf8))
        #expect(bytes[24] == 8 && bytes[25] == 0, "8-bit greyscale PNG (bit depth \(bytes[24]), colour type \(bytes[25]))")
        let read = try #require(try MediaSource(path, options: .init(pixelFormat: .gray8)).read()).image
        #expect(read.width == 64 && read.height == 48)
        #expect(read.packedBytes() == (try mask.grayFloatValues()).map(Self.level))
    }

    @Test func videoHoldsEveryMaskFrame() throws {
        let masks = try (0..<4).map { try Self.mask(seed: $0) }
        let path = try write(
            masks.enumerated().map { Packet($0.element, at: Timestamp(Int64($0.offset) * 40_000)) }, to: "masks-\(UUID().uuidString).mp4")
        defer { unlink(path) }
        let source = try MediaSource(path, options: .init(pixelFormat: .gray8))
        var frames: [ImageFrame] = []
        while let f = try source.read() { frames.append(f.image) }
        try #require(frames.count == masks.count)
        for (got, mask) in zip(frames, masks) {
            let want = try mask.grayFloatValues().map(Self.level)
            let d = zip(got.packedBytes(), want).map { Double($0) - Double($1) }
            let mean = d.map(abs).reduce(0, +) / Double(d.count), bias = d.reduce(0, +) / Double(d.count)
            #expect(mean < 1.5 && abs(bias) < 0.5, "mean difference \(mean) levels (bias \(bias)) after H.264 and 4:2:0")
        }
    }

    @Test func jsonLinesGiveSizeAndSummary() throws {
        let masks = try [Self.mask(seed: 0), Self.mask(width: 10, height: 5, seed: 2)]
        let path = try write([Packet(masks[0], at: 0), Packet(masks[1], at: 33_333)], to: "masks-\(UUID().uuidString).jsonl")
        defer { unlink(path) }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        try #require(lines.count == 2)
        for (line, mask) in zip(lines, masks) {
            let v = try mask.grayFloatValues()
            #expect(line["stream"] as? String == "segmentation_mask")
            #expect(line["width"] as? Int == mask.width && line["height"] as? Int == mask.height && line["format"] as? String == "gray_f32")
            let mean = v.map(Double.init).reduce(0, +) / Double(v.count)
            let foreground = Double(v.filter { $0 >= 0.5 }.count) / Double(v.count)
            #expect(abs((line["mean"] as? Double ?? -1) - mean) < 1e-9)
            #expect(line["foreground_fraction"] as? Double == foreground)
        }
        #expect(lines[1]["timestamp_us"] as? Int == 33_333)
    }

    /// Float RGBA images have no FFmpeg pixel format: writing one is an error naming the file
    /// (swscale used to abort the process), and nothing is left behind.
    @Test func floatRGBAImagesAreRefusedNotAborted() throws {
        let image = try ImagePool.shared.makeImage(width: 8, height: 6, format: .rgbaFloat32).freeze()
        for name in ["float.png", "float.mp4"] {
            let path = MediaFixtures.path(name)
            let sink = try makeSink(path, stream: "image")
            let e = #expect(throws: MediaError.self) { try sink.write(Packet(image, at: Timestamp(0))) }
            #expect(e?.kind == .unsupportedOutput && e?.description.contains(path) == true, "\(String(describing: e))")
            sink.discard()
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
