#!/usr/bin/env python3
"""The replay viewer in a real browser: headless Chromium opens the pages `tabula view` wrote,
steps through the timeline and switches seats (through the page's `#seat=...&step=...` address,
as its controls do), and the rendered page is checked: the right pieces in the right zones at
given lines, the end of the game, and nothing a seat may not see. A screenshot of every shipped
ruleset's pages is left in target/viewer/ for a person to look at.

Usage: tests/browser/check.py TABULA_BINARY CHROMIUM
"""

import glob
import html.parser
import os
import re
import subprocess
import sys

TABULA, CHROMIUM = sys.argv[1], sys.argv[2]
OUT = os.path.abspath("target/viewer")
os.makedirs(OUT, exist_ok=True)
failures = []
passed = 0


class Zones(html.parser.HTMLParser):
    """The pieces drawn in each zone of a rendered page, and its text."""

    def __init__(self):
        super().__init__()
        self.stack, self.zones, self.text = [], {}, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        zone = attrs.get("data-zone")
        self.stack.append(zone)
        if "data-piece" in attrs:
            for z in reversed(self.stack):
                if z:
                    self.zones.setdefault(z, set()).add(attrs["data-piece"])
                    break
        if zone:
            self.zones.setdefault(zone, set())

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def chromium(*args):
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120).stdout


def render(page, hash_):
    """The page as the browser drew it at `#hash`."""
    dom = chromium("--virtual-time-budget=3000", "--dump-dom", f"file://{page}#{hash_}")
    parsed = Zones()
    parsed.feed(dom)
    return parsed.zones, " ".join(parsed.text), dom


def view(log, seat=None):
    name = os.path.splitext(os.path.basename(log))[0]
    ruleset = os.path.basename(os.path.dirname(log))
    page = os.path.join(OUT, f"{ruleset}-{name}{'.' + seat if seat else ''}.html")
    args = [TABULA, "view", log, "--out", page] + (["--seat", seat] if seat else [])
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        failures.append(f"tabula view {log} {seat or ''}: {result.stderr}")
    return page


def expect(what, ok):
    global passed
    print(("ok   " if ok else "FAIL ") + what)
    if ok:
        passed += 1
    else:
        failures.append(what)


# East Berlin, checkpoint-paid.log: line 22 puts Angela in the tunnel, face down ("Phase 1").
eb = "examples/logs/east-berlin/checkpoint-paid.log"
everyone, police = view(eb), view(eb, "police")
zones, _, _ = render(everyone, "seat=everyone&line=22")
expect("east-berlin line 22, everyone: angela in the tunnel", "angela" in zones.get("tunnel", set()))
zones, text, _ = render(everyone, "seat=police&line=22")
expect("east-berlin line 22, police (seat switched): angela not shown in the tunnel",
       "angela" not in zones.get("tunnel", set()) and "hidden" in text)
# An address naming a seat and a line lands on that line's step as the seat saw it (a seat's
# timeline has no line numbers of its own: the step is the one everyone's timeline has there).
_, seen_by_all, _ = render(everyone, "seat=everyone&line=22")
_, seen_by_police, dom = render(everyone, "seat=police&line=22")
step_at = lambda text: text.split("step ", 1)[1].split(" of")[0] if "step " in text else None
expect("east-berlin line 22, police: the step at line 22, not the last one",
       step_at(seen_by_police) is not None and step_at(seen_by_police) == step_at(seen_by_all)
       and 'data-seat="police"' in dom)
_, text, _ = render(police, "step=1000")
expect("east-berlin, police page, last step: the game is over and the exile won", "game over: exile" in text)
# Stepping back from the end: the first step is the setup, with every member in `members`.
zones, _, _ = render(everyone, "seat=everyone&step=0")
expect("east-berlin step 0: the six members wait in `members`",
       {"angela", "bruno", "carl", "dan", "erika", "fine"} <= zones.get("members", set()))

# Temple, escape.log: red and blue escape; the team wins.
tp = "examples/logs/temple/escape.log"
everyone, red = view(tp), view(tp, "red")
zones, text, _ = render(everyone, "seat=everyone&step=1000")
expect("temple escape.log, the end: both figures escaped", {"pawn_red", "pawn_blue"} <= zones.get("escaped", set()))
expect("temple escape.log, the end: the team won", "game over: win" in text)
zones, text, dom = render(red, "step=0")
expect("temple, red's page at the start: the pile is face down (no tile named)",
       not zones.get("pile") and "hidden" in text)

# A page holds each step's changes, and its script rebuilds a step's view from them: a page
# opened at `#step=N` shows step N, in the timeline and by its number.
zones, text, dom = render(everyone, "seat=everyone&step=12")
expect("temple escape.log, step 12: shown as step 12", 'data-step="12"' in dom and "step 12 of" in text)

# Every example log of every ruleset: each page opens and draws its last step, and every step
# of every observer rebuilt by jumping to it (`#check`) equals the step reached by stepping; a
# screenshot of the page for everyone is kept for a person to look at.
for log in sorted(glob.glob("examples/logs/*/*.log")):
    page = view(log)
    zones, text, dom = render(page, "seat=everyone&step=1000&check")
    expect(f"{log}: the page draws the end of the game", "game over:" in text and len(zones) > 0)
    expect(f"{log}: every step is the same reached by jumping as by stepping", 'data-check="ok"' in dom)
    shot = page[:-5] + ".png"
    chromium("--window-size=1280,1000", "--virtual-time-budget=3000", f"--screenshot={shot}", f"file://{page}#seat=everyone&step=12")
    expect(f"{log}: screenshot {os.path.relpath(shot)}", os.path.exists(shot) and os.path.getsize(shot) > 10000)

# The first screen (1400x1000) of each ruleset's page is its table: the board's pieces (those the
# page draws on its map or grid, or in its zones when it has neither) are drawn, and inside the
# first screen. The page says where it drew each piece (`<body data-pieces>`, page pixels). The
# screenshot is kept in target/viewer/first-<ruleset>.png (docs/images/ holds copies for the
# README).
FIRST = {
    "east-berlin": ("examples/logs/east-berlin/checkpoint-paid.log", "line=22"),
    "temple": ("examples/logs/temple/escape.log", "step=18"),
    "colditz": ("examples/logs/colditz/tunnel.log", "step=12"),
    "blackgate": ("examples/logs/blackgate/escape.log", "step=12"),
    "escape-plan": ("examples/logs/escape-plan/day-three-escape.log", "step=30"),
}
for ruleset, (log, where) in FIRST.items():
    page = view(log)
    size = "--window-size=1400,1000"
    dom = chromium(size, "--virtual-time-budget=3000", "--dump-dom", f"file://{page}#seat=everyone&{where}")
    found = re.search(r'data-pieces="([^"]*)"', dom)
    drawn = []
    for item in (found.group(1).split() if found else []):
        name, box = item.rsplit("@", 1)
        board_piece = name.endswith("!")
        x, y, w, h = (int(v) for v in box.split(","))
        drawn.append((name.rstrip("!"), board_piece, x, y, w, h))
    on_board = [d for d in drawn if d[1]] or drawn
    outside = [d[0] for d in on_board if d[2] < 0 or d[3] < 0 or d[2] + d[4] > 1400 or d[3] + d[5] > 1000 or d[4] == 0]
    expect(f"{ruleset}: the first screen draws the board's pieces ({len(on_board)}), all inside it: {outside[:5]}",
           len(on_board) > 0 and not outside)
    shot = os.path.join(OUT, f"first-{ruleset}.png")
    chromium(size, "--virtual-time-budget=3000", f"--screenshot={shot}", f"file://{page}#seat=everyone&{where}")
    expect(f"{ruleset}: first screen {os.path.relpath(shot)}", os.path.exists(shot) and os.path.getsize(shot) > 10000)

print(f"\nbrowser: {passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
