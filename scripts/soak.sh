#!/usr/bin/env bash
# The full soak: 100 000 paced frames through the overloaded graph of SoakTests, plus the
# 100 cancels. About a minute of wall time per 100 000 frames at 2000 fps.
#   scripts/soak.sh [FRAMES]
set -euo pipefail
cd "$(dirname "$0")/.."
SOAK_FRAMES="${1:-100000}" swift test -c release --filter SoakTests
