/// A ByteTrack multi-object tracker with the semantics of supervision 0.27's `sv.ByteTrack`
/// (its tests check ids against that tracker's), plus per-track state for events.
///
/// Each `update` is one frame: tracks (confirmed and lost) are predicted with a
/// `BoxKalmanFilter`; detections scoring above `trackActivationThreshold` are matched first
/// (cost 1 − IoU × score, optimal assignment, at most `minimumMatchingThreshold`), then the
/// tracks left over are matched to the weak detections (scores in (0.1, threshold), cost 1 − IoU
/// ≤ 0.5); tracks still unmatched become lost. Tentative tracks (one frame old) take the strong
/// detections left (≤ 0.7) or are dropped; the strong detections left start tracks if they score
/// at least threshold + 0.1. Lost tracks are dropped after `lostTrackBuffer` × frameRate/30
/// frames. A track gets its id (1, 2, …) once matched `minimumConsecutiveFrames` frames in a
/// row (at its start with 1; every track of the very first frame is confirmed at once); the
/// output is the input detections matched (IoU ≥ 0.5, optimal) to the confirmed tracks of this
/// frame, in input order. The reference's quirks are kept on purpose: a track dropped as lost
/// can still be found again in the next frame, and duplicates (a tracked and a lost track with
/// IoU > 0.85) keep the longer-lived one.
///
/// Stationary (as Frigate's `stationary` flag): a track is stationary once its detected box's
/// centre has stayed within `stationaryThreshold` × the box's height of where it settled for
/// `stationaryFrames` frames; a larger move restarts the count.
public final class ByteTracker {
    /// The tracker's settings (supervision's `ByteTrack` arguments, and stationary/history).
    public struct Parameters: Sendable, Equatable {
        /// Detections scoring above it are matched first; new tracks need it + 0.1.
        public var trackActivationThreshold = 0.25
        /// Frames (at 30 fps; scaled by `frameRate`) a lost track is kept.
        public var lostTrackBuffer = 30
        /// The highest first-stage cost (1 − IoU × score) a match may have.
        public var minimumMatchingThreshold = 0.8
        /// The video's frame rate (only scales `lostTrackBuffer`, as in the reference).
        public var frameRate = 30.0
        /// Frames in a row a track must be matched before it gets an id.
        public var minimumConsecutiveFrames = 1
        /// The distance, in box heights, the centre may move and still count as standing still.
        public var stationaryThreshold = 0.1
        /// Motionless frames after which a track is stationary.
        public var stationaryFrames = 50
        /// Matched detections kept per track.
        public var historyLength = 64
        /// The defaults (supervision's, and 0.1 box heights for 50 frames, 64 boxes).
        public init() {}
    }

    /// A detection given to `update`: a box (x1, y1, x2, y2), its score and optionally its label
    /// (which does not take part in matching; the track keeps its latest detection's).
    public struct Input: Sendable, Hashable {
        public var x1: Double, y1: Double, x2: Double, y2: Double
        public var score: Double
        public var label: String?
        public var labelID: Int?
        /// A detection from its box's edges, its score (0…1) and label.
        public init(x1: Double, y1: Double, x2: Double, y2: Double, score: Double, label: String? = nil, labelID: Int? = nil) {
            (self.x1, self.y1, self.x2, self.y2, self.score) = (x1, y1, x2, y2, score)
            (self.label, self.labelID) = (label, labelID)
        }
    }

    /// An input detection and the confirmed track it belongs to.
    public struct Assignment: Sendable, Hashable {
        /// Its index in `update`'s input.
        public var detection: Int
        /// Its track (box and score: this detection's).
        public var track: TrackedObject
    }

    /// The settings it was made with.
    public let parameters: Parameters
    /// Frames processed (the first is 1).
    public private(set) var frame = 0
    private let maxTimeLost: Int
    private var tracked: [Track] = []
    private var lost: [Track] = []
    private var removed: [Track] = []
    private var nextInternalID = 0
    private var nextExternalID = 1

    /// A tracker with no tracks yet.
    public init(_ parameters: Parameters = Parameters()) {
        self.parameters = parameters
        // As the reference: int(frame_rate / 30 × buffer), truncated.
        let t = parameters.frameRate / 30 * Double(parameters.lostTrackBuffer)
        maxTimeLost = t < Double(Int.max / 2) ? Int(t) : Int.max / 2
    }

    /// The confirmed tracks not yet dropped (tracked and lost), by id.
    public var tracks: [TrackedObject] {
        (tracked + lost).filter { $0.state != .removed && $0.externalID > 0 && $0.confirmed }.map { $0.snapshot }
            .sorted { $0.id < $1.id }
    }

    /// Runs `frames` frames without detections (a gap in the video): the same as that many
    /// `update([])` calls, but once no track is left the rest only advance the frame count.
    public func skip(frames: Int, time: Int64) {
        var left = max(frames, 0)
        while left > 0 && !(tracked.isEmpty && lost.isEmpty) {
            _ = update([], time: time)
            left -= 1
        }
        frame += left
    }

    /// One frame: `detections` (boxes in any one unit: pixels keep the reference's noise model),
    /// `time` the caller's time for the tracks' history. Returns the detections that belong to
    /// confirmed tracks, in input order.
    public func update(_ detections: [Input], time: Int64? = nil) -> [Assignment] {
        frame += 1
        let now = time ?? Int64(frame)
        let threshold = parameters.trackActivationThreshold
        var activated: [Track] = [], refound: [Track] = [], newlyLost: [Track] = [], newlyRemoved: [Track] = []
        var strong: [Candidate] = [], weak: [Candidate] = []
        for d in detections {
            if d.score > threshold {
                strong.append(Candidate(d))
            } else if d.score > 0.1 && d.score < threshold {
                weak.append(Candidate(d))
            }
        }

        let unconfirmed = tracked.filter { !$0.confirmed }
        let confirmedTracked = tracked.filter { $0.confirmed }

        // First association: confirmed and lost tracks, predicted, against the strong detections.
        let pool = Self.joined(confirmedTracked, lost)
        let singleNoise = pool.allSatisfy { $0.filter.single }
        for t in pool {
            if t.state != .tracked { t.filter.mean[7] = 0 }
            t.filter.predict(singleNoise: singleNoise)
        }
        let first = Self.match(
            Self.fused(Self.iouCost(Self.boxes(pool), Self.boxes(strong)), strong), rows: pool.count, columns: strong.count,
            threshold: parameters.minimumMatchingThreshold)
        for (r, c) in first.matches {
            let t = pool[r]
            if t.state == .tracked {
                if t.update(strong[c], frame: frame, time: now, parameters) { giveID(t) }
                activated.append(t)
            } else {
                t.reactivate(strong[c], frame: frame, time: now, parameters)
                refound.append(t)
            }
        }

        // Second association: tracks still tracked but unmatched, against the weak detections.
        let leftover = first.unmatchedRows.map { pool[$0] }.filter { $0.state == .tracked }
        let second = Self.match(
            Self.iouCost(Self.boxes(leftover), Self.boxes(weak)).map(Double.init), rows: leftover.count, columns: weak.count,
            threshold: 0.5, single: true)
        for (r, c) in second.matches {
            if leftover[r].update(weak[c], frame: frame, time: now, parameters) { giveID(leftover[r]) }
            activated.append(leftover[r])
        }
        for r in second.unmatchedRows where leftover[r].state != .lost {
            leftover[r].state = .lost
            newlyLost.append(leftover[r])
        }

        // Tentative tracks against the strong detections no track took.
        let rest = first.unmatchedColumns.map { strong[$0] }
        let third = Self.match(
            Self.fused(Self.iouCost(Self.boxes(unconfirmed), Self.boxes(rest)), rest), rows: unconfirmed.count, columns: rest.count,
            threshold: 0.7)
        for (r, c) in third.matches {
            if unconfirmed[r].update(rest[c], frame: frame, time: now, parameters) { giveID(unconfirmed[r]) }
            activated.append(unconfirmed[r])
        }
        for r in third.unmatchedRows {
            unconfirmed[r].state = .removed
            newlyRemoved.append(unconfirmed[r])
        }

        // New tracks from the strong detections still left.
        for c in third.unmatchedColumns where rest[c].score >= threshold + 0.1 {
            let t = Track(rest[c], internalID: nextInternalID, frame: frame, time: now, parameters)
            nextInternalID += 1
            if frame == 1 { t.confirmed = true }
            if parameters.minimumConsecutiveFrames == 1 { giveID(t) }
            activated.append(t)
        }

        // Lost tracks past the buffer go (listed as lost one more frame, as in the reference).
        for t in lost where frame - t.frame > maxTimeLost {
            t.state = .removed
            newlyRemoved.append(t)
        }

        tracked = tracked.filter { $0.state == .tracked }
        tracked = Self.joined(tracked, activated)
        tracked = Self.joined(tracked, refound)
        lost = Self.subtracting(lost, tracked)
        lost.append(contentsOf: newlyLost)
        lost = Self.subtracting(lost, removed)
        removed = newlyRemoved
        (tracked, lost) = Self.withoutDuplicates(tracked, lost)

        // The output: input detections (64-bit boxes) matched to this frame's confirmed tracks.
        let output = tracked.filter { $0.confirmed }
        guard !output.isEmpty else { return [] }
        let inputs = Boxes(values: detections.map { [$0.x1, $0.y1, $0.x2, $0.y2] }, single: false)
        let final = Self.match(
            Self.iouCost(inputs, Self.boxes(output)).map(Double.init), rows: detections.count, columns: output.count, threshold: 0.5,
            single: true)
        return final.matches.compactMap { d, t in
            output[t].externalID > 0 ? Assignment(detection: d, track: output[t].snapshot) : nil
        }
    }

    private func giveID(_ t: Track) {
        guard t.externalID <= 0 else { return }
        t.externalID = nextExternalID
        nextExternalID += 1
    }

    // MARK: - Tracks

    fileprivate enum TrackState { case tracked, lost, removed }

    /// A detection as the reference holds it: a 32-bit (x, y, w, h) box and a 64-bit score.
    fileprivate struct Candidate {
        let tlwh: [Float]
        let score: Double
        let input: Input
        init(_ d: Input) {
            tlwh = [Float(d.x1), Float(d.y1), Float(d.x2 - d.x1), Float(d.y2 - d.y1)]
            score = d.score
            input = d
        }
        var tlbr: [Float] { [tlwh[0], tlwh[1], tlwh[0] + tlwh[2], tlwh[1] + tlwh[3]] }
        var xyah: [Float] { [tlwh[0] + tlwh[2] / 2, tlwh[1] + tlwh[3] / 2, tlwh[2] / tlwh[3], tlwh[3]] }
    }

    fileprivate final class Track {
        var filter: BoxKalmanFilter
        var state = TrackState.tracked
        var confirmed = false
        var internalID: Int
        var externalID = -1
        var frame: Int
        let startFrame: Int
        var tracklet = 0
        var object: TrackedObject
        var anchor: (x: Double, y: Double)

        init(_ c: Candidate, internalID: Int, frame: Int, time: Int64, _ p: Parameters) {
            filter = BoxKalmanFilter(singleMeasurement: c.xyah)
            self.internalID = internalID
            self.frame = frame
            startFrame = frame
            let box = TrackedObject.Box(x1: c.input.x1, y1: c.input.y1, x2: c.input.x2, y2: c.input.y2)
            object = TrackedObject(
                id: -1, state: .tracked, box: box, score: c.score, filteredBox: box, topScore: c.score, firstFrame: frame,
                lastFrame: frame, firstSeen: time, lastSeen: time, hits: 1, isStationary: false, motionlessFrames: 0,
                history: [.init(frame: frame, time: time, box: box, score: c.score)], label: c.input.label, labelID: c.input.labelID)
            anchor = box.center
        }

        /// The filter's box (x1, y1, x2, y2), in 32-bit arithmetic while the mean is 32-bit.
        var tlbr: [Double] {
            let m = filter.mean
            if filter.single {
                let a = Float(m[2]), h = Float(m[3])
                let w = a * h
                let x = Float(m[0]) - w / 2, y = Float(m[1]) - h / 2
                return [Double(x), Double(y), Double(x + w), Double(y + h)]
            }
            let w = m[2] * m[3]
            let x = m[0] - w / 2, y = m[1] - m[3] / 2
            return [x, y, x + w, y + m[3]]
        }

        /// Matches the track to `c`; true when it has just been confirmed (an id is due).
        func update(_ c: Candidate, frame: Int, time: Int64, _ p: Parameters) -> Bool {
            self.frame = frame
            tracklet += 1
            filter.update(c.xyah)
            state = .tracked
            observe(c, frame: frame, time: time, p)
            guard tracklet == p.minimumConsecutiveFrames else { return false }
            confirmed = true
            return true
        }

        func reactivate(_ c: Candidate, frame: Int, time: Int64, _ p: Parameters) {
            filter.update(c.xyah)
            tracklet = 0
            state = .tracked
            self.frame = frame
            observe(c, frame: frame, time: time, p)
        }

        private func observe(_ c: Candidate, frame: Int, time: Int64, _ p: Parameters) {
            let box = TrackedObject.Box(x1: c.input.x1, y1: c.input.y1, x2: c.input.x2, y2: c.input.y2)
            let elapsed = frame - object.lastFrame
            let centre = box.center
            let dx = centre.x - anchor.x, dy = centre.y - anchor.y
            let limit = p.stationaryThreshold * abs(box.height)
            if dx * dx + dy * dy <= limit * limit {
                object.motionlessFrames += elapsed
            } else {
                anchor = centre
                object.motionlessFrames = 0
            }
            object.isStationary = object.motionlessFrames >= p.stationaryFrames
            object.box = box
            object.score = c.score
            object.label = c.input.label
            object.labelID = c.input.labelID
            object.topScore = max(object.topScore, c.score)
            object.lastFrame = frame
            object.lastSeen = time
            object.hits += 1
            object.history.append(.init(frame: frame, time: time, box: box, score: c.score))
            if object.history.count > p.historyLength { object.history.removeFirst(object.history.count - p.historyLength) }
        }

        var snapshot: TrackedObject {
            var o = object
            o.id = externalID
            o.state = state == .tracked ? .tracked : .lost
            let b = tlbr
            o.filteredBox = .init(x1: b[0], y1: b[1], x2: b[2], y2: b[3])
            return o
        }
    }

    // MARK: - Lists and matching (the reference's helpers)

    /// `a` then the tracks of `b` not in `a` (by internal id), in order.
    fileprivate static func joined(_ a: [Track], _ b: [Track]) -> [Track] {
        var seen = Set<Int>()
        return (a + b).filter { seen.insert($0.internalID).inserted }
    }

    /// `a` without the tracks of `b` (by internal id).
    fileprivate static func subtracting(_ a: [Track], _ b: [Track]) -> [Track] {
        let drop = Set(b.map { $0.internalID })
        var seen = Set<Int>()
        return a.filter { !drop.contains($0.internalID) && seen.insert($0.internalID).inserted }
    }

    /// Drops one of each tracked/lost pair closer than 0.15 in 1 − IoU: the younger one.
    fileprivate static func withoutDuplicates(_ a: [Track], _ b: [Track]) -> ([Track], [Track]) {
        let cost = iouCost(boxes(a), boxes(b))
        var dropA = Set<Int>(), dropB = Set<Int>()
        for i in 0..<a.count {
            for j in 0..<b.count where cost[i * b.count + j] < Float(0.15) {
                if a[i].frame - a[i].startFrame > b[j].frame - b[j].startFrame { dropB.insert(j) } else { dropA.insert(i) }
            }
        }
        return (
            a.enumerated().filter { !dropA.contains($0.offset) }.map { $0.element },
            b.enumerated().filter { !dropB.contains($0.offset) }.map { $0.element }
        )
    }

    /// Boxes (x1, y1, x2, y2) as one array of the reference: 32-bit values when `single`.
    fileprivate struct Boxes {
        var values: [[Double]]
        var single: Bool
    }

    fileprivate static func boxes(_ tracks: [Track]) -> Boxes {
        Boxes(values: tracks.map { $0.tlbr }, single: tracks.allSatisfy { $0.filter.single })
    }

    fileprivate static func boxes(_ candidates: [Candidate]) -> Boxes {
        Boxes(values: candidates.map { $0.tlbr.map(Double.init) }, single: true)
    }

    /// 1 − IoU for every (a, b) pair, row-major, with the reference's precision: intersections
    /// and the result in 32 bits, areas in each array's own precision.
    fileprivate static func iouCost(_ a: Boxes, _ b: Boxes) -> [Float] {
        func area(_ p: [Double], _ single: Bool) -> Double {
            single ? Double((Float(p[2]) - Float(p[0])) * (Float(p[3]) - Float(p[1]))) : (p[2] - p[0]) * (p[3] - p[1])
        }
        let bAreas = b.values.map { area($0, b.single) }
        var out = [Float](repeating: 1, count: a.values.count * b.values.count)
        for (i, p) in a.values.enumerated() {
            let areaA = area(p, a.single)
            for (j, q) in b.values.enumerated() {
                let w = max(Float(min(p[2], q[2])) - Float(max(p[0], q[0])), 0)
                let h = max(Float(min(p[3], q[3])) - Float(max(p[1], q[1])), 0)
                let inter = w * h
                let iou: Float
                if a.single && b.single {
                    let norm = Float(areaA) + Float(bAreas[j]) - inter
                    iou = norm > 0 ? inter / norm : 0
                } else {
                    let norm = areaA + bAreas[j] - Double(inter)
                    iou = norm > 0 ? Float(Double(inter) / norm) : 0
                }
                out[i * b.values.count + j] = 1 - iou
            }
        }
        return out
    }

    /// The reference's `fuse_score`: 1 − (1 − cost) × score, the product in 64 bits.
    fileprivate static func fused(_ cost: [Float], _ detections: [Candidate]) -> [Double] {
        guard !detections.isEmpty else { return [] }
        return cost.enumerated().map { k, c in 1 - Double(1 - c) * detections[k % detections.count].score }
    }

    /// The reference's `linear_assignment`: costs above `threshold` are capped just above it
    /// (in 32 bits for a 32-bit matrix), the optimal assignment is taken, and pairs above the
    /// threshold are dropped. Unmatched rows and columns come in ascending order.
    fileprivate static func match(_ cost: [Double], rows: Int, columns: Int, threshold: Double, single: Bool = false) -> (
        matches: [(Int, Int)], unmatchedRows: [Int], unmatchedColumns: [Int]
    ) {
        guard rows > 0, columns > 0 else { return ([], Array(0..<rows), Array(0..<columns)) }
        let cap = single ? Double(Float(threshold + 1e-4)) : threshold + 1e-4
        let capped = cost.map { $0 > threshold ? cap : $0 }
        let pairs = LinearAssignment.solve(capped, rows: rows, columns: columns) ?? []
        let matches = pairs.filter { capped[$0.row * columns + $0.column] <= threshold }.map { ($0.row, $0.column) }
        let usedRows = Set(matches.map { $0.0 }), usedColumns = Set(matches.map { $0.1 })
        return (matches, (0..<rows).filter { !usedRows.contains($0) }, (0..<columns).filter { !usedColumns.contains($0) })
    }
}
