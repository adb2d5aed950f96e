#!/usr/bin/env python3
"""Fails listing every public symbol of a module that has no doc comment.

Usage: check-doc-comments.py SYMBOL_GRAPH_DIR MODULE

Reads the symbol graphs `swiftc -emit-symbol-graph` wrote for MODULE (MODULE.symbols.json and
the MODULE@Other.symbols.json files of its extensions to other modules' types). Not counted:
symbols the compiler synthesized (a protocol's default implementations shown on a type) and a
type's implementations of a standard protocol's requirement (`==`, `description`,
`hash(into:)`, `init(from:)`, …), whose documentation DocC takes from the protocol.
"""
import glob
import json
import os
import sys

# Requirements of standard-library and Foundation protocols, by the symbol's title.
STANDARD_REQUIREMENTS = {
    "==(_:_:)", "<(_:_:)", "hash(into:)", "hashValue", "description", "debugDescription",
    "init(from:)", "encode(to:)", "init(rawValue:)", "rawValue", "RawValue", "next()",
    "makeIterator()", "makeAsyncIterator()", "Element", "AsyncIterator", "Iterator",
    "errorDescription", "init(integerLiteral:)", "init(floatLiteral:)", "init(stringLiteral:)",
    "init(arrayLiteral:)", "init(dictionaryLiteral:)", "init(extendedGraphemeClusterLiteral:)",
    "init(unicodeScalarLiteral:)", "startIndex", "endIndex", "index(after:)", "index(before:)",
    "subscript(_:)", "allCases", "AllCases", "+(_:_:)", "-(_:_:)", "+=(_:_:)", "-=(_:_:)", "zero",
    "callAsFunction(_:)",
}


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    directory, module = sys.argv[1], sys.argv[2]
    files = [os.path.join(directory, f"{module}.symbols.json")]
    files += sorted(glob.glob(os.path.join(directory, f"{module}@*.symbols.json")))
    if not os.path.exists(files[0]):
        print(f"check-doc-comments: no symbol graph {files[0]}", file=sys.stderr)
        return 2
    missing, total = [], 0
    for path in files:
        graph = json.load(open(path))
        # Types that conform to a protocol of another module: their members may be that
        # protocol's requirements.
        external = {r["source"] for r in graph["relationships"]
                    if r["kind"] == "conformsTo" and not r["target"].startswith(f"s:{len(module)}{module}")}
        parent = {r["source"]: r["target"] for r in graph["relationships"] if r["kind"] == "memberOf"}
        for s in graph["symbols"]:
            if s.get("accessLevel") not in ("public", "open"):
                continue
            precise = s["identifier"]["precise"]
            if "::SYNTHESIZED::" in precise:
                continue
            total += 1
            if s.get("docComment", {}).get("lines"):
                continue
            title = s["names"]["title"]
            if title in STANDARD_REQUIREMENTS and parent.get(precise) in external:
                continue
            loc = s.get("location", {})
            where = loc.get("uri", "").replace("file://", "")
            where = os.path.relpath(where) if where else "?"
            line = loc.get("position", {}).get("line", -1) + 1
            missing.append(f"{where}:{line}: {s['kind']['displayName'].lower()} "
                           f"{'.'.join(s['pathComponents'])} has no doc comment")
    for m in sorted(missing):
        print(m)
    if missing:
        print(f"check-doc-comments: {len(missing)} of {total} public symbols of {module} have no doc comment",
              file=sys.stderr)
        return 1
    print(f"check-doc-comments: all {total} public symbols of {module} have doc comments")
    return 0


if __name__ == "__main__":
    sys.exit(main())
