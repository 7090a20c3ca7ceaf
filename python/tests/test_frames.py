"""Simulations and sweeps as data frames: the same numbers as the command line's for the same
seeds."""

import csv
import io
import json

import pandas as pd

import tabula


def frame_as_cli_csv(frame: pd.DataFrame) -> list:
    """The frame's rows written as `tabula sim --csv` writes them."""

    def cell(v):
        if v is None or v is pd.NA or (isinstance(v, float) and v != v):
            return ""
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)

    header = ",".join(frame.columns)
    return [header] + [",".join(cell(v) for v in row) for row in frame.astype(object).itertuples(index=False)]


def test_sim_equals_the_cli_csv_row_by_row(run_cli, tmp_path):
    frame = tabula.sim("east-berlin", games=2000, seed=1, backend="pandas")
    path = tmp_path / "games.csv"
    run_cli("sim", "east-berlin", "--games", "2000", "--seed", "1", "--csv", str(path), "--json")
    cli = path.read_text().splitlines()
    ours = frame_as_cli_csv(frame)
    assert len(ours) == 2001
    for line, (a, b) in enumerate(zip(cli, ours), start=1):
        assert a == b, f"line {line}: the CLI wrote {a!r}, the frame holds {b!r}"
    assert frame["seed"].dtype == "uint64"
    assert frame["rounds"].dtype == "Int64"


def test_sim_with_counters_players_and_variants(run_cli, tmp_path):
    frame, report = tabula.sim(
        "temple", games=12, seed=3, players=2, variants=["experts"], agent="random", record=["depot"], report=True
    )
    path = tmp_path / "games.csv"
    out = run_cli(
        "sim", "temple", "--games", "12", "--seed", "3", "--players", "2", "--variant", "experts",
        "--agent", "random", "--record", "depot", "--csv", str(path), "--json",
    )
    assert frame_as_cli_csv(frame) == path.read_text().splitlines()
    cli = json.loads(out)
    for key in ("outcomes", "balance", "games", "players", "agents"):
        if key in cli:
            assert report[key] == cli[key], key
    assert report["outcome_shares"] == cli["outcome_shares"]


def cells_without_identity(cells):
    return [{k: v for k, v in c.items() if k != "identity"} for c in cells]


def test_sweep_equals_the_cli(run_cli, tmp_path):
    frame, cells = tabula.sweep(
        "east-berlin", {"tunnel_length": "8..10", "checkpoint_cost": [3, 5]}, games=150, seed=2, cells=True,
        backend="pandas",
    )
    out = run_cli(
        "sweep", "east-berlin", "--set", "tunnel_length=8..10", "--set", "checkpoint_cost=3,5",
        "--games", "150", "--seed", "2", "--json", "--out", str(tmp_path),
    )
    assert cells_without_identity(cells) == cells_without_identity(json.loads(out))
    assert len(frame) == 6
    table = list(csv.DictReader(io.StringIO((tmp_path / "table.csv").read_text())))
    for row, (_, ours) in zip(table, frame.iterrows()):
        for column, text in row.items():
            value = ours[column]
            if text == "":
                assert value is None or pd.isna(value), column
            elif column in ("tunnel_length", "checkpoint_cost", "games"):
                assert str(value) == text, column
            else:
                # The CLI's CSV rounds (shares to four decimals, lengths to one).
                decimals = len(text.split(".")[1]) if "." in text else 0
                assert f"{value:.{decimals}f}" == text, (column, value, text)


def test_a_sweep_one_at_a_time_with_a_fixed_parameter(run_cli):
    axes = {"tunnel_length": [9, 12], "checkpoint_cost": "4", "money_start": range(3, 5)}
    _, cells = tabula.sweep("east-berlin", axes, games=40, seed=5, one_at_a_time=True, cells=True)
    out = run_cli(
        "sweep", "east-berlin", "--set", "tunnel_length=9,12", "--set", "checkpoint_cost=4",
        "--set", "money_start=3..4", "--games", "40", "--seed", "5", "--one-at-a-time", "--json",
    )
    assert cells_without_identity(cells) == cells_without_identity(json.loads(out))
