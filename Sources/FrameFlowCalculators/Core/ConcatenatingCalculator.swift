import FrameFlow

/// What MediaPipe's concatenate calculators share, the vector ones
/// (`ConcatenateVectorCalculator`) and the list ones (`ConcatenateListsCalculator`): any number
/// of untagged inputs whose elements are joined in input order into one untagged output at the
/// input timestamp; inputs without a packet add nothing, and `only_emit_if_all_present` sends
/// nothing unless every input has a packet. A subclass says which elements a packet holds
/// (`elements(of:atPosition:_:)`) and what the output packet is (`output(_:at:)`); it is not
/// registered itself.
open class ConcatenatingCalculator<Element>: Calculator {
    public typealias Options = ConcatenateVectorCalculatorOptions

    /// Any number of untagged inputs; one untagged output (checked in `open`).
    public static var contract: CalculatorContract { CalculatorContract(acceptsAnyPorts: true) }

    public let options: Options

    public required init(options: Options) { self.options = options }

    open func open(_ cc: CalculatorContext) throws {
        guard cc.inputCount >= 1, cc.outputCount == 1 else {
            throw GraphError(
                .invalidPort, "takes one or more input streams and one output stream, got \(cc.inputCount) and \(cc.outputCount)",
                node: cc.nodeName)
        }
    }

    open func process(_ cc: CalculatorContext) throws {
        if options.onlyEmitIfAllPresent && (0..<cc.inputCount).contains(where: { cc.input(at: $0).isEmpty }) { return }
        var joined: [Element] = []
        for i in 0..<cc.inputCount {
            let packet = cc.input(at: i)
            if packet.isEmpty { continue }
            joined += try elements(of: packet, atPosition: i, cc)
        }
        cc.emit(packet: output(joined, at: cc.inputTimestamp), atPosition: 0)
    }

    /// The elements that `packet`, non-empty, of the input at `position` adds; throws when it
    /// holds something else.
    open func elements(of packet: Packet, atPosition position: Int, _ cc: CalculatorContext) throws -> [Element] {
        fatalError("\(Self.self) must override elements(of:atPosition:_:)")
    }

    /// The output packet of the joined `elements` at `timestamp`.
    open func output(_ elements: [Element], at timestamp: Timestamp) -> Packet {
        fatalError("\(Self.self) must override output(_:at:)")
    }
}
