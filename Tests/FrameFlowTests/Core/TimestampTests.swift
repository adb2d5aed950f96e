import FrameFlow
import Testing

@Suite struct TimestampTests {
    @Test func specialValuesAreOrdered() {
        let order: [Timestamp] = [.unset, .unstarted, .preStream, .min, 0, .max, .postStream, .oneOverPostStream, .done]
        #expect(order == order.sorted())
        #expect(Set(order).count == order.count)
    }

    @Test func nextAndRange() {
        #expect(Timestamp(5).next == Timestamp(6))
        #expect(Timestamp.done.next == .done)
        #expect(Timestamp.preStream.next == .min)
        #expect(Timestamp(0).isRangeValue && !Timestamp.done.isRangeValue && !Timestamp.postStream.isRangeValue)
        #expect(Timestamp.postStream.isAllowedInStream && !Timestamp.unset.isAllowedInStream)
        #expect(Timestamp(seconds: 1.5).microseconds == 1_500_000)
        #expect("\(Timestamp(42))" == "42µs" && "\(Timestamp.done)" == "Timestamp.done")
    }
}
