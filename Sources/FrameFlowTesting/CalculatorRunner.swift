import FrameFlow
