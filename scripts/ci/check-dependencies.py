#!/usr/bin/env python3
"""Package.swift's dependencies equal the imports: for every target of the package, the
package targets its sources import (`import X`, `@testable import X`, `@_exported import X`)
are exactly the package targets it lists as dependencies. Exits 1 naming each difference.

Also: FrameFlowInference reaches no calculator module; FrameFlowMQTT, FrameFlowDisplay, FrameFlowSinks, FrameFlowML and FrameFlowCalculators
reach no FFmpeg through their dependencies (so they do not link it).

The manifest is read with `swift package dump-package` (no network); imports of modules
outside the package (Foundation, Testing, PackagePlugin, Glibc, ...) are ignored."""
import json, os, re, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
manifest = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True,
                                     capture_output=True, text=True).stdout)
targets = {t["name"]: t for t in manifest["targets"]}
imports = re.compile(r"^\s*(?:@testable\s+|@_exported\s+)?import\s+(?:struct\s+|class\s+|enum\s+|func\s+)?(\w+)", re.M)

def folder(t):
    if t.get("path"):
        return os.path.join(root, t["path"])
    kind = "Tests" if t["type"] == "test" else "Plugins" if t["type"] == "plugin" else "Sources"
    return os.path.join(root, kind, t["name"])

def declared(t):
    names = set()
    for d in t.get("dependencies", []):
        for key in ("byName", "target", "product"):
            if key in d:
                names.add(d[key][0])
    return names & set(targets)

problems = []
for name, t in sorted(targets.items()):
    if t["type"] == "system":
        continue
    used = set()
    for dirpath, _, files in os.walk(folder(t)):
        for f in files:
            if f.endswith(".swift"):
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    used |= set(imports.findall(fh.read()))
    used &= set(targets)
    used.discard(name)
    # A plugin's tool is run, not imported.
    if t["type"] == "plugin":
        continue
    want = declared(t)
    for m in sorted(want - used):
        problems.append(f"{name}: depends on {m} but never imports it")
    for m in sorted(used - want):
        problems.append(f"{name}: imports {m} without depending on it")

# Only media code links FFmpeg: MQTT and the window reach it through no dependency.
def closure(name, seen=None):
    seen = set() if seen is None else seen
    for d in declared(targets[name]) | {x for x in (dd.get("byName", [None])[0] for dd in targets[name].get("dependencies", [])) if x in targets}:
        if d not in seen:
            seen.add(d)
            closure(d, seen)
    return seen

for name in ("FrameFlowMQTT", "FrameFlowDisplay", "FrameFlowSinks", "FrameFlowML", "FrameFlowCalculators"):
    if name in targets and "CFFmpeg" in closure(name):
        problems.append(f"{name}: reaches CFFmpeg (only FrameFlowMedia and what needs media may link FFmpeg)")

# The inference engine is a layer below the calculators: it reaches none of them.
for m in ("FrameFlowCalculators", "FrameFlowML", "FrameFlowMedia", "FrameFlowSinks"):
    if "FrameFlowInference" in targets and m in closure("FrameFlowInference"):
        problems.append(f"FrameFlowInference: reaches {m} (the engine must not depend on calculators)")

for p in problems:
    print(f"Package.swift: {p}")
if problems:
    sys.exit(1)
print(f"Package.swift: the dependencies of {len(targets)} targets equal their imports")
