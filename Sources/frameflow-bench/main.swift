import FrameFlowArguments

BenchCommand.main()
