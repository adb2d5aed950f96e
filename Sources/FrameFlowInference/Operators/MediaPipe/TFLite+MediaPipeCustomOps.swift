import Foundation
import FrameFlow

/// The kernels of MediaPipe's custom TFLite operators (`TFLiteCustomOperator`), on float
/// tensors, following MediaPipe's CPU kernels (mediapipe/util/tflite/operations/): float
/// arithmetic in the same order, so results agree to float rounding. Bad shapes, and indices
/// past the landmarks, are `ModelError`s.
extension TFLiteCustomOperator {
    /// Runs the operator on its inputs; `outShape` is the output's shape as the model declares
    /// it (checked against the computed one when the model gives it).
    func run(_ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        guard inputCount == self.inputCount else { throw ModelError("\(name) takes \(self.inputCount) inputs, not \(inputCount)") }
        let out: Tensor
        switch self {
        case .landmarksToTransformMatrix(let o):
            out = try Self.landmarksToTransformMatrix(try input(0), o)
        case .transformTensorBilinear(let h, let w):
            out = try Self.transformTensorBilinear(try input(0), matrix: try input(1), height: h, width: w)
        case .transformLandmarks:
            out = try Self.transformLandmarks(try input(0), matrix: try input(1))
        case .transposeConvBias(let o):
            out = try NHWC.transposeConvBias(try input(0), weights: try input(1), bias: try input(2), o)
        }
        guard outShape.isEmpty || outShape == out.shape else {
            throw ModelError("\(name): the output has shape \(out.shape); the model declares \(outShape)")
        }
        return out
    }

    /// A row-major 4 × 4 float matrix, multiplied as MediaPipe's `Mat4` does.
    private struct Mat4 {
        var m: [Float]
        static let identity = Mat4(m: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        static func * (a: Mat4, b: Mat4) -> Mat4 {
            var r = [Float](repeating: 0, count: 16)
            for i in 0..<4 {
                for j in 0..<4 {
                    var s: Float = 0
                    for k in 0..<4 { s += a.m[i * 4 + k] * b.m[k * 4 + j] }
                    r[i * 4 + j] = s
                }
            }
            return Mat4(m: r)
        }
    }

    /// `Landmarks2TransformMatrix` v2. The landmarks `[1, N, 3]` are read as (x, y, z) triples.
    /// The rotation r is `targetRotation` minus the angle of the line from the left to the
    /// right landmark; the subset's landmarks rotated by r span a box (width w, height h,
    /// centre c rotated back by −r). The result maps an output grid point p to
    /// `T(c) · R(−r) · S(scaleX·w/outputWidth, scaleY·h/outputHeight) · T(−outputWidth/2, −outputHeight/2) · p`.
    static func landmarksToTransformMatrix(_ landmarks: Tensor, _ o: LandmarksToTransformMatrixOptions) throws -> Tensor {
        guard landmarks.isFloat, landmarks.shape.count == 3 else {
            throw ModelError("Landmarks2TransformMatrix needs [1, N, 3] float landmarks, not \(landmarks.type) \(landmarks.shape)")
        }
        let p = landmarks.asFloats, n = p.count / 3
        let used = o.subset + [o.left, o.right]
        guard let worst = used.max(), worst < n else {
            throw ModelError("Landmarks2TransformMatrix: landmark index \(used.max() ?? 0) is past the \(n) landmarks of \(landmarks.shape)")
        }
        let (lx, ly, rx, ry) = (p[3 * o.left], p[3 * o.left + 1], p[3 * o.right], p[3 * o.right + 1])
        let r = o.targetRotation - atan2f(ry - ly, rx - lx)
        let (cr, sr) = (cosf(r), sinf(r))
        var minX = Float.infinity, minY = Float.infinity, maxX = -Float.infinity, maxY = -Float.infinity
        for i in o.subset {
            // (x, y, 1) through the 3 × 3 rotation, summed in MediaPipe's order.
            let x = p[3 * i], y = p[3 * i + 1]
            let rx = cr * x + -sr * y + 0 * 1, ry = sr * x + cr * y + 0 * 1
            minX = min(minX, rx); maxX = max(maxX, rx)
            minY = min(minY, ry); maxY = max(maxY, ry)
        }
        let width = maxX - minX, height = maxY - minY
        let mx = (minX + maxX) / 2, my = (minY + maxY) / 2
        let (ci, si) = (cosf(-r), sinf(-r))
        let cx = ci * mx + -si * my + 0 * 1, cy = si * mx + ci * my + 0 * 1
        let (cb, sb) = (cosf(-r), sinf(-r))
        let shift = Mat4(m: [1, 0, 0, cx, 0, 1, 0, cy, 0, 0, 1, 0, 0, 0, 0, 1])
        let rotation = Mat4(m: [cb, -sb, 0, 0, sb, cb, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        let sx = o.scaleX * width / Float(o.outputWidth), sy = o.scaleY * height / Float(o.outputHeight)
        let scale = Mat4(m: [sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        let hx = Float(-1.0 * (Double(o.outputWidth) / 2)), hy = Float(-1.0 * (Double(o.outputHeight) / 2))
        let center = Mat4(m: [1, 0, 0, hx, 0, 1, 0, hy, 0, 0, 1, 0, 0, 0, 0, 1])
        let t = Mat4.identity * shift * rotation * scale * center
        return Tensor(shape: [1, 4, 4], floats: t.m)
    }

    /// The first two rows of a 4 × 4 matrix tensor.
    private static func rows(_ matrix: Tensor, _ op: String) throws -> (x: [Float], y: [Float]) {
        guard matrix.isFloat, matrix.count == 16 else { throw ModelError("\(op) needs a 4 × 4 float matrix, not \(matrix.type) \(matrix.shape)") }
        let m = matrix.asFloats
        return (Array(m[0..<4]), Array(m[4..<8]))
    }

    /// `TransformTensorBilinear` v2: output pixel (x, y) of `[1, height, width, C]` samples the
    /// `[1, H, W, C]` input bilinearly at the matrix's image of the pixel centre
    /// (x + ½, y + ½) minus ½ (the align-corners correction); points outside `[0, W−1] ×
    /// [0, H−1]` give 0, and neighbours past the edge count as 0.
    static func transformTensorBilinear(_ x: Tensor, matrix: Tensor, height: Int, width: Int) throws -> Tensor {
        guard x.isFloat, x.shape.count == 4, x.shape[0] == 1 else {
            throw ModelError("TransformTensorBilinear needs a [1, H, W, C] float input, not \(x.type) \(x.shape)")
        }
        let (h, w, c) = (x.shape[1], x.shape[2], x.shape[3])
        var (mx, my) = try rows(matrix, "TransformTensorBilinear")
        mx[3] = Float(Double(mx[3]) + (Double(mx[0]) * 0.5 + Double(mx[1]) * 0.5 - 0.5))
        my[3] = Float(Double(my[3]) + (Double(my[0]) * 0.5 + Double(my[1]) * 0.5 - 0.5))
        let n = try Checked.elements([1, height, width, c], "TransformTensorBilinear output")
        guard n > 0 else { return Tensor(shape: [1, height, width, c], floats: []) }  // no channels: no grid walk
        var out = [Float](repeating: 0, count: n)
        let xf = x.asFloats
        func read(_ row: Int, _ col: Int, _ ch: Int) -> Double {
            row < 0 || col < 0 || row >= h || col >= w ? 0 : Double(xf[(row * w + col) * c + ch])
        }
        for oy in 0..<height {
            for ox in 0..<width {
                let (fx, fy) = (Float(ox), Float(oy))
                let tx = mx[0] * fx + mx[1] * fy + mx[2] * 0 + mx[3] * 1
                let ty = my[0] * fx + my[1] * fy + my[2] * 0 + my[3] * 1
                // Outside (or not a number: MediaPipe's comparisons pass NaN, its floor then fails).
                guard tx >= 0, tx <= Float(w - 1), ty >= 0, ty <= Float(h - 1) else { continue }
                let x0 = tx.rounded(.down), y0 = ty.rounded(.down)
                let (col, row) = (Int(x0), Int(y0))
                let right = Double(tx - x0), lower = Double(ty - y0)
                let base = (oy * width + ox) * c
                for ch in 0..<c {
                    let upper = (1 - right) * read(row, col, ch) + right * read(row, col + 1, ch)
                    let below = (1 - right) * read(row + 1, col, ch) + right * read(row + 1, col + 1, ch)
                    out[base + ch] = Float(lower * below + (1 - lower) * upper)
                }
            }
        }
        return Tensor(shape: [1, height, width, c], floats: out)
    }

    /// `TransformLandmarks` v2: each landmark of `[1, N, D]` (D = 2 or 3) becomes
    /// (row 0 · (x, y, 0, 1), row 1 · (x, y, 0, 1)[, z]).
    static func transformLandmarks(_ landmarks: Tensor, matrix: Tensor) throws -> Tensor {
        guard landmarks.isFloat, landmarks.shape.count == 3, [2, 3].contains(landmarks.shape[2]) else {
            throw ModelError("TransformLandmarks needs [1, N, 2 or 3] float landmarks, not \(landmarks.type) \(landmarks.shape)")
        }
        let (mx, my) = try rows(matrix, "TransformLandmarks")
        let d = landmarks.shape[2]
        var p = landmarks.asFloats
        for i in stride(from: 0, to: p.count - d + 1, by: d) {
            let (x, y) = (p[i], p[i + 1])
            p[i] = mx[0] * x + mx[1] * y + mx[2] * 0 + mx[3] * 1
            p[i + 1] = my[0] * x + my[1] * y + my[2] * 0 + my[3] * 1
        }
        return Tensor(shape: landmarks.shape, floats: p)
    }
}
