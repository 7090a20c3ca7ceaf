#!/usr/bin/env python3
"""Draws the city of an Escape Plan game as text, from `tabula replay <log>` (the final state).

    tabula replay examples/logs/escape-plan/day-three-escape.log | python3 rulesets/escape-plan/tools/city.py

Each tile is a box at its (x, y) (north up): its name, terrain (IND, COM, RES, WAT) and symbols
(S subway, H heliport, F ferry), its locations, and the officers on it (p patrol, s swat,
d detective), Sandra as I.
"""
import re
import sys

text = sys.stdin.read()
def zone(name):
    m = re.search(r"^  " + re.escape(name) + r": (.*)$", text, re.M)
    return m.group(1) if m else ""
def items(line):
    return re.findall(r"(\w+)\[([^\]]*)\]", line)
def props(s):
    return dict(kv.split("=", 1) for kv in s.split())

tiles = {n: props(p) for n, p in items(zone("city"))}
places = {}
for n, p in items(zone("map")):
    places.setdefault(props(p)["tile"], []).append(n)
police = {}
for n, p in items(zone("streets")):
    police.setdefault(props(p)["at"], []).append(props(p)["unit"][0])
for n, p in items(zone("figures")):
    if n == "sandra":
        t = [k for k, v in places.items() if props(p)["at"] in v]
        if t:
            police.setdefault(t[0], []).append("I")
W = 14
cells = {}
for n, p in tiles.items():
    sym = "".join(c for c, k in (("S", "subway"), ("H", "heli"), ("F", "ferry")) if p.get(k) == "1")
    lines = [n, p["terrain"][:3].upper() + (" " + sym if sym else "")]
    lines += places.get(n, [])[:2]
    lines += ["".join(sorted(police.get(n, [])))]
    cells[(int(p["x"]), int(p["y"]))] = [l[:W].ljust(W) for l in (lines + [""] * 5)[:5]]
xs = [x for x, _ in cells]; ys = [y for _, y in cells]
for y in range(max(ys), min(ys) - 1, -1):
    print("+" + "+".join("-" * W for _ in range(min(xs), max(xs) + 1)) + "+")
    for row in range(5):
        print("|" + "|".join(cells.get((x, y), [" " * W] * 5)[row] for x in range(min(xs), max(xs) + 1)) + "|")
print("+" + "+".join("-" * W for _ in range(min(xs), max(xs) + 1)) + "+")
