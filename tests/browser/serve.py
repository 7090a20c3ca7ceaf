#!/usr/bin/env python3
"""`tabula serve` in real browsers: a game is served, each human seat's link is opened in its
own headless Chromium (as each player would on their own screen), and the pages are played
through a whole game by clicking their option buttons (over the Chrome DevTools protocol).
Checked: the game ends on both pages, its log is one `tabula replay` accepts, and no page ever
held, in its data or its drawing, a piece its seat never saw in the game, nor showed where a
hidden piece lies. A screenshot of each seat's page is left in target/viewer/serve-*.png.

Two games: East Berlin with two human seats, and a three-seat real-time Temple game with one
agent (the temple collapsing early, the clock running 20 times as fast).

Usage: tests/browser/serve.py TABULA_BINARY CHROMIUM
"""

import base64
import json
import os
import random
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

TABULA, CHROMIUM = sys.argv[1], sys.argv[2]
SHOTS = os.path.abspath("target/viewer")
os.makedirs(SHOTS, exist_ok=True)
failures = []


def slug(title):
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


class DevTools:
    """A client of the Chrome DevTools protocol on one page: a WebSocket (RFC 6455, text
    frames) over a plain socket, enough for commands and their answers."""

    def __init__(self, url):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"no WebSocket: {head!r}")
        self.last = 0

    def _exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("the browser closed the connection")
            data += chunk
        return data

    def _send(self, text):
        data = text.encode()
        head = bytearray([0x81])
        if len(data) < 126:
            head.append(0x80 | len(data))
        elif len(data) < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack(">H", len(data))
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", len(data))
        mask = os.urandom(4)
        head += mask
        self.sock.sendall(bytes(head) + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _receive(self):
        message = b""
        while True:
            b1, b2 = self._exact(2)
            n = b2 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(n)
            if b1 & 0x0F in (0x1, 0x0):
                message += payload
                if b1 & 0x80:
                    return json.loads(message)

    def call(self, method, **params):
        self.last += 1
        self._send(json.dumps({"id": self.last, "method": method, "params": params}))
        while True:
            answer = self._receive()
            if answer.get("id") == self.last:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def eval(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")


class Browser:
    """A headless Chromium of its own (a player's screen), with one page."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="tabula-serve-chromium-")
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0", "--window-size=1400,900",
             f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.1)
        port = open(port_file).read().split()[0]
        pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        self.page = DevTools(next(p for p in pages if p["type"] == "page")["webSocketDebuggerUrl"])

    def open(self, url):
        self.page.call("Page.navigate", url=url)

    def screenshot(self, path):
        shot = self.page.call("Page.captureScreenshot", format="png")
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def close(self):
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


# What a page shows of its panel: whether it is asked, its options, the outcome.
PANEL = """(() => {
  const p = document.getElementById("play");
  if (!p) return null;
  return { version: +p.dataset.version, asked: p.dataset.asked || "", outcome: p.dataset.outcome || "",
           options: document.querySelectorAll("#play-options button[data-option]").length };
})()"""
# Everything the page holds: its data (the drawing's), its latest message (the panel's), and
# its document.
HELD = ("JSON.stringify(typeof data === 'undefined' ? null : data) + JSON.stringify(window.tabulaMessage || null)"
        " + document.documentElement.outerHTML")


def serve(args, players):
    """Starts `tabula serve`; returns the process and each human seat's link."""
    process = subprocess.Popen([TABULA, "serve", *args, "--port", "0"], stdout=subprocess.PIPE, text=True)
    lines = []
    while len(lines) <= players:
        line = process.stdout.readline()
        if not line:
            break
        if lines or "serving on" in line:
            lines.append(line)
    links = {}
    for line in lines[1:]:
        seat, _, rest = line.strip().partition(": ")
        if rest.startswith("http://"):
            links[seat] = rest
    return process, links


# What the page shows now: its latest message (the panel's) and the pieces drawn in each zone.
SHOWN = """JSON.stringify({ message: window.tabulaMessage || null,
  steps: typeof data === "undefined" || !data ? 0 : data.timelines[0].steps.length,
  drawn: Object.fromEntries([...document.querySelectorAll("[data-zone]")].map(z =>
    [z.dataset.zone, [...z.querySelectorAll("[data-piece]")].map(p => p.dataset.piece)])) })"""


def listing(text):
    """Each zone's pieces in a `tabula replay --view/--state` listing."""
    zones = {}
    for line in text.splitlines():
        if line.startswith("  ") and ": " in line:
            zone, items = line.strip().split(": ", 1)
            zones[zone] = {m.group(1) for item in re.split(r", (?=[a-z])", items)
                           if (m := re.match(r"([a-z][a-z0-9_]*)", item))}
    return zones


def hidden_placement(log, seat):
    """Where pieces lie now that `seat` does not see there: (zone, piece) pairs."""
    replay = lambda *a: subprocess.run([TABULA, "replay", log, *a], capture_output=True, text=True).stdout
    everything, seen = listing(replay("--state")), listing(replay("--view", seat, "--verbose"))
    return {(z, p) for z, pieces in everything.items() for p in pieces if p not in seen.get(z, set())}


def piece_names(text):
    """The pieces a `tabula replay --view/--state` listing names."""
    names = set()
    for line in text.splitlines():
        if line.startswith("  ") and ": " in line:
            for item in re.split(r", (?=[a-z])", line.split(": ", 1)[1]):
                m = re.match(r"([a-z][a-z0-9_]*)", item)
                if m:
                    names.add(m.group(1))
    return names


def never_seen(log, seat):
    """The pieces of the game logged in `log` that `seat` never saw at any line of it."""
    lines = open(log).read().count("\n") + 1
    everything = piece_names(subprocess.run([TABULA, "replay", log, "--state"], capture_output=True, text=True).stdout)
    seen = set()
    for k in range(1, lines + 1):
        out = subprocess.run([TABULA, "replay", log, "--until", str(k), "--view", seat, "--verbose"],
                             capture_output=True, text=True).stdout
        seen |= piece_names(out)
    return everything - seen


def holds(text, name):
    return re.search(rf"(?<![a-z0-9_]){re.escape(name)}(?![a-z0-9_])", text) is not None


def play(title, args, players, humans, seed, placement=False):
    print(f"== {title}")
    work = tempfile.mkdtemp(prefix="tabula-serve-")
    log = os.path.join(work, "game.log")
    # The browsers first: a real-time game's clock runs from the moment the server starts.
    ready = [Browser() for _ in range(humans)]
    server, links = serve([*args, "--log", log], players)
    browsers = dict(zip(links, ready))
    held = {seat: [] for seat in links}
    rng = random.Random(seed)
    outcome = {}
    placements = 0
    shot = set()
    try:
        for seat, link in links.items():
            browsers[seat].open(link)
        deadline = time.time() + 240
        clicks = looks = 0
        while len(outcome) < len(links) and time.time() < deadline:
            acted = False
            looks += 1
            for seat, browser in browsers.items():
                panel = browser.page.eval(PANEL)
                if not panel or not panel["version"]:
                    continue
                if panel["outcome"]:
                    outcome[seat] = panel["outcome"]
                    continue
                if looks % 4 == 0:
                    held[seat].append(browser.page.eval(HELD))
                if placement:
                    # Turn-based: nothing changes until a page clicks, so the log read now is
                    # the game the page shows (its drawing may lag, showing an earlier step).
                    # What the page shows is held against the game only where it is up to date
                    # (its message of the current version, its drawing at the latest step): the
                    # page learns of a change a moment after it.
                    shown = json.loads(browser.page.eval(SHOWN))
                    now = json.load(urllib.request.urlopen(links[seat] + "state"))
                    steps = len(json.load(urllib.request.urlopen(links[seat] + "data.json"))["timelines"][0]["steps"])
                    message = shown["message"] or {}
                    if message.get("version") != now["version"]:
                        message = {"view": {"zones": {}}}
                    drawn = shown["drawn"] if shown["steps"] == steps else {}
                    for zone, piece in hidden_placement(log, seat):
                        placements += "view" in message and message.get("version") is not None
                        told = [p["name"] for p in message["view"]["zones"].get(zone, {}).get("pieces", [])]
                        if piece in told or piece in drawn.get(zone, []):
                            report(f"{title}: {seat}'s page shows {piece} in {zone}, hidden from it", False)
                if panel["asked"] and panel["options"]:
                    if seat not in shot:
                        # A seat's page when it is first asked after a few moves, for a person to look at.
                        if clicks >= 6:
                            browser.screenshot(os.path.join(SHOTS, f"serve-{slug(title)}-{seat}.png"))
                            shot.add(seat)
                    i = rng.randrange(panel["options"])
                    browser.page.eval(f'document.querySelectorAll("#play-options button[data-option]")[{i}].click()')
                    clicks += 1
                    acted = True
            if not acted:
                time.sleep(0.05)
        for seat, browser in browsers.items():
            # The drawing follows the game once a second: the last step is drawn once it has.
            time.sleep(1.5)
            held[seat].append(browser.page.eval(HELD))
    finally:
        for browser in browsers.values():
            browser.close()
        server.kill()
        server.wait()
    ok = len(outcome) == len(links) and len(set(outcome.values())) == 1
    report(f"{title}: the game ended on every page ({outcome}, {clicks} clicks)", ok)
    replay = subprocess.run([TABULA, "replay", log], capture_output=True, text=True)
    ended = replay.returncode == 0 and f"game over: {next(iter(outcome.values()), '?')}" in replay.stdout
    report(f"{title}: tabula replay accepts the log and ends as the pages did", ended)
    for seat in links:
        hidden = never_seen(log, seat)
        leaks = sorted(name for name in hidden if any(holds(text, name) for text in held[seat]))
        report(f"{title}: {seat}'s page never held the {len(hidden)} pieces it never saw {leaks or ''}"
               f" ({len(held[seat])} looks)", not leaks and len(held[seat]) > 2)
    if placement:
        report(f"{title}: no page showed where a hidden piece lies ({placements} hidden placements looked at)",
               placements > 20 and not any("hidden from it" in f for f in failures))
    shutil.rmtree(work, ignore_errors=True)


def report(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


play("East Berlin, two people", ["east-berlin", "--seed", "11"], 2, 2, 5, placement=True)
play("Temple in real time, two people and an agent",
     ["temple", "--players", "3", "--seat", "green=heuristic", "--set", "collapse_ms=120000", "--speed", "20",
      "--seed", "5"], 3, 2, 2)
if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("all passed")
