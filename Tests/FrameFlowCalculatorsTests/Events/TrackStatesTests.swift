import Testing

@testable import FrameFlowCalculators

/// The per-track bookkeeping the zone, line and event calculators share.
@Suite struct TrackStatesTests {
    static func track(_ id: Int, frame: Int, _ state: TrackedObject.State = .tracked) -> TrackedObject {
        TrackedObject(id: id, state: state, box: .init(x1: 0, y1: 0, x2: 10, y2: 20), score: 0.9, lastFrame: frame)
    }

    @Test func statesAreMadeOnceMatchedFreshAndLetGoAfterTwoMissingPackets() {
        var states = TrackStates<[Bool]>()  // the `fresh` flags each track saw
        var made: [Int] = []
        func make(_ t: TrackedObject) -> [Bool] {
            made.append(t.id)
            return []
        }
        func step(_ tracks: [TrackedObject]) -> [(id: Int, state: [Bool])] {
            states.update(tracks, make: make) { _, fresh, s in s.append(fresh) }
        }
        #expect(step([Self.track(3, frame: 1), Self.track(1, frame: 1)]).isEmpty)
        // Track 3 lost (not fresh), then matched again in the same frame number (not fresh), then a new frame.
        #expect(step([Self.track(3, frame: 1, .lost), Self.track(1, frame: 2)]).isEmpty)
        #expect(step([Self.track(3, frame: 1), Self.track(1, frame: 3)]).isEmpty)
        #expect(step([Self.track(3, frame: 4)]).isEmpty)  // 1 missing once: kept
        #expect(step([Self.track(1, frame: 5), Self.track(3, frame: 5)]).isEmpty)  // back: its count starts again
        #expect(made == [3, 1] && states.ids == [3, 1])
        #expect(step([]).isEmpty)
        let gone = step([])
        #expect(gone.map(\.id) == [3, 1])  // in order of first appearance
        #expect(gone[0].state == [true, false, false, true, true] && gone[1].state == [true, true, true, true])
        #expect(states.isEmpty)
        // A track let go and seen again is made anew.
        _ = step([Self.track(1, frame: 9), Self.track(2, frame: 9)])
        #expect(made == [3, 1, 1, 2])
        #expect(states.removeAll().map(\.id) == [1, 2] && states.isEmpty)
    }
}
