#!/usr/bin/env python3
"""Runs two frameflow-bench binaries alternately and compares their ratios row by row.

usage: compare_builds.py OLD_DIR NEW_DIR ROUNDS [bench arguments...]

OLD_DIR and NEW_DIR are checkouts holding .build/release/frameflow-bench; each binary runs
from its own checkout (it reads fixtures relative to it), old then new, ROUNDS times. Every
row that prints a ratio is matched by section and label; the table gives the median ratio of
each build, their quotient (new / old, where the ratio is "lower is better", old / new for the
fps rows where higher is better), and FLAG where the new build is more than 10 % worse.
Raw outputs go to compare-builds-<round>-<old|new>.txt in the current directory.
"""
import re
import statistics
import subprocess
import sys

ROW = re.compile(r"^(?P<label>\S.*?)\s+(?P<ff>[\d.]+) (?P<unit>\S+)\s+(?P<ref>[\d.]+) \S+\s+ratio (?P<ratio>[\d.]+)")
FPS = re.compile(r"^\s+(?P<label>Python .*?): .*→ ratio (?P<ratio>[\d.]+)")
SECTION = re.compile(r"^\((?P<letter>[a-z])\)")


def parse(text):
    rows, section = {}, "?"
    for line in text.splitlines():
        if m := SECTION.match(line):
            section = m["letter"]
        elif m := ROW.match(line):
            rows[(section, m["label"])] = (float(m["ratio"]), float(m["ff"]), False)
        elif m := FPS.match(line):
            rows[(section, m["label"])] = (float(m["ratio"]), None, True)
    return rows


def main():
    old, new, rounds, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    runs = {"old": [], "new": []}
    for r in range(rounds):
        for name, root in (("old", old), ("new", new)):
            out = subprocess.run([f"{root}/.build/release/frameflow-bench", *args], cwd=root,
                                 capture_output=True, text=True).stdout
            with open(f"compare-builds-{r}-{name}.txt", "w") as f:
                f.write(out)
            runs[name].append(parse(out))
            print(f"round {r + 1}/{rounds} {name}: {len(runs[name][-1])} rows", file=sys.stderr, flush=True)
    keys = [k for k in runs["new"][0] if all(k in p for p in runs["old"] + runs["new"])]
    print(f"{'row':<62} {'old':>6} {'new':>6} {'new/old':>8}  old ratios | new ratios")
    flagged = 0
    for key in keys:
        o = [p[key][0] for p in runs["old"]]
        n = [p[key][0] for p in runs["new"]]
        mo, mn = statistics.median(o), statistics.median(n)
        higher_better = runs["new"][0][key][2]
        q = (mo / mn) if higher_better else (mn / mo)
        flag = "FLAG" if q > 1.10 else ""
        flagged += bool(flag)
        label = f"({key[0]}) {key[1]}"[:62]
        print(f"{label:<62} {mo:6.2f} {mn:6.2f} {q:8.2f}  {' '.join(f'{x:.2f}' for x in o)} | "
              f"{' '.join(f'{x:.2f}' for x in n)} {flag}")
    print(f"{len(keys)} rows, {flagged} more than 10 % worse by median ratio")


if __name__ == "__main__":
    main()
