/// The events calculators' state per track: made when a track id first appears, handed over on
/// every `TRACKS` packet the track is in, and let go once the track has been missing from two
/// packets in a row (ByteTrack can drop a track and bring it back in the next frame, so one
/// missing packet does not end it). `ZoneCalculator`, `LineCounterCalculator` and
/// `EventBuilderCalculator` keep their per-track bookkeeping in one of these.
struct TrackStates<State> {
    private struct Entry {
        var state: State
        var lastFrame = Int.min
        var absent = 0
    }

    private var entries: [Int: Entry] = [:]
    /// The ids held, in order of first appearance.
    private(set) var ids: [Int] = []

    /// Whether no track is held.
    var isEmpty: Bool { ids.isEmpty }

    /// Calls `body` for each of `tracks` with its state (made by `make` when the id is new) and
    /// whether the tracker matched it to a detection since the last packet (`fresh`: tracked,
    /// with a frame it had not been matched in before); then lets go of the tracks missing from
    /// this packet and the one before, returned in order of first appearance.
    mutating func update(
        _ tracks: [TrackedObject], make: (TrackedObject) throws -> State, _ body: (TrackedObject, _ fresh: Bool, inout State) throws -> Void
    ) rethrows -> [(id: Int, state: State)] {
        var present = Set<Int>()
        for t in tracks {
            present.insert(t.id)
            var e: Entry
            if let held = entries[t.id] {
                e = held
            } else {
                e = Entry(state: try make(t))
                ids.append(t.id)
            }
            e.absent = 0
            let fresh = t.state == .tracked && t.lastFrame != e.lastFrame
            if fresh { e.lastFrame = t.lastFrame }
            try body(t, fresh, &e.state)
            entries[t.id] = e
        }
        var gone: [(id: Int, state: State)] = []
        for id in ids where !present.contains(id) {
            entries[id]!.absent += 1
            if entries[id]!.absent >= 2 { gone.append((id, entries.removeValue(forKey: id)!.state)) }
        }
        if !gone.isEmpty { ids.removeAll { entries[$0] == nil } }
        return gone
    }

    /// Lets go of every track, returned in order of first appearance.
    mutating func removeAll() -> [(id: Int, state: State)] {
        defer {
            entries = [:]
            ids = []
        }
        return ids.map { ($0, entries[$0]!.state) }
    }
}
