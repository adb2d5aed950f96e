#!/usr/bin/env python3
"""The README as an executable contract: every shell block of README.md and the docs/ guides
runs as written, and every Swift block is a complete program (compiled by
scripts/ci/consumer-package.sh, which calls `--snippets`).

Shell blocks run in order, file by file, with bash -e from the repository root, as a new user
would after `make install` and `frameflow models fetch` (which the README says to run first):
PREFIX and FRAMEFLOW_MODELS point into a scratch folder (so the check never touches the user's
own install or model folder) and PREFIX/bin leads PATH. The placeholder inputs the guides name
(clip.mp4, photo.png, …) are made from real fixtures before and removed after, with every
file the commands wrote. A line whose comment says `[not checked: REASON]` is skipped and
listed (a camera, a display, a cluster, a long run); `$ ` lines of console blocks are
commands and the lines after them their output.

Swift blocks: one that starts with `import` is a complete program; one that imports
PackageDescription is the manifest example, whose products must cover every FrameFlow module the programs import;
anything else fails the check unless its first line says `// (a fragment …)`.

Usage: scripts/ci/check-readme.py [--only FILE] [--list]          run the shell blocks
       scripts/ci/check-readme.py --snippets PACKAGE_DIR           write the Swift programs as
                                                                    targets; prints their names
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GUIDES = ["README.md"] + sorted(
    os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
    if f.endswith(".md") and f not in ("architecture.md", "performance.md", "tasks-graphs.md"))
SKIP = re.compile(r"#.*\[not checked: ([^\]]+)\]")
OUTPUTS = (".mp4", ".mkv", ".mov", ".webm", ".avi", ".jsonl", ".png", ".jpg", ".dot", ".ts", ".flv", ".m3u8", ".ppm")
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    for m in BLOCK.finditer(text):
        yield m.group(1), m.group(2), text[: m.start()].count("\n") + 2


def commands(body):
    """(line, command text, skip reason) for each command of a shell block."""
    lines = body.split("\n")
    console = any(l.startswith("$ ") for l in lines)
    out, i = [], 0
    while i < len(lines):
        start, line = i, lines[i]
        i += 1
        if console:
            if not line.startswith("$ "):
                continue  # output of the command above
            line = line[2:]
        while line.rstrip().endswith("\\") and i < len(lines):
            line = line.rstrip()[:-1] + " " + lines[i].strip()
            i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        skip = SKIP.search(line)
        out.append((start, line.strip(), skip.group(1) if skip else None))
    return out


def make_inputs(work):
    """The placeholder files the guides name, made from real fixtures; returns their paths."""
    fx = os.path.join(ROOT, "Tests", "Fixtures")
    made = []

    def ffmpeg(*args):
        subprocess.run(["ffmpeg", "-v", "error", "-y", *args], check=True)

    def add(name):
        made.append(os.path.join(work, name))
        return made[-1]

    # A person with face and hands on camera, 3 s (MediaPipe's graphs find something).
    ffmpeg("-i", os.path.join(fx, "mediapipe", "hand_clip.mp4"), "-t", "3", "-an", add("clip.mp4"))
    shutil.copy(os.path.join(fx, "mediapipe", "photos", "face_near.png"), add("photo.png"))
    shutil.copy(os.path.join(fx, "mediapipe", "photos", "face_and_hand.png"), add("astronaut.png"))
    shutil.copy(os.path.join(fx, "mediapipe", "bodies", "whole_body.png"), add("beach.png"))
    os.makedirs(add("frames"))
    ffmpeg("-i", os.path.join(work, "clip.mp4"), "-frames:v", "10", os.path.join(work, "frames", "%04d.png"))
    os.makedirs(add("edges"), exist_ok=True)
    digits = os.path.join(ROOT, ".build", "fixtures", "digits")
    pngs = sorted(f for f in os.listdir(digits) if f.endswith((".png", ".pgm"))) if os.path.isdir(digits) else []
    if pngs:
        ffmpeg("-i", os.path.join(digits, pngs[0]), add("digit.png"))
        ffmpeg("-i", os.path.join(digits, pngs[0]), "-vf", "negate", add("sketch.png"))
    return made


def untracked(work):
    """Files and folders git does not track, ignored ones included (the build excepted)."""
    r = subprocess.run(["git", "status", "--porcelain", "--ignored", "-uall"], cwd=work, capture_output=True, text=True,
                       check=True)
    return {l[3:].rstrip("/") for l in r.stdout.splitlines()
            if l[:2] in ("??", "!!") and not l[3:].startswith(".build/")}


def run_shell(only, list_only):
    scratch = tempfile.mkdtemp(prefix="frameflow-readme-")
    env = dict(os.environ)
    env["PREFIX"] = os.path.join(scratch, "prefix")
    env["FRAMEFLOW_MODELS"] = os.path.join(scratch, "models")
    env["PATH"] = os.path.join(env["PREFIX"], "bin") + os.pathsep + env["PATH"]
    start = time.time()
    before = untracked(ROOT)
    made = [] if list_only else make_inputs(ROOT)
    ran, skipped, failed = 0, [], []
    try:
        for guide in GUIDES:
            if only and guide != only:
                continue
            for lang, body, line in blocks(guide):
                if lang not in ("sh", "bash", "console"):
                    continue
                script = ["set -eo pipefail"]
                for offset, cmd, skip in commands(body):
                    where = f"{guide}:{line + offset}"
                    if skip:
                        skipped.append(f"{where}: {skip}: {cmd.split('#')[0].strip()}")
                        continue
                    ran += 1
                    script.append(f"echo {shlex_quote('+ ' + where + ': ' + cmd.split('  #')[0].strip())} >&2")
                    script.append(cmd)
                if list_only:
                    print("\n".join(script[1:]))
                    continue
                t = time.time()
                r = subprocess.run(["bash", "-c", "\n".join(script)], cwd=ROOT, env=env, capture_output=True, text=True,
                                   timeout=1800)
                status = "ok" if r.returncode == 0 else f"FAILED (status {r.returncode})"
                print(f"check-readme: {guide}:{line}: {status} in {time.time() - t:.1f} s", flush=True)
                if r.returncode != 0:
                    failed.append(f"{guide}:{line}")
                    sys.stdout.write(r.stdout[-3000:])
                    sys.stdout.write(r.stderr[-3000:])
    finally:
        for path in made:
            shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else os.remove(path)
        for path in sorted(untracked(ROOT) - before, reverse=True):  # the outputs the commands wrote
            full = os.path.join(ROOT, path)
            if os.path.isfile(full) and path.endswith(OUTPUTS) and os.path.getmtime(full) >= start:
                os.remove(full)
                parent = os.path.dirname(full)
                if parent != ROOT and not os.listdir(parent):
                    os.rmdir(parent)
        shutil.rmtree(scratch, ignore_errors=True)
    for s in skipped:
        print(f"check-readme: not checked: {s}")
    print(f"check-readme: {ran} commands run, {len(skipped)} not checked (marked), {len(failed)} blocks failed, "
          f"{time.time() - start:.0f} s")
    return 1 if failed else 0


def shlex_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def snippets(package_dir):
    """Writes each complete Swift program as an executable target; checks the rest."""
    programs, manifest, errors = [], None, []
    for guide in GUIDES:
        for lang, body, line in blocks(guide):
            if lang != "swift":
                continue
            first = body.lstrip().split("\n", 1)[0]
            where = f"{guide}:{line}"
            if first.startswith("import "):
                programs.append((where, body))
            elif "import PackageDescription" in body:
                manifest = (where, body)
            elif not first.startswith("// (a fragment"):
                errors.append(f"{where}: a Swift block must be a complete program (start with import), the Package.swift "
                              "example, or say `// (a fragment …)` on its first line")
    if manifest:
        products = set(re.findall(r'\.product\(name: "(\w+)"', manifest[1]))
        for where, body in programs:
            for module in re.findall(r"^import (FrameFlow\w*)", body, re.M):
                if module not in products:
                    errors.append(f"{where}: imports {module}, which the Package.swift example ({manifest[0]}) lacks")
    names = []
    for k, (where, body) in enumerate(programs):
        name = "Snippet" + re.sub(r"\W", "_", where.split(":")[0].replace(".md", "")).title().replace("_", "") + str(k)
        os.makedirs(os.path.join(package_dir, "Sources", name), exist_ok=True)
        with open(os.path.join(package_dir, "Sources", name, "main.swift"), "w") as f:
            f.write(f"// {where}\n{body}")
        names.append(name)
    for e in errors:
        print(f"check-readme: {e}", file=sys.stderr)
    print(" ".join(names))
    return 1 if errors else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="one guide, e.g. docs/mediapipe.md")
    ap.add_argument("--list", action="store_true", help="print the commands without running them")
    ap.add_argument("--snippets", metavar="PACKAGE_DIR")
    a = ap.parse_args()
    if a.snippets:
        return snippets(a.snippets)
    return run_shell(a.only, a.list)


if __name__ == "__main__":
    sys.exit(main())
