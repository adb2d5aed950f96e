import CFFmpeg
import Foundation
import FrameFlow
import FrameFlowSinks

/// A network destination of an output (`frameflow run --output URL`), checked before anything
/// is opened, and how FFmpeg writes to it:
///
/// | URL | container (FFmpeg muxer) | notes |
/// |---|---|---|
/// | `udp://HOST:PORT` | MPEG-TS (`mpegts`) | 1316-byte datagrams (7 TS packets) unless `pkt_size` is given |
/// | `rtp://HOST:PORT` | MPEG-TS in RTP (`rtp_mpegts`) | RTCP on PORT + 1 |
/// | `rtmp://HOST[:PORT]/APP/STREAM` (`rtmps`) | FLV (`flv`) | publishes to the server |
/// | `srt://HOST:PORT` | MPEG-TS (`mpegts`) | only where FFmpeg was built with libsrt |
/// | `rtsp://HOST[:PORT]/PATH` | RTSP (`rtsp`) | ANNOUNCE/RECORD to a server, interleaved over TCP |
///
/// The video is H.264. `init?(_:)` is nil for a destination that is not a URL (no `scheme://`:
/// a file); it throws for a URL FrameFlow does not write (naming the ones it does), a missing or
/// malformed host or port, or a protocol this FFmpeg lacks. Options in the URL's query
/// (`?pkt_size=1316`) are FFmpeg's and go to it unchanged.
public struct OutputURL: Sendable, Equatable {
    /// The URL as given.
    public let url: String
    /// The scheme, lower-cased (`udp`, `rtmp`, …).
    public let scheme: String
    /// The host name or address (an IPv6 address without its brackets).
    public let host: String
    /// The port, when the URL names one.
    public let port: Int?
    /// FFmpeg's muxer for the container (`mpegts`, `rtp_mpegts`, `flv`, `rtsp`).
    public let muxer: String

    /// One supported scheme: its container, FFmpeg's protocol, and whether a port is required.
    private struct Scheme {
        var name: String
        var muxer: String
        var protocolName: String
        var needsPort: Bool
        var form: String
    }

    private static let schemes: [Scheme] = [
        Scheme(name: "udp", muxer: "mpegts", protocolName: "udp", needsPort: true, form: "udp://HOST:PORT"),
        Scheme(name: "rtp", muxer: "rtp_mpegts", protocolName: "rtp", needsPort: true, form: "rtp://HOST:PORT"),
        Scheme(name: "rtmp", muxer: "flv", protocolName: "rtmp", needsPort: false, form: "rtmp://HOST/APP/STREAM"),
        Scheme(name: "rtmps", muxer: "flv", protocolName: "rtmps", needsPort: false, form: "rtmps://HOST/APP/STREAM"),
        Scheme(name: "srt", muxer: "mpegts", protocolName: "srt", needsPort: true, form: "srt://HOST:PORT"),
        Scheme(name: "rtsp", muxer: "rtsp", protocolName: "tcp", needsPort: false, form: "rtsp://HOST/PATH"),
    ]

    /// What `--output` takes, for error messages (a port is optional where none is shown).
    public static let supportedForms =
        schemes.map(\.form).joined(separator: ", ")
        + ", a .m3u8 playlist (HLS), a video file (.mp4 .mov .mkv .webm .avi .ts .flv), an image (.png .jpg), .jsonl, null or window"

    /// Parses `destination`; nil when it is not a URL (see the type's comment for what throws).
    public init?(_ destination: String) throws {
        guard let sep = destination.range(of: "://") else { return nil }
        let schemeText = destination[..<sep.lowerBound]
        guard let first = schemeText.first, first.isASCII, first.isLetter,
            schemeText.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) })
        else { return nil }  // "a/b://c" is a path
        let scheme = schemeText.lowercased()
        guard let known = Self.schemes.first(where: { $0.name == scheme }) else {
            throw MediaError(.unsupportedOutput, destination, "FrameFlow does not write to \(scheme):// URLs; outputs are \(Self.supportedForms)")
        }
        guard destination.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw MediaError(.invalidArgument, destination, "a URL cannot contain spaces or control characters")
        }
        // The authority: up to the path, query or fragment; user information is dropped.
        let rest = destination[sep.upperBound...]
        var authority = rest.prefix { !"/?#".contains($0) }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw MediaError(.invalidArgument, destination, "the IPv6 address has no closing ']'")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw MediaError(.invalidArgument, destination, "expected ':PORT' after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw MediaError(.invalidArgument, destination, "the URL has no host; expected \(known.form)") }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:%".contains($0)) }) else {
            throw MediaError(.invalidArgument, destination, "'\(host)' is not a host name or address")
        }
        var port: Int?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let p = Int(portText),
                (1...65535).contains(p)
            else {
                throw MediaError(.invalidArgument, destination, "the port must be a whole number from 1 to 65535, not '\(portText)'")
            }
            port = p
        } else if known.needsPort {
            throw MediaError(.invalidArgument, destination, "the URL has no port; expected \(known.form)")
        }
        guard Self.ffmpegWrites(known.protocolName) else {
            let why = scheme == "srt" ? "this FFmpeg was built without SRT (libsrt)" : "this FFmpeg has no '\(known.protocolName)' output protocol"
            throw MediaError(.unsupportedOutput, destination, "\(why); use another output (\(Self.supportedForms))")
        }
        guard av_guess_format(known.muxer, nil, nil) != nil else {
            throw MediaError(.unsupportedOutput, destination, "this FFmpeg has no '\(known.muxer)' muxer")
        }
        self.url = destination
        self.scheme = scheme
        self.host = String(host)
        self.port = port
        self.muxer = known.muxer
    }

    /// Looks the host up (`getaddrinfo`), so that an unknown host is reported as such (FFmpeg
    /// says only "Input/output error"); throws naming the URL and the host.
    func resolve() throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let r = getaddrinfo(host, nil, &hints, &list)
        if let list { freeaddrinfo(list) }
        guard r == 0 else {
            throw MediaError(.cannotWrite, url, "cannot connect: unknown host '\(host)' (\(String(cString: gai_strerror(r))))")
        }
    }

    /// Whether the linked FFmpeg lists `name` among its output protocols.
    static func ffmpegWrites(_ name: String) -> Bool { outputProtocols.contains(name) }

    /// The linked FFmpeg's output protocols (`avio_enum_protocols`), read once.
    static let outputProtocols: Set<String> = {
        var names: Set<String> = []
        var opaque: UnsafeMutableRawPointer?
        while let name = avio_enum_protocols(&opaque, 1) { names.insert(String(cString: name)) }
        return names
    }()

    /// Protocol options FrameFlow sets unless the URL or `--output-option` does: datagrams of
    /// whole TS packets for UDP and SRT; the socket time-out (µs) where the protocol has one;
    /// for SRT, up to 2 s for the listener to take the last packets when the stream ends (SRT's
    /// live mode drops them at once otherwise: none of a 60-frame burst arrived without it).
    func protocolDefaults(timeout: Double) -> [(key: String, value: String)] {
        let micros = "\(Int64(saturating: (timeout * 1e6).rounded()))"
        switch scheme {
        case "udp": return [("pkt_size", "1316")]
        case "srt": return [("payload_size", "1316"), ("linger", "2"), ("rw_timeout", micros)]
        case "rtsp": return []
        default: return [("rw_timeout", micros)]
        }
    }

    /// Muxer options FrameFlow sets unless `--output-option` does: RTSP over TCP (works through
    /// NAT and loses no packet), no seek-back for FLV (a live stream cannot seek).
    func muxerDefaults(timeout: Double) -> [(key: String, value: String)] {
        switch muxer {
        case "rtsp": return [("rtsp_transport", "tcp"), ("timeout", "\(Int64(saturating: (timeout * 1e6).rounded()))")]
        case "flv": return [("flvflags", "no_duration_filesize")]
        default: return []
        }
    }

    /// What FFmpeg's error `code` means for this URL, where its own text says little.
    func hint(_ code: Int32) -> String {
        if scheme == "srt" && code == ff_averror(EIO) { return " (no SRT listener answered)" }
        return ""
    }

    /// Whether the muxer opens its own connection (RTSP), rather than writing to one FrameFlow opens.
    var muxerConnects: Bool { muxer == "rtsp" }
}
