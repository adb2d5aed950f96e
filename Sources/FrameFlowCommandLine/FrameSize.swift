/// `WxH` with two positive whole numbers, as `--size` and `--window-size` take it.
struct FrameSize: Equatable {
    var width: Int
    var height: Int

    /// The size `text` names, or nil when it is not `WxH` with positive numbers.
    init?(_ text: String) {
        let p = text.split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard p.count == 2, let w = p[0], let h = p[1], w > 0, h > 0 else { return nil }
        (width, height) = (w, h)
    }
}
