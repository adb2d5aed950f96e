import CSDL2
import Foundation
import FrameFlow
import FrameFlowSinks
import Synchronization

/// How frames fill the window, as the iOS preview layer's video gravity.
public enum DisplayScaleMode: String, Sendable, CaseIterable {
    /// Whole frame visible, letterboxed (aspect fit).
    case fit
    /// Window filled, the overflow cropped (aspect fill).
    case fill
    /// Window filled, aspect ratio ignored.
    case stretch
}

/// A desktop window that shows an image stream: the newest frame wins (frames replaced
/// before they were shown are counted, never queued), presented with vsync; resizable;
/// the title shows the graph's name and the measured frame rate.
///
/// Keys: `q` or Esc close the window (the run then ends cleanly), space pauses and resumes,
/// `s` saves the frame on screen as `frameflow-snapshot-N.png`.
///
/// SDL wants its window used from one thread: create the window and call `run(until:)` on
/// the main thread; `submit` may be called from any thread.
public final class PreviewWindow: @unchecked Sendable {  // SDL objects are only touched by the thread in run(until:)
    private var window: OpaquePointer?
    private var renderer: OpaquePointer?
    private var texture: OpaquePointer?
    private var textureSize = (0, 0, PixelFormat.rgba8)
    private let pending = Locked<(frame: ImageFrame?, replaced: Int, received: Int)>((nil, 0, 0))
    private var current: ImageFrame?
    private var paused = false
    private var snapshots = 0
    private let title: String
    public var scaleMode: DisplayScaleMode
    /// Frames shown, and frames replaced by a newer one before they could be shown.
    public private(set) var shown = 0
    public var skipped: Int { pending.withLock { $0.replaced } }
    /// What the S key does with the frame on screen and a file name
    /// (`frameflow-snapshot-N.png`): nothing unless set (`ImageFileWriter.write` in the CLI,
    /// so that this module links no FFmpeg).
    public var saveSnapshot: ((ImageFrame, String) throws -> Void)?

    /// Opens the window. Throws before anything starts when no display is available.
    public init(title: String, width: Int = 960, height: Int = 540, scaleMode: DisplayScaleMode = .fit) throws {
        let env = ProcessInfo.processInfo.environment
        guard (env["DISPLAY"].map { !$0.isEmpty } ?? false) || (env["WAYLAND_DISPLAY"].map { !$0.isEmpty } ?? false) else {
            throw MediaError(
                .noDisplay, "window",
                "no display (DISPLAY and WAYLAND_DISPLAY are unset); write to a file instead")
        }
        self.title = title
        self.scaleMode = scaleMode
        SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "nearest")
        SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1")
        guard SDL_Init(ff_sdl_init_video()) == 0 else {
            throw MediaError(.noDisplay, "window", "cannot open the display (\(String(cString: SDL_GetError()))); write to a file instead")
        }
        let pos = Int32(ff_sdl_windowpos_centered())
        window = SDL_CreateWindow(title, pos, pos, Int32(width), Int32(height), SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_SHOWN.rawValue)
        guard window != nil else { throw MediaError(.noDisplay, "window", "cannot create a window: \(String(cString: SDL_GetError()))") }
        renderer =
            SDL_CreateRenderer(window, -1, SDL_RENDERER_PRESENTVSYNC.rawValue)
            ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue)
        guard renderer != nil else { throw MediaError(.noDisplay, "window", "cannot create a renderer: \(String(cString: SDL_GetError()))") }
    }

    deinit {
        if let texture { SDL_DestroyTexture(texture) }
        if let renderer { SDL_DestroyRenderer(renderer) }
        if let window { SDL_DestroyWindow(window) }
        SDL_Quit()
    }

    /// Offers a frame; it replaces a frame not yet shown (counted as skipped).
    public func submit(_ image: ImageFrame) {
        pending.withLock { p in
            if p.frame != nil { p.replaced += 1 }
            p.frame = image
            p.received += 1
        }
    }

    /// Shows frames until `done()` is true or the user closes the window (then `onClose`
    /// runs). Returns whether the user closed it.
    @discardableResult
    public func run(until done: () -> Bool, onClose: () -> Void) -> Bool {
        var event = SDL_Event()
        var lastTitle = monotonicNanoseconds()
        var shownAtTitle = 0
        while !done() {
            while SDL_PollEvent(&event) != 0 {
                if event.type == SDL_QUIT.rawValue {
                    onClose()
                    return true
                }
                if event.type == SDL_KEYDOWN.rawValue {
                    let key = event.key.keysym.sym
                    if key == Int32(SDLK_q.rawValue) || key == Int32(SDLK_ESCAPE.rawValue) {
                        onClose()
                        return true
                    } else if key == Int32(SDLK_SPACE.rawValue) {
                        paused.toggle()
                    } else if key == Int32(SDLK_s.rawValue), let current, let saveSnapshot {
                        snapshots += 1
                        try? saveSnapshot(current, "frameflow-snapshot-\(snapshots).png")
                    }
                }
            }
            if !paused,
                let next = pending.withLock({ p -> ImageFrame? in
                    defer { p.frame = nil }; return p.frame
                })
            {
                current = next
                shown += 1
            }
            draw()
            let now = monotonicNanoseconds()
            if now - lastTitle > 500_000_000 {
                let fps = Double(shown - shownAtTitle) / (Double(now - lastTitle) / 1e9)
                SDL_SetWindowTitle(window, String(format: "%@ — %.1f fps%@", title, fps, paused ? " — paused" : ""))
                lastTitle = now
                shownAtTitle = shown
            }
            SDL_Delay(paused ? 15 : 1)
        }
        return false
    }

    /// Where the frame goes in a `ww`×`wh` window: (source rect, destination rect).
    public static func layout(image: (Int, Int), window: (Int, Int), mode: DisplayScaleMode) -> (src: (Int, Int, Int, Int), dst: (Int, Int, Int, Int))
    {
        let (iw, ih) = image, (ww, wh) = window
        switch mode {
        case .stretch:
            return ((0, 0, iw, ih), (0, 0, ww, wh))
        case .fit:
            let s = min(Double(ww) / Double(iw), Double(wh) / Double(ih))
            let dw = Int(saturating: (Double(iw) * s).rounded()), dh = Int(saturating: (Double(ih) * s).rounded())
            return ((0, 0, iw, ih), ((ww - dw) / 2, (wh - dh) / 2, dw, dh))
        case .fill:
            let s = max(Double(ww) / Double(iw), Double(wh) / Double(ih))
            // A 0×0 window (minimised) makes s 0 and these NaN: 0.
            let sw = Int(saturating: (Double(ww) / s).rounded()), sh = Int(saturating: (Double(wh) / s).rounded())
            return (((iw - sw) / 2, (ih - sh) / 2, sw, sh), (0, 0, ww, wh))
        }
    }

    private func draw() {
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        if let image = current, let tex = textureFor(image) {
            var w: Int32 = 0, h: Int32 = 0
            SDL_GetRendererOutputSize(renderer, &w, &h)
            let l = Self.layout(image: (image.width, image.height), window: (Int(w), Int(h)), mode: scaleMode)
            var src = SDL_Rect(x: Int32(clamping: l.src.0), y: Int32(clamping: l.src.1), w: Int32(clamping: l.src.2), h: Int32(clamping: l.src.3))
            var dst = SDL_Rect(x: Int32(clamping: l.dst.0), y: Int32(clamping: l.dst.1), w: Int32(clamping: l.dst.2), h: Int32(clamping: l.dst.3))
            SDL_RenderCopy(renderer, tex, &src, &dst)
        }
        SDL_RenderPresent(renderer)
    }

    private func textureFor(_ image: ImageFrame) -> OpaquePointer? {
        var img = image
        if img.format != .rgba8 && img.format != .bgra8 {
            // Other formats are converted for display (gray, rgb, YUV).
            guard let converted = try? displayConvert(img) else { return nil }
            img = converted
        }
        if texture == nil || textureSize.0 != img.width || textureSize.1 != img.height || textureSize.2 != img.format {
            if let texture { SDL_DestroyTexture(texture) }
            let fmt = img.format == .rgba8 ? ff_sdl_pixelformat_rgba32() : ff_sdl_pixelformat_bgra32()
            texture = SDL_CreateTexture(renderer, fmt, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue), Int32(img.width), Int32(img.height))
            textureSize = (img.width, img.height, img.format)
        }
        SDL_UpdateTexture(texture, nil, img.planes[0].baseAddress, Int32(img.planes[0].bytesPerRow))
        return texture
    }

    private func displayConvert(_ img: ImageFrame) throws -> ImageFrame {
        var m = try ImagePool.shared.makeImage(width: img.width, height: img.height, format: .rgba8)
        for y in 0..<img.height {
            m.withMutableRow(y) { row in
                for x in 0..<img.width {
                    let p = img[x, y]
                    let (r, g, b): (UInt8, UInt8, UInt8) = p.count >= 3 && img.format.yuvRange == nil ? (p[0], p[1], p[2]) : (p[0], p[0], p[0])
                    row[4 * x] = r; row[4 * x + 1] = g; row[4 * x + 2] = b; row[4 * x + 3] = 255
                }
            }
        }
        return m.freeze()
    }
}

/// The window as a `frameflow run` output: frames are handed to the window; `finish` marks
/// the stream ended.
public final class WindowSink: PacketSink, @unchecked Sendable {  // submit is thread-safe; the flag is atomic
    public let window: PreviewWindow
    let stream: String
    private let ended = Atomic<Bool>(false)
    public init(window: PreviewWindow, stream: String) {
        self.window = window
        self.stream = stream
    }
    public func write(_ packet: Packet) throws {
        window.submit(try packet.get(ImageFrame.self, stream: stream))
    }
    public func finish() throws { ended.store(true, ordering: .relaxed) }
    public var isFinished: Bool { ended.load(ordering: .relaxed) }
}
