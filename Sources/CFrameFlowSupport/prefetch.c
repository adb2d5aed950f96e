// CFrameFlowSupport is a header-only module (include/CFrameFlowSupport.h); SwiftPM needs one
// source file per C target.
#include "CFrameFlowSupport.h"
