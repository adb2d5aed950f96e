import FrameFlow
import Foundation

/// Sleeps for `microseconds`, then passes its input on: a stand-in for a slow node in tests of
/// scheduling, back-pressure and flow limiting.
public final class SleepCalculator: Calculator {
    public struct Options: CalculatorOptions {
        /// How long each `process` call sleeps.
        public var microseconds = 2000
        public init() {}
        public init(microseconds: Int) { self.microseconds = microseconds }
    }
    public static let contract = CalculatorContract(inputs: [PortSpec("")], outputs: [PortSpec("")], concurrentProcess: true)
    let delay: UInt32
    public init(options: Options) { delay = UInt32(options.microseconds) }
    public func process(_ cc: CalculatorContext) throws {
        usleep(delay)
        cc.emit(packet: cc.input(at: 0), atPosition: 0)
    }
}
