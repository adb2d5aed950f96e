// The engine's types (Tensor, Model, ModelCache) are part of this module's API: its
// calculators carry them in packets.
@_exported import FrameFlowInference
