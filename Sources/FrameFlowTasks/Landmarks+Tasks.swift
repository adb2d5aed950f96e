import FrameFlow

extension Array where Element == Category {
    /// A classification list's classes as categories.
    init(_ list: ClassificationList) { self = list.classification.map(Category.init) }
}

extension Packet {
    /// The payload as `T`, or nil when the packet is absent or holds another type.
    func value<T>(_: T.Type) -> T? { try? get(T.self) }
}

extension Optional where Wrapped == Packet {
    /// The packet's payload as `T`, or nil.
    func value<T>(_: T.Type) -> T? { self.flatMap { try? $0.get(T.self) } }
}
