"""Shared fixtures: the rulesets and their variants, and the command line binary the tests
compare against (`TABULA_BIN`, set by tests/python.rs to Cargo's build of `tabula`)."""

import os
import shutil
import subprocess

import pytest

# The five shipped rulesets, with their variants (`tabula list`), and the player count the
# tests play (the smallest that shows what they test, to keep the games short).
RULESETS = {
    "east-berlin": ([], 2),
    "temple": (["experts", "professionals"], 2),
    "colditz": ([], 2),
    "blackgate": (["team"], 4),
    "escape-plan": ([], 2),
}


def configurations():
    """Every ruleset alone and with each of its variants: `(ruleset, variants, players)`."""
    out = []
    for name, (variants, players) in RULESETS.items():
        out.append((name, [], 2 if name != "blackgate" else 2))
        for v in variants:
            out.append((name, [v], players))
    return out


@pytest.fixture(scope="session")
def tabula_bin():
    path = os.environ.get("TABULA_BIN") or shutil.which("tabula")
    if not path:
        pytest.fail("the tabula binary is needed: set TABULA_BIN (tests/python.rs does)")
    return path


@pytest.fixture(scope="session")
def run_cli(tabula_bin):
    def run(*args):
        done = subprocess.run([tabula_bin, *args], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run
