#!/usr/bin/env bash
# The full soak: 100 000 paced frames through the overloaded graph of SoakTests, plus the
# 100 cancels. About a minute of wall time per 100 000 frames at 2000 fps.
#   scripts/soak.sh [FRAMES]
# While it runs: every 10 s the test prints elapsed time, resident memory, frames in and out
# and drops ("soak: …"), and this script samples the test process's VmRSS ("soak.sh: …"), which
# also covers the cancel rounds. Passes or fails as the tests do.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --build-tests
SOAK_FRAMES="${1:-100000}" swift test -c release --skip-build --filter SoakTests &
test_pid=$!
start=$(date +%s)
peak=0
while kill -0 "$test_pid" 2>/dev/null; do
    sleep 10
    # The test binary (FrameFlowPackageTests.xctest) among swift-test's descendants.
    pid=""
    todo="$test_pid"
    while [ -n "$todo" ] && [ -z "$pid" ]; do
        next=""
        for p in $todo; do
            for c in $(pgrep -P "$p" || true); do
                grep -qa FrameFlowPackageTests "/proc/$c/cmdline" 2>/dev/null && pid=$c
                next="$next $c"
            done
        done
        todo=$next
    done
    [ -n "$pid" ] || continue
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$rss" ] || continue
    peak=$(( hwm > peak ? hwm : peak ))
    echo "soak.sh: $(( $(date +%s) - start )) s  VmRSS $(( rss / 1024 )) MB  peak $(( peak / 1024 )) MB"
done
set +e
wait "$test_pid"
status=$?
set -e
echo "soak.sh: $( [ "$status" -eq 0 ] && echo passed || echo FAILED ) after $(( $(date +%s) - start )) s, peak VmRSS $(( peak / 1024 )) MB"
exit "$status"
