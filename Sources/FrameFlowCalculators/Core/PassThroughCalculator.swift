import FrameFlow

/// Passes every input packet unchanged to the output at the same position
/// (input 0 → output 0, …), as MediaPipe's `PassThroughCalculator`.
///
/// Inputs: any number, any tags. Outputs: as many as inputs.
///
/// Example usage:
/// ```
/// node {
///   calculator: "PassThroughCalculator"
///   input_stream: "in"
///   input_stream: "VIDEO:frames"
///   output_stream: "out"
///   output_stream: "VIDEO:frames_copy"
/// }
/// ```
public final class PassThroughCalculator: Calculator {
    public static let contract = CalculatorContract(acceptsAnyPorts: true)

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        for i in 0..<Swift.min(cc.inputCount, cc.outputCount) {
            let p = cc.input(at: i)
            if !p.isEmpty { cc.emit(packet: p, atPosition: i) }
        }
    }
}
