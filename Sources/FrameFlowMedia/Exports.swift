// What FrameFlowMedia's API is made of (PacketSink, MediaError, JSONLinesSink) lives in
// FrameFlowSinks, which links no FFmpeg; code that imports FrameFlowMedia sees it too.
@_exported import FrameFlowSinks
