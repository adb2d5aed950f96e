import Foundation
import FrameFlow
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A boosted cascade in OpenCV's XML format (`opencv_storage` / `cascade`): Haar or LBP
/// features, stages of weak trees with stage thresholds. Debian's `opencv-data` installs them
/// under `/usr/share/opencv4/haarcascades/` and `/usr/share/opencv4/lbpcascades/`.
///
/// ```swift
/// let cascade = try CascadeClassifier(contentsOfFile: "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt.xml")
/// print(cascade.featureType, cascade.windowSize, cascade.stages.count)   // haar (20, 20) 22
/// ```
///
/// A malformed file is a `CascadeError` naming the element and its line.
public struct CascadeClassifier: Sendable {
    public enum FeatureType: String, Sendable { case haar = "HAAR", lbp = "LBP" }

    /// A Haar feature: up to three weighted rectangles, upright or tilted by 45°.
    public struct HaarFeature: Sendable {
        public var rects: [(x: Int32, y: Int32, width: Int32, height: Int32, weight: Float)]
        public var tilted: Bool
    }

    /// A weak tree node: children (≤ 0 means leaf −index), feature, threshold (Haar) or
    /// category subset (LBP, 256 bits).
    public struct Node: Sendable {
        public var left: Int32
        public var right: Int32
        public var feature: Int32
        public var threshold: Float
        public var subset: [Int32]
    }

    public struct Tree: Sendable {
        public var nodes: [Node]
        public var leaves: [Float]
    }

    public struct Stage: Sendable {
        /// OpenCV subtracts 1e-5 from the file's threshold when loading; so does FrameFlow.
        public var threshold: Float
        public var trees: [Tree]
    }

    public var featureType: FeatureType
    /// The detection window (`width`, `height` in the file).
    public var windowSize: (width: Int, height: Int)
    public var stages: [Stage]
    public var haarFeatures: [HaarFeature] = []
    /// LBP features: the block rectangle of each 3×3 grid.
    public var lbpFeatures: [(x: Int32, y: Int32, width: Int32, height: Int32)] = []
    /// Whether every tree is a single split (the fast path).
    public var isStumpBased: Bool { stages.allSatisfy { $0.trees.allSatisfy { $0.nodes.count == 1 } } }

    /// Loads a cascade file; its elements nest at most `limits.maxNestingDepth` deep.
    public init(contentsOfFile path: String, limits: ResourceLimits = ResourceLimits()) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CascadeError(file: path, element: "", line: 0, message: "cannot read the file")
        }
        try self.init(xml: data, file: path, limits: limits)
    }

    /// Parses cascade XML; `file` names it in errors.
    public init(xml: Data, file: String = "<cascade>", limits: ResourceLimits = ResourceLimits()) throws {
        let root = try XMLTree.parse(xml, file: file, maxDepth: limits.maxNestingDepth)
        func fail(_ e: XMLTree.Element, _ m: String) -> CascadeError { CascadeError(file: file, element: e.path, line: e.line, message: m) }
        guard root.name == "opencv_storage" else { throw fail(root, "the root element must be <opencv_storage>") }
        guard let cascade = root.children.first else { throw fail(root, "missing <cascade>") }
        if cascade.child("stageType") == nil && cascade.child("size") != nil {
            self = try CascadeClassifier(oldFormat: cascade, fail: fail)
            return
        }
        func required(_ e: XMLTree.Element, _ name: String) throws -> XMLTree.Element {
            guard let c = e.child(name) else { throw fail(e, "missing <\(name)>") }
            return c
        }
        func int(_ e: XMLTree.Element) throws -> Int {
            guard let v = Int(e.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw fail(e, "'\(e.text.trimmingCharacters(in: .whitespacesAndNewlines))' is not an integer")
            }
            return v
        }
        func numbers(_ e: XMLTree.Element) throws -> [Double] {
            try e.text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).map { t in
                guard let v = Double(t) else { throw fail(e, "'\(t)' is not a number") }
                return v
            }
        }
        let stageType = try required(cascade, "stageType").text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard stageType == "BOOST" else { throw fail(cascade.child("stageType")!, "stageType '\(stageType)' is not supported (only BOOST)") }
        let ft = try required(cascade, "featureType")
        guard let type = FeatureType(rawValue: ft.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw fail(ft, "featureType '\(ft.text.trimmingCharacters(in: .whitespacesAndNewlines))' is not supported (HAAR, LBP)")
        }
        featureType = type
        let w = try int(try required(cascade, "width")), h = try int(try required(cascade, "height"))
        guard w > 0, h > 0, w <= 1024, h <= 1024 else { throw fail(cascade, "window size \(w)×\(h) is out of range") }
        windowSize = (w, h)
        let params = try required(cascade, "featureParams")
        let categories = try int(try required(params, "maxCatCount"))
        // Haar nodes split on a threshold (0 categories); LBP codes take all 256 values, so a
        // node's subset needs 8 words (fewer would be read past).
        guard categories == (type == .lbp ? 256 : 0) else {
            throw fail(params, "maxCatCount \(categories) does not fit featureType \(type.rawValue) (\(type == .lbp ? "256" : "0") categories)")
        }
        let subsetSize = (categories + 31) / 32
        let nodeStep = 3 + (categories > 0 ? subsetSize : 1)

        let stagesElement = try required(cascade, "stages")
        var stages: [Stage] = []
        var maxFeature = -1
        for (si, st) in stagesElement.children.enumerated() {
            let threshold = Float(try numbers(try required(st, "stageThreshold")).first ?? .nan)
            guard threshold.isFinite else { throw fail(st, "stage \(si): stageThreshold is not a number") }
            var trees: [Tree] = []
            for weak in try required(st, "weakClassifiers").children {
                let inner = try numbers(try required(weak, "internalNodes"))
                let leaves = try numbers(try required(weak, "leafValues")).map { Float($0) }
                guard !inner.isEmpty, inner.count % nodeStep == 0 else {
                    throw fail(weak.child("internalNodes")!, "internalNodes has \(inner.count) values, not a multiple of \(nodeStep)")
                }
                var nodes: [Node] = []
                for k in stride(from: 0, to: inner.count, by: nodeStep) {
                    guard let left = exactInt32(inner[k]), let right = exactInt32(inner[k + 1]), let f = exactInt32(inner[k + 2]), f >= 0 else {
                        throw fail(weak.child("internalNodes")!, "node indexes must be whole numbers in range")
                    }
                    let subset =
                        try categories > 0
                        ? inner[(k + 3)..<(k + 3 + subsetSize)].map { v -> Int32 in
                            guard v.isFinite, v == v.rounded(), abs(v) < 9e18 else {
                                throw fail(weak.child("internalNodes")!, "category subset \(v) is not a 32-bit integer")
                            }
                            return Int32(truncatingIfNeeded: Int64(v))
                        } : []
                    let threshold = categories > 0 ? 0 : Float(inner[k + 3])
                    guard threshold.isFinite else {
                        throw fail(weak.child("internalNodes")!, "node threshold \(inner[k + 3]) is not a finite number")
                    }
                    nodes.append(Node(left: left, right: right, feature: f, threshold: threshold, subset: subset))
                    maxFeature = max(maxFeature, Int(f))
                }
                guard leaves.count == nodes.count + 1 else {
                    throw fail(weak.child("leafValues")!, "\(leaves.count) leaf values for \(nodes.count) nodes (need \(nodes.count + 1))")
                }
                guard leaves.allSatisfy(\.isFinite) else { throw fail(weak.child("leafValues")!, "leaf values must be finite numbers") }
                for (j, n) in nodes.enumerated() {
                    // In Int: negating Int32.min traps. A child node must come after its parent,
                    // or detection could walk the tree forever.
                    for c in [Int(n.left), Int(n.right)] where c > 0 && c >= nodes.count || c <= 0 && -c >= leaves.count {
                        throw fail(weak.child("internalNodes")!, "child index \(c) is out of range")
                    }
                    for c in [Int(n.left), Int(n.right)] where c > 0 && c <= j {
                        throw fail(weak.child("internalNodes")!, "node \(j)'s child \(c) does not come after it (a tree must not loop)")
                    }
                }
                trees.append(Tree(nodes: nodes, leaves: leaves))
            }
            guard !trees.isEmpty else { throw fail(st, "stage \(si) has no weak classifiers") }
            stages.append(Stage(threshold: threshold - 1e-5, trees: trees))
        }
        guard !stages.isEmpty else { throw fail(stagesElement, "no stages") }
        if let n = cascade.child("stageNum"), try int(n) != stages.count {
            throw fail(n, "stageNum says \(try int(n)) but there are \(stages.count) stages")
        }
        self.stages = stages

        let features = try required(cascade, "features")
        switch type {
        case .haar:
            for f in features.children {
                let rectsElement = try required(f, "rects")
                var rects: [(Int32, Int32, Int32, Int32, Float)] = []
                for r in rectsElement.children {
                    let v = try numbers(r)
                    guard v.count == 5 else { throw fail(r, "a Haar rectangle needs x y width height weight, found \(v.count) numbers") }
                    guard let x = exactInt32(v[0]), let y = exactInt32(v[1]), let w = exactInt32(v[2]), let h = exactInt32(v[3]), v[4].isFinite else {
                        throw fail(r, "rectangle values must be whole numbers in range and a finite weight")
                    }
                    rects.append((x, y, w, h, Float(v[4])))
                }
                guard (2...3).contains(rects.count) else { throw fail(rectsElement, "a Haar feature has 2 or 3 rectangles, found \(rects.count)") }
                let tilted = try f.child("tilted").map { try int($0) != 0 } ?? false
                for r in rects where !haarRectInside(r.0, r.1, r.2, r.3, tilted: tilted, width: w, height: h) {
                    throw fail(rectsElement, "rectangle \(r.0) \(r.1) \(r.2) \(r.3) lies outside the \(w)×\(h) window")
                }
                haarFeatures.append(HaarFeature(rects: rects.map { (x: $0.0, y: $0.1, width: $0.2, height: $0.3, weight: $0.4) }, tilted: tilted))
            }
            guard maxFeature < haarFeatures.count else {
                throw fail(features, "trees use feature \(maxFeature) but only \(haarFeatures.count) features are defined")
            }
        case .lbp:
            for f in features.children {
                let r = try required(f, "rect")
                let v = try numbers(r)
                guard v.count == 4 else { throw fail(r, "an LBP rect needs x y width height, found \(v.count) numbers") }
                guard let x = exactInt32(v[0]), let y = exactInt32(v[1]), let bw = exactInt32(v[2]), let bh = exactInt32(v[3]),
                    x >= 0, y >= 0, bw > 0, bh > 0, Int(x) + 3 * Int(bw) <= w, Int(y) + 3 * Int(bh) <= h
                else {
                    throw fail(r, "LBP block grid lies outside the \(w)×\(h) window")
                }
                lbpFeatures.append((x, y, bw, bh))
            }
            guard maxFeature < lbpFeatures.count else {
                throw fail(features, "trees use feature \(maxFeature) but only \(lbpFeatures.count) features are defined")
            }
        }
    }
}

extension CascadeClassifier {
    /// The old `opencv-haar-classifier` layout (`<size>`, stages of `<trees>` whose nodes
    /// carry their feature inline, `left_val`/`left_node`): converted to the same model.
    /// OpenCV runs such files through its legacy detector; FrameFlow runs them through the
    /// one above, so results on them are not compared with OpenCV's.
    init(oldFormat cascade: XMLTree.Element, fail: (XMLTree.Element, String) -> CascadeError) throws {
        func numbers(_ e: XMLTree.Element) throws -> [Double] {
            try e.text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).map { t in
                guard let v = Double(t) else { throw fail(e, "'\(t)' is not a number") }
                return v
            }
        }
        func required(_ e: XMLTree.Element, _ name: String) throws -> XMLTree.Element {
            guard let c = e.child(name) else { throw fail(e, "missing <\(name)>") }
            return c
        }
        let size = try numbers(try required(cascade, "size"))
        guard size.count == 2, let sw = exactInt32(size[0]), let sh = exactInt32(size[1]), sw > 0, sh > 0, sw <= 1024, sh <= 1024 else {
            throw fail(cascade.child("size")!, "<size> needs width and height in 1…1024")
        }
        featureType = .haar
        windowSize = (Int(size[0]), Int(size[1]))
        var features: [HaarFeature] = []
        var stages: [Stage] = []
        for st in try required(cascade, "stages").children {
            var trees: [Tree] = []
            for tree in try required(st, "trees").children {
                var nodes: [Node] = []
                var leaves: [Float] = []
                let raw = tree.children
                for (j, n) in raw.enumerated() {
                    let f = try required(n, "feature")
                    let tilted = (try f.child("tilted").map { try numbers($0).first ?? 0 } ?? 0) != 0
                    var rects: [(x: Int32, y: Int32, width: Int32, height: Int32, weight: Float)] = []
                    for r in try required(f, "rects").children {
                        let v = try numbers(r)
                        guard v.count == 5, let x = exactInt32(v[0]), let y = exactInt32(v[1]), let w = exactInt32(v[2]), let h = exactInt32(v[3]),
                            v[4].isFinite
                        else {
                            throw fail(r, "a Haar rectangle needs whole x y width height and a finite weight")
                        }
                        guard haarRectInside(x, y, w, h, tilted: tilted, width: windowSize.width, height: windowSize.height) else {
                            throw fail(r, "rectangle \(x) \(y) \(w) \(h) lies outside the \(windowSize.width)×\(windowSize.height) window")
                        }
                        rects.append((x, y, w, h, Float(v[4])))
                    }
                    guard (2...3).contains(rects.count) else { throw fail(f, "a Haar feature has 2 or 3 rectangles") }
                    features.append(HaarFeature(rects: rects, tilted: tilted))
                    let threshold = Float(try numbers(try required(n, "threshold")).first ?? .nan)
                    guard threshold.isFinite else { throw fail(n, "the node's threshold is not a finite number") }
                    func side(_ valName: String, _ nodeName: String) throws -> Int32 {
                        if let v = n.child(valName) {
                            let leaf = Float(try numbers(v).first ?? .nan)
                            guard leaf.isFinite else { throw fail(v, "\(valName) is not a finite number") }
                            leaves.append(leaf)
                            return -Int32(leaves.count - 1)
                        }
                        // A child node comes after its parent, or detection could loop forever.
                        guard let c = n.child(nodeName), let v = try numbers(c).first, let idx = exactInt32(v), Int(idx) < raw.count, Int(idx) > j
                        else {
                            throw fail(n, "node needs \(valName) or a valid \(nodeName) (a later node of the tree)")
                        }
                        return Int32(idx)
                    }
                    let left = try side("left_val", "left_node"), right = try side("right_val", "right_node")
                    nodes.append(Node(left: left, right: right, feature: Int32(features.count - 1), threshold: threshold, subset: []))
                }
                guard !nodes.isEmpty else { throw fail(tree, "empty tree") }
                trees.append(Tree(nodes: nodes, leaves: leaves))
            }
            let threshold = Float(try numbers(try required(st, "stage_threshold")).first ?? .nan)
            guard threshold.isFinite, !trees.isEmpty else { throw fail(st, "stage needs trees and a stage_threshold") }
            stages.append(Stage(threshold: threshold - 1e-5, trees: trees))
        }
        guard !stages.isEmpty else { throw fail(cascade, "no stages") }
        self.stages = stages
        self.haarFeatures = features
    }
}

/// Whether a Haar rectangle lies inside a `width`×`height` window; a tilted one is rotated 45°
/// about its top corner (x, y), spanning x − height … x + width and y … y + width + height.
/// Computed in Int, so hostile Int32 values cannot overflow.
func haarRectInside(_ x: Int32, _ y: Int32, _ w: Int32, _ h: Int32, tilted: Bool, width: Int, height: Int) -> Bool {
    let (x, y, w, h) = (Int(x), Int(y), Int(w), Int(h))
    return tilted
        ? x - h >= 0 && x + w <= width && y >= 0 && y + w + h <= height && w >= 0 && h >= 0
        : x >= 0 && y >= 0 && x + w <= width && y + h <= height && w > 0 && h > 0
}

/// A whole number from a cascade file, or nil when it is not one or out of Int32's range
/// (converting blindly would trap on hostile files).
func exactInt32(_ v: Double) -> Int32? {
    guard v.isFinite, v == v.rounded(), v >= Double(Int32.min), v <= Double(Int32.max) else { return nil }
    return Int32(v)
}

/// A malformed cascade file: the file, the element path, its line and what is wrong.
public struct CascadeError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var element: String
    public var line: Int
    public var message: String
    public var description: String { "\(file):\(line): <\(element)>: \(message)" }
}

/// A small DOM built with Foundation's SAX parser, keeping each element's line.
/// The offset of a `<?` that is not the leading XML declaration, if any.
func findProcessingInstruction(_ b: [UInt8]) -> Int? {
    var start = 0
    while start < b.count,
        b[start] == 0x20 || b[start] == 0x0A || b[start] == 0x0D || b[start] == 0x09 || b[start] == 0xEF || b[start] == 0xBB || b[start] == 0xBF
    { start += 1 }
    var i = start + 1
    while i + 1 < b.count {
        if b[i] == 0x3C && b[i + 1] == 0x3F { return i }
        i += 1
    }
    guard b.count > start + 1, b[start] == 0x3C, b[start + 1] == 0x3F else { return nil }
    // The declaration itself must be a real one (`<?xml version=…?>`); `<?xml?>` and other
    // targets reach the same trap.
    guard b[start...].starts(with: Array("<?xml ".utf8)) else { return start }
    let end = (start..<(b.count - 1)).first { b[$0] == 0x3F && b[$0 + 1] == 0x3E } ?? b.count
    let decl = String(decoding: b[start..<end], as: UTF8.self)
    return decl.contains("version=") ? nil : start
}

enum XMLTree {
    final class Element {
        let name: String
        let line: Int
        let path: String
        var text = ""
        var children: [Element] = []
        init(name: String, line: Int, path: String) {
            self.name = name
            self.line = line
            self.path = path
        }
        func child(_ n: String) -> Element? { children.first { $0.name == n } }
    }

    final class Builder: NSObject, XMLParserDelegate {
        var stack: [Element] = []
        var root: Element?
        weak var parser: XMLParser?
        /// Elements may nest this deep (a cascade needs 10): each keeps its path, so memory
        /// grows with the square of the depth, and releasing the tree recurses through it.
        let maxDepth: Int
        /// Where parsing stopped for nesting deeper than `maxDepth`.
        var tooDeep: (line: Int, path: String)?

        init(maxDepth: Int) { self.maxDepth = maxDepth }

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            guard tooDeep == nil else { return }
            guard stack.count < maxDepth else {
                tooDeep = (parser.lineNumber, stack.last?.path ?? "")
                parser.abortParsing()
                return
            }
            let path = (stack.last.map { $0.path + "/" } ?? "") + name
            let e = Element(name: name, line: parser.lineNumber, path: path)
            stack.last?.children.append(e)
            if stack.isEmpty { root = e }
            stack.append(e)
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard tooDeep == nil else { return }
            _ = stack.popLast()
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard tooDeep == nil else { return }
            stack.last?.text += string
        }
    }

    static func parse(_ data: Data, file: String, maxDepth: Int) throws -> Element {
        // FoundationXML traps on comments that are not valid UTF-8 (found by fuzzing), so
        // invalid text is rejected here first.
        let bytes = [UInt8](data)
        if String(validating: bytes, as: UTF8.self) == nil {
            var line = 1
            var valid = 0
            var i = 0
            while i < bytes.count {  // find the first invalid sequence
                let b = bytes[i]
                let len = b < 0x80 ? 1 : b >> 5 == 0x6 ? 2 : b >> 4 == 0xE ? 3 : b >> 3 == 0x1E ? 4 : 0
                guard len > 0, i + len <= bytes.count, String(validating: bytes[i..<(i + len)], as: UTF8.self) != nil else { break }
                if b == 10 { line += 1 }
                i += len
                valid = i
            }
            throw CascadeError(file: file, element: "", line: line, message: "not valid UTF-8 text (byte \(valid))")
        }
        // FoundationXML also traps on processing instructions without data (fuzzing found
        // that too): the only one a cascade file has is the XML declaration at the start.
        if let pi = findProcessingInstruction(bytes) {
            let line = bytes[..<pi].reduce(1) { $1 == 10 ? $0 + 1 : $0 }
            throw CascadeError(
                file: file, element: "", line: line, message: "processing instructions (<?…?>) are not allowed after the XML declaration")
        }
        let parser = XMLParser(data: data)
        let b = Builder(maxDepth: maxDepth)
        parser.delegate = b
        let parsed = parser.parse()
        if let (line, path) = b.tooDeep {
            throw CascadeError(
                file: file, element: path, line: line, message: "elements nested more than \(b.maxDepth) deep (ResourceLimits.maxNestingDepth)")
        }
        guard parsed, let root = b.root else {
            let line = parser.lineNumber
            let why = parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed XML"
            throw CascadeError(file: file, element: b.stack.last?.path ?? "", line: line, message: "XML error: \(why)")
        }
        return root
    }
}
