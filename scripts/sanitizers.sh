#!/usr/bin/env bash
# The whole test suite under ThreadSanitizer, then AddressSanitizer; prints each duration.
#   scripts/sanitizers.sh [thread|address]...
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for s in "${@:-thread address}"; do
    for kind in $s; do
        start=$(date +%s)
        echo "== swift test --sanitize=$kind"
        # x264 leaves its lookahead threads unjoined when an encoder closes; not ours to join.
        TSAN_OPTIONS="report_thread_leaks=0 ${TSAN_OPTIONS:-}" ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}" \
            swift test --sanitize="$kind" 2>&1 | tail -3
        rc=${PIPESTATUS[0]}
        echo "== $kind: exit $rc after $(( $(date +%s) - start )) s"
        [ "$rc" = 0 ] || status=1
    done
done
exit $status
