import Foundation

/// One SSD anchor: a centre and size, normalised to [0, 1].
public struct Anchor: Sendable, Equatable {
    public var x, y, width, height: Double
}

/// SSD anchor generation as MediaPipe's `SsdAnchorsCalculator` defines it: layers sharing a
/// stride form one feature map; each cell gets one anchor per (scale, aspect ratio), plus an
/// interpolated-scale anchor when `interpolated_scale_aspect_ratio` > 0.
public struct SSDAnchorOptions: Codable, Sendable, Equatable {
    public var numLayers = 4
    public var minScale = 0.1484375
    public var maxScale = 0.75
    public var inputSizeWidth = 128
    public var inputSizeHeight = 128
    public var anchorOffsetX = 0.5
    public var anchorOffsetY = 0.5
    public var strides = [8, 16, 16, 16]
    public var aspectRatios = [1.0]
    public var interpolatedScaleAspectRatio = 1.0
    public var fixedAnchorSize = true
    public var reduceBoxesInLowestLayer = false
    public init() {}

    static func scale(_ minScale: Double, _ maxScale: Double, _ index: Int, _ count: Int) -> Double {
        count == 1 ? (minScale + maxScale) / 2 : minScale + (maxScale - minScale) * Double(index) / Double(count - 1)
    }

    /// The anchors, in MediaPipe's order (layer, row, column, anchor).
    public func anchors() throws -> [Anchor] {
        guard numLayers > 0, strides.count == numLayers, strides.allSatisfy({ $0 > 0 }), inputSizeWidth > 0, inputSizeHeight > 0 else {
            throw ModelError("SSD anchors need num_layers > 0 strides (one per layer, > 0) and an input size")
        }
        var out: [Anchor] = []
        var layer = 0
        while layer < numLayers {
            var ratios: [Double] = [], scales: [Double] = []
            var last = layer
            while last < numLayers && strides[last] == strides[layer] {
                let s = Self.scale(minScale, maxScale, last, numLayers)
                if last == 0 && reduceBoxesInLowestLayer {
                    ratios += [1, 2, 0.5]
                    scales += [0.1, s, s]
                } else {
                    for r in aspectRatios {
                        ratios.append(r)
                        scales.append(s)
                    }
                    if interpolatedScaleAspectRatio > 0 {
                        let next = last == numLayers - 1 ? 1 : Self.scale(minScale, maxScale, last + 1, numLayers)
                        scales.append((s * next).squareRoot())
                        ratios.append(interpolatedScaleAspectRatio)
                    }
                }
                last += 1
            }
            let stride = strides[layer]
            let rows = (inputSizeHeight + stride - 1) / stride, cols = (inputSizeWidth + stride - 1) / stride
            guard rows * cols * ratios.count <= 1 << 20 else { throw ModelError("SSD anchors: too many anchors") }
            for y in 0..<rows {
                for x in 0..<cols {
                    for (r, s) in zip(ratios, scales) {
                        let root = r.squareRoot()
                        out.append(Anchor(
                            x: (Double(x) + anchorOffsetX) / Double(cols), y: (Double(y) + anchorOffsetY) / Double(rows),
                            width: fixedAnchorSize ? 1 : s * root, height: fixedAnchorSize ? 1 : s / root))
                    }
                }
            }
            layer = last
        }
        return out
    }
}
