import FrameFlow

/// A list the split and concatenate calculators work on element by element: a Swift array, or
/// a message holding one repeated field (a landmark list's landmarks, a classification list's
/// classifications).
public protocol ElementList {
    associatedtype Element
    /// The list's elements, in order.
    var elements: [Element] { get }
    /// A list of `elements`.
    init(elements: [Element])
}

extension Array: ElementList {
    public var elements: [Element] { self }
    public init(elements: [Element]) { self = elements }
}

extension LandmarkPointList: ElementList {
    public var elements: [LandmarkPoint<Space>] { landmark }
    public init(elements: [LandmarkPoint<Space>]) { self.init(elements) }
}

extension ClassificationList: ElementList {
    public var elements: [Classification] { classification }
    public init(elements: [Classification]) { self.init(elements) }
}
