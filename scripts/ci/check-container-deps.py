#!/usr/bin/env python3
"""Fails when the Containerfile's runtime packages are not exactly what `frameflow` needs.

Usage: check-container-deps.py [BINARY] [--containerfile PATH]

BINARY (default .build/debug/frameflow; the release one links the same system libraries) is
the `frameflow` built on this Debian machine, the release the runtime image uses. Needed:
  - the Debian package of each library the binary links (its DT_NEEDED entries, resolved by
    ldd, then `dpkg -S`);
  - for each Swift runtime library it links (from the toolchain, which the image links in
    statically with --static-swift-stdlib), the packages of the system libraries *that*
    library links (libxml2 for FoundationXML);
  - the packages of the libraries FrameFlow opens with dlopen (DLOPENED below; each must
    still be named in the source file given for it);
  - the packages owning the files the committed graphs (Graphs/*.pbtxt) read by absolute path.
Packages every debian:bookworm-slim image has (BASE) are not listed. The Containerfile's
`ARG RUNTIME_PACKAGES="…"` must hold exactly the needed set: a missing package is an image
that fails at start, an extra one is weight nobody loads. Exits 1 listing the differences.
"""
import os
import re
import subprocess
import sys

# Libraries loaded with dlopen, not linked: soname -> the source file that names it.
DLOPENED = {"libopenblas.so.0": "Sources/FrameFlowInference/Operators/MatrixMultiply/GEMM.swift"}
# In every debian:bookworm-slim image (required by dpkg/apt themselves).
BASE = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}


def run(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def needed(path):
    """The DT_NEEDED sonames of an ELF file."""
    return re.findall(r"^\s*NEEDED\s+(\S+)", run(["objdump", "-p", path]), re.M)


def resolved(path):
    """soname -> path, as the dynamic loader resolves the libraries of `path`."""
    found = {}
    for line in run(["ldd", path]).splitlines():
        m = re.match(r"\s*(\S+) => (/\S+)", line)
        if m:
            found[m.group(1)] = m.group(2)
        elif "not found" in line:
            raise SystemExit(f"check-container-deps: {path}: {line.strip()}")
    return found


def package(path):
    """The Debian package that installed `path` (or the file it links to)."""
    for candidate in (path, os.path.realpath(path)):
        try:
            out = run(["dpkg", "-S", candidate])
        except subprocess.CalledProcessError:
            continue
        return out.split(":", 1)[0].split(",")[0].strip()
    return None


def is_toolchain(path):
    return "/lib/swift/" in os.path.realpath(path)


def main():
    args = sys.argv[1:]
    containerfile = "Containerfile"
    if "--containerfile" in args:
        i = args.index("--containerfile")
        containerfile = args[i + 1]
        del args[i:i + 2]
    binary = args[0] if args else ".build/debug/frameflow"
    if not os.path.isfile(binary):
        raise SystemExit(f"check-container-deps: {binary}: no such file (build first: swift build --product frameflow)")

    why = {}  # package -> what needs it
    problems = []

    def need(pkg, reason):
        if pkg is None:
            problems.append(f"{reason}: no Debian package owns it")
        elif pkg not in BASE:
            why.setdefault(pkg, reason)

    # Linked libraries; the Swift runtime's own are followed to the system libraries they link.
    todo = [(binary, soname) for soname in needed(binary)]
    seen = set()
    maps = {binary: resolved(binary)}
    while todo:
        owner, soname = todo.pop()
        if soname in seen or soname.startswith("ld-linux"):
            continue
        seen.add(soname)
        path = maps[owner].get(soname)
        if path is None:
            problems.append(f"{soname} (linked by {owner}): ldd does not resolve it")
            continue
        if is_toolchain(path):
            maps[path] = resolved(path)
            todo += [(path, s) for s in needed(path)]
        else:
            need(package(path), f"{soname} (linked by {os.path.basename(owner)})")

    # Opened with dlopen.
    cache = run(["ldconfig", "-p"])
    for soname, source in DLOPENED.items():
        if soname not in open(source, encoding="utf-8").read():
            problems.append(f"{soname}: {source} no longer names it; remove it from DLOPENED in {sys.argv[0]}")
            continue
        m = re.search(r"^\s*" + re.escape(soname) + r" \(.*\) => (\S+)", cache, re.M)
        if not m:
            problems.append(f"{soname} (dlopen, {source}): not installed here (scripts/setup.sh installs it)")
            continue
        need(package(m.group(1)), f"{soname} (dlopen, {source})")

    # Files the committed graphs read by absolute path (comments skipped).
    for graph in sorted(os.listdir("Graphs")):
        if not graph.endswith(".pbtxt"):
            continue
        for line in open(os.path.join("Graphs", graph), encoding="utf-8"):
            for path in re.findall(r'"(/[^"]+)"', line.split("#", 1)[0]):
                if not os.path.exists(path):
                    problems.append(f"{path} (read by Graphs/{graph}): not installed here")
                    continue
                need(package(path), f"{path} (read by Graphs/{graph})")

    text = open(containerfile, encoding="utf-8").read()
    m = re.search(r'^ARG RUNTIME_PACKAGES="([^"]*)"', text, re.M)
    if not m:
        raise SystemExit(f'check-container-deps: {containerfile}: no ARG RUNTIME_PACKAGES="…" line')
    listed = set(m.group(1).split())
    for pkg in sorted(set(why) - listed):
        problems.append(f"{pkg} is needed by {why[pkg]} but missing from RUNTIME_PACKAGES in {containerfile}")
    for pkg in sorted(listed - set(why)):
        problems.append(f"{pkg} is in RUNTIME_PACKAGES in {containerfile} but nothing needs it")
    for pkg in sorted(why):
        print(f"{pkg:24} {why[pkg]}")
    if problems:
        for p in problems:
            print(f"check-container-deps: {p}", file=sys.stderr)
        return 1
    print(f"check-container-deps: {containerfile} lists the {len(why)} runtime packages {binary} needs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
