import FrameFlow

extension EventSettings {
    /// The `EVENT_SETTINGS` side packet: the settings as text in the protobuf text format (what
    /// a fleet camera's `events { … }` block holds; `--side event_settings=@zones.pbtxt` reads a
    /// file; `EventSettings.textFormat` writes one). When given it replaces the node's options.
    public static let sidePacket = InputSidePacket<String>("EVENT_SETTINGS", optional: true)

    /// The settings a node runs with: the side packet's when given, else `options`.
    static func resolve(_ options: EventSettings, _ cc: CalculatorContext) throws -> EventSettings {
        guard let text = try cc.value(sidePacket) else { return options }
        return try parse(text, what: "EVENT_SETTINGS of \(cc.nodeName)")
    }

    /// The objects' units: pixels when the frame size is known (the boxes are then taken as
    /// pixels), else whatever the boxes are in (the points are used as written).
    static func scale(_ size: ImageSize?) -> (width: Double, height: Double, scale: Bool) {
        guard let size else { return (1, 1, false) }
        return (Double(size.width), Double(size.height), true)
    }
}
