import FrameFlow

/// What every task class forwards to its running graph, for its result type `Output`: an
/// image, a video frame, a live-stream image, the dropped-frame count and close. Calls are
/// named in errors after the task's verb as MediaPipeTasksVision names them (`detect`,
/// `recognize`, `segment`: `detectAsync(image:timestampInMilliseconds:)`, …).
struct TaskCalls<Output: Sendable>: Sendable {
    private let runner: TaskRunner
    private let verb: String
    private let result: @Sendable ([Packet?], Int) -> Output

    /// The running graph of MediaPipe's task `task` (`face_landmarker`:
    /// `mediapipe.tasks.vision.face_landmarker.FaceLandmarkerGraph` and its options message)
    /// with the model of `base` and the task's own options text `options`, both read only once
    /// the running mode and listener are known to fit (a live stream needs `listener`, which
    /// gets each result in timestamp order); `result` turns a timestamp's packets into the result.
    init(
        _ task: String, verb: String, base: BaseOptions, mode: RunningMode, options: @autoclosure () throws -> String,
        outputs: [String], listener: (@Sendable (Result<Output, TaskError>) -> Void)?,
        result: @escaping @Sendable ([Packet?], Int) -> Output
    ) throws {
        if mode == .liveStream, listener == nil {
            throw TaskError.invalidOption(name: "resultListener", reason: "a live-stream task needs a result listener")
        }
        let name = task.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        let forward = listener.map { listener in
            { @Sendable (packets: Result<[Packet?], TaskError>, ms: Int) in listener(packets.map { result($0, ms) }) }
        }
        runner = try TaskRunner(
            taskGraph: "mediapipe.tasks.vision.\(task).\(name)Graph", optionsType: "mediapipe.tasks.vision.\(task).proto.\(name)GraphOptions",
            options: try TaskRunner.baseOptions(base, mode) + " " + options(), outputs: outputs, mode: mode, base: base, listener: forward)
        self.verb = verb
        self.result = result
    }

    /// The result of `image` (image mode).
    func image(_ image: ImageFrame) throws -> Output {
        result(try runner.process(image, timestampMs: nil, region: .wholeImage, call: "\(verb)(image:)"), 0)
    }

    /// The result of a video frame at `ms` (video mode).
    func videoFrame(_ image: ImageFrame, _ ms: Int) throws -> Output {
        result(try runner.process(image, timestampMs: ms, region: .wholeImage, call: "\(verb)(videoFrame:timestampInMilliseconds:)"), ms)
    }

    /// Sends a live-stream image at `ms`; false when it was dropped because the task was busy.
    func async(_ image: ImageFrame, _ ms: Int) throws -> Bool {
        try runner.send(image, timestampMs: ms, region: .wholeImage, call: "\(verb)Async(image:timestampInMilliseconds:)")
    }

    /// Images a live-stream task dropped because it was busy.
    var droppedFrames: Int { runner.droppedFrames }

    /// The task graph's per-node counters.
    var statistics: GraphStatistics { runner.statistics }

    /// Finishes the graph (a live stream's pending result is delivered first).
    func close() { runner.close() }
}
