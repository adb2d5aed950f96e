import FrameFlow
import Foundation

/// Sleeps for `microseconds`, then passes its input on: a stand-in for a slow node in tests of
/// scheduling, back-pressure and flow limiting.
///
/// Options: { microseconds (2000, 0…10000000) }.
public final class SleepCalculator: Calculator {
    public struct Options: CalculatorOptions {
        /// How long each `process` call sleeps.
        public var microseconds = 2000
        public init() {}
        public init(microseconds: Int) { self.microseconds = microseconds }
        public func validate() throws { try OptionCheck.range(microseconds, 0...10_000_000, "microseconds") }
    }
    public static let contract = CalculatorContract(inputs: [PortSpec("")], outputs: [PortSpec("")], concurrentProcess: true)
    let delay: UInt32
    public init(options: Options) { delay = UInt32(clamping: options.microseconds) }
    public func process(_ cc: CalculatorContext) throws {
        usleep(delay)
        cc.emit(packet: cc.input(at: 0), atPosition: 0)
    }
}
