#!/usr/bin/env python3
"""Hostile inputs through the frameflow tool, as a user or an attacker would give them.

    python3 scripts/hostile.py [--binary .build/release/frameflow] [--quick]

Runs classes of bad input (option values, a full disk, lines of pixels, FIFOs, outputs
FrameFlow cannot write, broken graph text, a fleet without its broker, testsrc lengths) and
checks, for each case: the exit status is the documented one (never a signal or a hang past
its limit), the message names what was wrong, no file is left behind (no output, no hidden
`.NAME.frameflow-…` temporary) and an existing file keeps its bytes. Prints one line per
case and a summary; exits 1 when any case found something. Standard library only.
"""
import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
VALUES = ["0", "-0", "1", "-1", "0.5", "nan", "inf", "-inf", "1e308", "-1e308", "1e-308", "2147483647", "-2147483648",
          "99999999999999999999"]
# Image calculators whose IMAGE input can take a test source directly; their numeric options
# are read from the Swift source, so new options are tried without editing this list.
CALCULATORS = ["ToneMapCalculator", "ColorAdjustmentCalculator", "GaussianBlurCalculator", "SharpenCalculator",
               "ImageCroppingCalculator", "ImageTransformationCalculator"]

findings = []
cases = 0


def report(name, ok, detail):
    global cases
    cases += 1
    detail = " | ".join(line for line in detail.splitlines() if line.strip())
    if not ok:
        findings.append(f"{name}: {detail}")
    print(f"{'ok     ' if ok else 'FINDING'} {name}: {detail}", flush=True)


def run(args, cwd=ROOT, limit=20, stdin=None, term_after=None):
    """(status, seconds, stdout, stderr); status is -SIGNAL for a signal, None for a hang."""
    t0 = time.monotonic()
    p = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=stdin or subprocess.DEVNULL)
    try:
        if term_after is not None:
            try:
                p.wait(timeout=term_after)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=limit)
        status = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        status = None
    return status, time.monotonic() - t0, out.decode(errors="replace"), err.decode(errors="replace")


def leftovers(folder, before):
    return sorted(set(os.listdir(folder)) - before)


def free_tcp_port():
    """A port on 127.0.0.1 no one listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def snake(name):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def numeric_options(calculator):
    path = os.path.join(ROOT, "Sources", "FrameFlowCalculators", "Image", calculator + ".swift")
    text = open(path, encoding="utf-8").read()
    type_name = re.search(r'typeName: String\? = "([^"]+)"', text).group(1)
    fields = re.findall(r"public var (\w+) = (-?[0-9][0-9._]*)\s*$", text, re.M)
    return type_name, [snake(f) for f, _ in fields]


def options_cases(ff, tmp, quick):
    values = ["0", "nan", "inf", "1e308", "-1e308", "2147483647"] if quick else VALUES
    for calc in CALCULATORS:
        type_name, fields = numeric_options(calc)
        for field in fields:
            for v in values:
                graph = os.path.join(tmp, "option.pbtxt")
                with open(graph, "w") as f:
                    f.write('input_stream: "in"\noutput_stream: "out"\nnode {\n  calculator: "%s"\n  input_stream: "IMAGE:in"\n'
                            '  output_stream: "IMAGE:out"\n  options { [%s.ext] { %s: %s } }\n}\n' % (calc, type_name, field, v))
                name = f"option {calc} {field}: {v}"
                vs, _, vout, verr = run([ff, "validate", graph], limit=10)
                rs, secs, _, rerr = run([ff, "run", graph, "--input", "testsrc:64x48@10", "--frames", "2", "--output", "null"], limit=30)
                if vs is None or rs is None or vs < 0 or rs < 0 or rs > 4:
                    report(name, False, f"validate {vs}, run {rs} ({secs:.1f} s): {(verr + rerr).strip()[-300:]}")
                elif (vs == 0) != (rs == 0) and "invalid" in rerr.lower():
                    report(name, False, f"validate said {vout.strip() or verr.strip()} but the run refused it: {rerr.strip()[-200:]}")
                elif vs != 0 and "option" not in verr and field not in verr:
                    report(name, False, f"refused without naming the option: {verr.strip()[-200:]}")
                else:
                    report(name, True, f"validate {vs}, run {rs}")


def mount_small(folder, kilobytes):
    os.makedirs(folder, exist_ok=True)
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kilobytes}k", "tmpfs", folder],
                          stderr=subprocess.DEVNULL).returncode == 0


def full_disk_cases(ff, tmp):
    folder = os.path.join(tmp, "full")
    mounted = os.geteuid() == 0 and mount_small(folder, 64)
    os.makedirs(folder, exist_ok=True)
    try:
        precious = b"an earlier result the user wants to keep\n"
        with open(os.path.join(folder, "one.png"), "wb") as f:
            f.write(precious)
        if mounted:
            with open(os.path.join(folder, "filler"), "wb") as f:
                f.write(bytes(52 * 1024))
        before = set(os.listdir(folder))
        for name, extra in [("one.png", []), ("x.mp4", []), ("seq%04d.png", []), ("x.mkv", []),
                            ("x.jsonl", ["--output-stream"])]:
            out = os.path.join(folder, name)
            dest = ["--output-stream", f"luma_video={out}"] if extra else ["--output", out]
            cmd = f"{'' if mounted else 'ulimit -f 8; '}exec {ff} run Graphs/edge_detection_mobile_gpu.pbtxt " \
                  f"--input testsrc:640x480@30 --frames {3000 if extra else 30} " + " ".join(f"'{a}'" for a in dest)
            status, secs, _, err = run(["/bin/bash", "-c", cmd], limit=120)
            left = leftovers(folder, before)
            kept = open(os.path.join(folder, "one.png"), "rb").read() == precious
            ok = status == 1 and not left and kept and "cannot write" in err and out in err
            report(f"full disk ({'tmpfs' if mounted else 'ulimit -f'}) {name}", ok,
                   f"status {status} in {secs:.1f} s, left {left}, existing one.png {'kept' if kept else 'CHANGED'}: {err.strip()[-160:]}")
    finally:
        if mounted:
            subprocess.run(["umount", folder])


def input_cases(ff, tmp):
    for w, h, want in [(40000, 1, 1), (1, 65535, 1), (32768, 1, 0)]:
        png = f"Tests/Fixtures/media/line-{w}x{h}.png"
        status, secs, _, err = run([ff, "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", png, "--timeout", "2", "--output", "null"],
                                   limit=20)
        report(f"input {w}x{h} PNG", status == want and secs < 10 and (want == 0 or png in err), f"status {status} in {secs:.1f} s {err.strip()[-120:]}")
    fifo = os.path.join(tmp, "in.fifo")
    os.mkfifo(fifo)
    before = set(os.listdir(tmp))
    out = os.path.join(tmp, "out.mp4")
    status, secs, _, err = run([ff, "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", fifo, "--timeout", "2", "--output", out], limit=30)
    left = leftovers(tmp, before)
    report("FIFO without a writer, --timeout 2", status == 1 and secs < 6 and not left and "no answer" in err,
           f"status {status} in {secs:.1f} s, left {left}: {err.strip()[-120:]}")
    status, secs, _, err = run([ff, "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", fifo, "--timeout", "60", "--output", out],
                               limit=30, term_after=1)
    left = leftovers(tmp, before)
    report("FIFO without a writer, first SIGTERM", status == 3 and secs < 5 and not left, f"status {status} in {secs:.1f} s, left {left}")
    os.unlink(fifo)
    missing = os.path.join(tmp, "typo.mp4")
    status, secs, _, err = run([ff, "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", missing, "--output", out], limit=20)
    left = leftovers(tmp, before)
    report("missing input", status == 1 and not left and missing in err, f"status {status}, left {left}: {err.strip()[-120:]}")


def output_cases(ff, tmp):
    before = set(os.listdir(tmp))
    for out, says in [(os.path.join(tmp, "x.gif"), "'.gif'"), ("/dev/full", "no extension"), (os.path.join(tmp, "noext"), "no extension")]:
        dev_before = set(os.listdir("/dev"))
        status, secs, _, err = run([ff, "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:64x48@10", "--frames", "2",
                                    "--output", out], limit=20)
        left = leftovers(tmp, before) + leftovers("/dev", dev_before)
        ok = status == 1 and not left and says in err and "@ 0x" not in err
        report(f"output {out}", ok, f"status {status}, left {left}: {err.strip()[-120:]}")
    link = os.path.join(tmp, "full.jsonl")
    os.symlink("/dev/full", link)
    status, _, _, err = run([ff, "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:64x48@10", "--frames", "2",
                             "--output-stream", f"luma_video={link}"], limit=20)
    report("output link to /dev/full", status == 1 and os.readlink(link) == "/dev/full" and "not a regular file" in err,
           f"status {status}: {err.strip()[-120:]}")
    os.unlink(link)
    # Network outputs: a bad host or port is refused before anything opens, naming the URL; a
    # closed port fails at once (FFmpeg logs its own line there, so "@ 0x" is not checked).
    closed = free_tcp_port()
    for url, says in [("rtmp://no-such-host.invalid/live/x", "unknown host"), ("udp://127.0.0.1:abc", "port must be"),
                      ("udp://127.0.0.1:0", "port must be"), ("udp://127.0.0.1:1e308", "port must be"),
                      ("udp://127.0.0.1:-1", "port must be"), ("udp://127.0.0.1:99999999999999999999", "port must be"),
                      ("rtp://:5004", "no host"), ("gopher://example.com/x", "udp://HOST:PORT"),
                      (f"rtmp://127.0.0.1:{closed}/live/x", "Connection refused")]:
        status, secs, _, err = run([ff, "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:64x48@10", "--frames", "2",
                                    "--output", url], limit=20)
        left = leftovers(tmp, before)
        ok = status == 1 and secs < 10 and not left and f"{url}: " in err and says in err and ("@ 0x" not in err or "refused" in says)
        report(f"output {url}", ok, f"status {status}, {secs:.1f} s, left {left}: {err.strip()[-120:]}")
    # An HLS output that fails at its first frame (an option no muxer takes): no playlist, no
    # segment, no hidden folder.
    playlist = os.path.join(tmp, "live.m3u8")
    status, secs, _, err = run([ff, "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:64x48@10", "--frames", "30",
                                "--output", playlist, "--output-option", "hls_tme=1"], limit=20)
    left = leftovers(tmp, before)
    report("output HLS, bad option", status == 1 and not left and "hls_tme" in err, f"status {status}, left {left}: {err.strip()[-120:]}")


def graph_text_cases(ff, tmp):
    nul = os.path.join(tmp, "nul.pbtxt")
    with open(nul, "wb") as f:
        f.write(b'input_stream: "in"\nnode { calculator: "Pass\x00ThroughCalculator" }\n')
    status, _, _, err = run([ff, "validate", nul])
    report("pbtxt with a NUL byte", status == 1 and f"{nul}:2:25: control character 0x00 in graph text" in err, err.strip()[-160:])
    many = os.path.join(tmp, "many.pbtxt")
    with open(many, "w") as f:
        f.write('input_stream: "in"\n' + "".join(f'output_stream: "s{i}"\n' for i in range(100_001)))
        f.write('node { calculator: "PassThroughCalculator" input_stream: "in" output_stream: "s0" }\n')
    status, secs, _, err = run([ff, "validate", many], limit=60)
    report("graph with 100 001 streams", status == 1 and len(err) < 10_000, f"status {status} in {secs:.1f} s, {len(err)} bytes of errors")


def fleet_cases(ff, tmp):
    folder = os.path.join(tmp, "fleet")
    os.makedirs(folder)
    with open(os.path.join(folder, "pass.pbtxt"), "w") as f:
        f.write('input_stream: "input_video"\noutput_stream: "output_video"\n'
                'node { calculator: "PassThroughCalculator" input_stream: "input_video" output_stream: "output_video" }\n')
    with open(os.path.join(folder, "site.fleet"), "w") as f:
        f.write('mqtt { host: "127.0.0.1" port: 9 qos: 1 }\n'
                'camera { name: "a" source: "testsrc:64x48@30" graph: "pass.pbtxt" output { stream: "output_video" to: "mqtt" } }\n')
    status, secs, out, err = run([ff, "fleet", "site.fleet", "--duration", "2", "--health-interval", "0.5"], cwd=folder, limit=30)
    ok = status == 0 and '"mqtt":{"connected":false' in out and "messages not delivered" in err
    report("fleet without its broker", ok, f"status {status} in {secs:.1f} s: {err.strip().splitlines()[-1] if err.strip() else ''}")
    # A camera whose source fails again and again, with a file output: no temporary per retry.
    with open(os.path.join(folder, "retry.fleet"), "w") as f:
        f.write('defaults { reconnect { initial_seconds: 0.1 max_seconds: 0.2 } }\n'
                'camera { name: "m" source: "missing.mp4" graph: "pass.pbtxt" output { stream: "output_video" to: "m2.mp4" } }\n')
    before = set(os.listdir(folder))
    status, secs, out, err = run([ff, "fleet", "retry.fleet", "--duration", "3"], cwd=folder, limit=30)
    retries = out.count('"state":"backoff"')
    left = leftovers(folder, before)
    report("fleet camera retrying a missing source", status == 0 and retries >= 2 and not left, f"status {status}, {retries} back-offs, left {left}")


def testsrc_cases(ff):
    status, _, out, err = run([ff, "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:32x24@30", "--frames", "450",
                               "--output", "null"], limit=60)
    report("testsrc --frames 450", status == 0 and "frames in: 450," in out, (out + err).strip()[-120:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "frameflow"))
    parser.add_argument("--quick", action="store_true", help="six option values instead of fourteen")
    a = parser.parse_args()
    ff = os.path.abspath(a.binary)
    if not os.access(ff, os.X_OK):
        sys.exit(f"hostile.py: {ff} is not built (swift build -c release --product frameflow)")
    with tempfile.TemporaryDirectory(prefix="frameflow-hostile-") as tmp:
        for step in (lambda: options_cases(ff, tmp, a.quick), lambda: full_disk_cases(ff, tmp), lambda: input_cases(ff, tmp),
                     lambda: output_cases(ff, tmp), lambda: graph_text_cases(ff, tmp), lambda: fleet_cases(ff, tmp),
                     lambda: testsrc_cases(ff)):
            step()
    print(f"hostile.py: {cases} cases, {len(findings)} findings")
    for f in findings:
        print("  " + f)
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
