"""inspect, verify and convert of the module: the same documents as the CLI's --json, on the
demo fixtures (fixtures/demo) and Cassandra 1.0's golden filters; damaged inputs raise
bloomcodec.Error with the file and the offset; a long call lets other threads run."""
import faulthandler
import os
import shutil
import threading

import pytest

import bloomcodec
from conftest import run_cli

# A call that never gave the GIL back would hang the GIL test: end the process instead, from a
# thread that needs no GIL.
faulthandler.dump_traceback_later(60, exit=True)


def test_verify_equals_the_cli_on_the_demo(fixtures):
    demo = fixtures / "demo"
    paths = [str(demo / "cassandra-data"), str(demo / "leveldb-db")]
    cli = run_cli("verify", *paths, "--json")
    assert bloomcodec.verify(paths) == cli
    assert cli["summary"]["files"] >= 8  # the demo's sstables and tables, all of them
    one = str(demo / "cassandra-data/Keyspace1/Standard1-hc-1-Filter.db")
    assert bloomcodec.verify(one) == run_cli("verify", one, "--json")


def test_verify_with_keys_equals_the_cli(fixtures, keys10):
    f = str(fixtures / "cassandra-1.0/filters/n10_b15.Filter.db")
    keys = str(fixtures / "cassandra-1.0/filters/keys_n10.txt")
    cli = run_cli("verify", f, "--format", "cassandra-1.0", "--keys", keys, "--key-format", "hex",
                  "--json")
    assert bloomcodec.verify(f, format="cassandra-1.0", keys=keys, key_format="hex") == cli
    assert cli["files"][0]["keys_checked"] == 10
    # The keys themselves: the same findings.
    doc = bloomcodec.verify(f, format="cassandra-1.0", keys=keys10)
    assert doc["files"][0]["keys_checked"] == 10 and doc["files"][0]["status"] == "ok"


def test_inspect_equals_the_cli(fixtures):
    paths = [str(fixtures / "demo/cassandra-data/Keyspace1/Standard1-e-3-Filter.db"),
             str(fixtures / "demo/leveldb-db/000050.ldb"),
             str(fixtures / "demo/leveldb-db/000049.ldb.gz")]
    assert bloomcodec.inspect(paths) == run_cli("inspect", *paths, "--json")


def test_convert_equals_the_cli(fixtures, tmp_path):
    f = str(fixtures / "cassandra-1.0/filters/n10_b15.Filter.db")
    keys = str(fixtures / "cassandra-1.0/filters/keys_n10.txt")
    out = str(tmp_path / "out-Filter.db")
    cli = run_cli("convert", f, "--format", "cassandra-1.0", "-o", out, "--to", "cassandra-1.0",
                  "--fp-chance", "0.01", "--keys", keys, "--key-format", "hex", "--json")
    written_by_cli = open(out, "rb").read()
    os.remove(out)
    doc = bloomcodec.convert(f, "cassandra-1.0", out, format="cassandra-1.0", fp_chance=0.01,
                             keys=keys, key_format="hex")
    assert doc == cli and doc["how"] == "rebuilt"
    assert open(out, "rb").read() == written_by_cli
    golden = (fixtures / "cassandra-1.0/filters/n10_fp0.01.Filter.db").read_bytes()
    assert written_by_cli == golden


def test_damaged_inputs_raise_error_with_file_and_offset(fixtures, tmp_path):
    cut = tmp_path / "cut-Filter.db"
    cut.write_bytes((fixtures / "cassandra-1.0/filters/n1000_b15.Filter.db").read_bytes()[:100])
    with pytest.raises(bloomcodec.Error) as e:
        bloomcodec.inspect(str(cut), format="cassandra-1.0")
    assert (e.value.file, e.value.offset) == (str(cut), 8)
    table = tmp_path / "cut.ldb"
    table.write_bytes((fixtures / "demo/leveldb-db/000050.ldb").read_bytes()[:300])
    with pytest.raises(bloomcodec.Error) as e:
        bloomcodec.inspect(str(table), format="leveldb-table")
    assert (e.value.file, e.value.offset) == (str(table), 292)
    assert "magic" in e.value.message
    with pytest.raises(bloomcodec.Error) as e:
        bloomcodec.convert(str(cut), "cassandra-1.0", str(tmp_path / "o"), format="cassandra-1.0",
                           fp_chance=0.01, keys=[b"a"])
    assert (e.value.file, e.value.offset) == (str(cut), 8)
    # Inside a directory, a damaged file is a finding of that file (verify's contract).
    data = tmp_path / "data/ks"
    shutil.copytree(fixtures / "demo/cassandra-data/Keyspace1", data)
    (data / "Standard1-hc-1-Filter.db").write_bytes(cut.read_bytes())
    doc = bloomcodec.verify(str(tmp_path / "data"))
    bad = [f for f in doc["files"] if f["path"].endswith("Standard1-hc-1-Filter.db")][0]
    assert bad["status"] == "error" and bad["findings"][0]["offset"] == 8
    with pytest.raises(bloomcodec.Error) as e:
        bloomcodec.verify(str(tmp_path / "absent"))
    assert e.value.file == str(tmp_path / "absent") and e.value.offset is None


def test_verify_releases_the_gil(fixtures, tmp_path):
    """verify reads its file from a FIFO that this thread opens only after the call has started:
    the call can only finish if it let this thread run meanwhile (no timing involved)."""
    fifo = tmp_path / "Standard1-hc-1-Filter.db"
    os.mkfifo(fifo)
    results = []
    worker = threading.Thread(
        target=lambda: results.append(bloomcodec.verify(str(fifo), format="cassandra-1.0")))
    worker.start()
    # Opening the FIFO to write blocks until verify, in the worker, has opened it to read; it
    # then reads an empty file (verify takes a FIFO's size as its length: 0).
    with open(fifo, "wb"):
        pass
    worker.join()
    [report] = results[0]["files"]
    assert report["path"] == str(fifo) and report["format"] == "cassandra-1.0"
    assert report["findings"][0]["kind"] == "structure" and report["findings"][0]["offset"] == 0
