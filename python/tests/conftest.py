"""What the pytest suite of the Python module shares: the fixtures folder, the CLI built beside
the module (its --json is what the module's documents are held against), and a runner for it.
ctest sets BLOOMCODEC_CLI, BLOOMCODEC_FIXTURES and PYTHONPATH (python/CMakeLists.txt)."""
import json
import os
import pathlib
import subprocess

import pytest

FIXTURES = pathlib.Path(os.environ.get("BLOOMCODEC_FIXTURES",
                                       pathlib.Path(__file__).resolve().parents[2] / "fixtures"))
CLI = os.environ.get("BLOOMCODEC_CLI", "bloomcodec")


def run_cli(*args, cwd=None, check=True):
    """The CLI's standard output for args, as JSON when --json is among them."""
    p = subprocess.run([CLI, *map(str, args)], capture_output=True, cwd=cwd)
    if check and p.returncode not in (0, 1):
        raise AssertionError(f"bloomcodec {' '.join(map(str, args))}: exit {p.returncode}: "
                             f"{p.stderr.decode(errors='replace')}")
    return json.loads(p.stdout) if "--json" in args else p


@pytest.fixture(scope="session")
def fixtures():
    return FIXTURES


@pytest.fixture(scope="session")
def keys10(fixtures):
    """The ten keys of Cassandra 1.0's golden filters (a hex key file: one key per line, the
    first one empty)."""
    lines = (fixtures / "cassandra-1.0/filters/keys_n10.txt").read_text().split("\n")[:10]
    return [bytes.fromhex(line) for line in lines]
