import FrameFlow
import Foundation
import FrameFlowTestSupport
import Synchronization

/// Small calculators for engine tests.

final class AddCalculator: Calculator {
    struct Options: CalculatorOptions, Equatable {
        static let typeName: String? = "test.AddOptions"
        enum Mode: String, Codable { case add = "ADD", subtract = "SUBTRACT" }
        struct Range: Codable, Equatable { var low = 0; var high = 100 }
        var amount = 1
        var gain = 1.0
        var mode = Mode.add
        var label = ""
        var range = Range()
        var extra: [Int] = []
        var note: String?
        init() {}
    }
    static let contract = CalculatorContract(inputs: [PortSpec("", Int.self)], outputs: [PortSpec("", Int.self)])
    var options: Options
    init(options: Options) { self.options = options }
    func update(options: Options) throws { self.options = options }
    func process(_ cc: CalculatorContext) throws {
        let v = try cc.input(as: Int.self)
        try cc.emit(options.mode == .add ? v + options.amount : v - options.amount)
    }
}

/// Emits even numbers only: at odd timestamps it emits nothing.
final class EvenFilterCalculator: Calculator {
    static let contract = CalculatorContract(inputs: [PortSpec("", Int.self)], outputs: [PortSpec("", Int.self)])
    init(options: NoOptions) {}
    func process(_ cc: CalculatorContext) throws {
        let v = try cc.input(as: Int.self)
        if v % 2 == 0 { try cc.emit(v) }
    }
}

/// Sums inputs A and B; records which were present.
final class SumCalculator: Calculator {
    static let contract = CalculatorContract(
        inputs: [PortSpec("A", Int.self), PortSpec("B", Int.self)], outputs: [PortSpec("SUM", Int.self)])
    init(options: NoOptions) {}
    func process(_ cc: CalculatorContext) throws {
        let a = cc.hasInput("A") ? try cc.input("A", as: Int.self) : 0
        let b = cc.hasInput("B") ? try cc.input("B", as: Int.self) : 1000
        try cc.emit(a + b, tag: "SUM")
    }
}

final class ToStringCalculator: Calculator {
    static let contract = CalculatorContract(inputs: [PortSpec("", Int.self)], outputs: [PortSpec("", String.self)])
    init(options: NoOptions) {}
    func process(_ cc: CalculatorContext) throws { try cc.emit("\(try cc.input(as: Int.self))") }
}

struct Boom: Error, CustomStringConvertible { var description: String { "boom at the bad frame" } }

/// Throws when it sees `failAt`.
final class FailingCalculator: Calculator {
    struct Options: CalculatorOptions { var failAt = 5; init() {} }
    static let contract = CalculatorContract(inputs: [PortSpec("", Int.self)], outputs: [PortSpec("", Int.self)])
    static let closes = Atomic<Int>(0)
    let failAt: Int
    init(options: Options) { failAt = options.failAt }
    func process(_ cc: CalculatorContext) throws {
        let v = try cc.input(as: Int.self)
        if v == failAt { throw Boom() }
        try cc.emit(v)
    }
    func close(_ cc: CalculatorContext) throws { FailingCalculator.closes.add(1, ordering: .relaxed) }
}

/// Emits at a fixed timestamp: the second call breaks the order.
final class BadTimestampCalculator: Calculator {
    static let contract = CalculatorContract(inputs: [PortSpec("")], outputs: [PortSpec("")])
    init(options: NoOptions) {}
    func process(_ cc: CalculatorContext) throws { try cc.emit(1, at: 100) }
}

/// A source: emits 0..<count.
final class CounterSourceCalculator: Calculator {
    struct Options: CalculatorOptions { var count = 10; init() {} }
    static let contract = CalculatorContract(outputs: [PortSpec("", Int.self)], timestampOffset: nil)
    let count: Int
    var i = 0
    init(options: Options) { count = options.count }
    func process(_ cc: CalculatorContext) throws {
        guard i < count else { cc.finishSource(); return }
        try cc.emit(i, at: Timestamp(Int64(i)))
        i += 1
    }
}

/// Uses side packets: input OFFSET, output side packet DOUBLED.
final class SideCalculator: Calculator {
    static let contract = CalculatorContract(
        inputs: [PortSpec("", Int.self)], outputs: [PortSpec("", Int.self)],
        inputSidePackets: [PortSpec("OFFSET", Int.self)], outputSidePackets: [PortSpec("DOUBLED", Int.self, optional: true)])
    var offset = 0
    init(options: NoOptions) {}
    func open(_ cc: CalculatorContext) throws {
        offset = try cc.sidePacket("OFFSET", as: Int.self)
        try cc.setSidePacket(offset * 2, tag: "DOUBLED")
    }
    func process(_ cc: CalculatorContext) throws { try cc.emit(try cc.input(as: Int.self) + offset) }
}

let testRegistry = CalculatorRegistry([
    AddCalculator.self, EvenFilterCalculator.self, SumCalculator.self, ToStringCalculator.self,
    FailingCalculator.self, SleepCalculator.self, BadTimestampCalculator.self, CounterSourceCalculator.self,
    SideCalculator.self,
])
