"""Sweeps on Ray give the table `tabula sweep` gives for the same seeds."""

import json

import pytest
import ray

import tabula
import tabula.ray


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_a_ray_sweep_equals_the_cli(local_ray, run_cli):
    frame, cells = tabula.ray.sweep(
        "east-berlin", {"tunnel_length": [8, 10]}, games=230, seed=4, games_per_task=70, cells=True
    )
    out = run_cli("sweep", "east-berlin", "--set", "tunnel_length=8,10", "--games", "230", "--seed", "4", "--json")
    cli = [{k: v for k, v in c.items() if k != "identity"} for c in json.loads(out)]
    ours = [{k: v for k, v in c.items() if k != "identity"} for c in cells]
    assert ours == cli
    local = tabula.sweep("east-berlin", {"tunnel_length": [8, 10]}, games=230, seed=4, backend="pandas")
    assert frame.equals(local)
