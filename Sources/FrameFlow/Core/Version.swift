/// FrameFlow's version, semantic versioning; a release is tagged with it (`0.1.0`).
public let frameFlowVersion = "0.1.0"

/// One line for `--version` and `--stats`: the version and the kernel level running.
public var frameFlowBuildDescription: String {
    let active = KernelLevel.active, supported = KernelLevel.supported
    return "FrameFlow \(frameFlowVersion), kernels \(active)" + (active == supported ? "" : " (CPU supports \(supported))")
}
