"""The module's registry, build, probe, hash and size, held against Cassandra 1.0's golden
filters and probe answers (fixtures/cassandra-1.0) and against the CLI's --json."""
import array

import pytest

import bloomcodec
from conftest import run_cli


def golden_probes(fixtures, name):
    """The keys and the answers Cassandra's own filter gave for them."""
    keys, answers = [], []
    for line in (fixtures / f"cassandra-1.0/filters/{name}.probes.tsv").read_text().splitlines():
        key, answer = line.split("\t")
        keys.append(bytes.fromhex(key))
        answers.append(int(answer))
    return keys, answers


def test_formats_are_the_cli_contracts():
    names = [f["name"] for f in bloomcodec.formats()]
    assert names[:2] == ["cassandra-1.0", "cassandra-legacy"]
    assert "leveldb-table" in names and "rocksdb-sst" in names
    assert all(f["summary"] for f in bloomcodec.formats())


def test_build_is_the_golden_file(fixtures, keys10):
    golden = (fixtures / "cassandra-1.0/filters/n10_b15.Filter.db").read_bytes()
    assert bloomcodec.build("cassandra-1.0", keys10, buckets_per_element=15) == golden
    # The same keys as one buffer plus offsets.
    offsets = [0]
    for k in keys10:
        offsets.append(offsets[-1] + len(k))
    assert bloomcodec.build("cassandra-1.0", b"".join(keys10), offsets,
                            buckets_per_element=15) == golden


def test_batch_probe_equals_single_probes_and_the_original(fixtures):
    keys, answers = golden_probes(fixtures, "n1000_b15")
    f = bloomcodec.Filter(fixtures / "cassandra-1.0/filters/n1000_b15.Filter.db",
                          format="cassandra-1.0")
    assert f.format == "cassandra-1.0"
    batch = f.probe_many(keys)
    assert isinstance(batch, bytearray) and list(batch) == answers
    assert [int(f.probe(k)) for k in keys] == answers
    # One buffer with offsets, as a list, an int64 array and an int32 array; answers into out=.
    flat = b"".join(keys)
    ends = [0]
    for k in keys:
        ends.append(ends[-1] + len(k))
    assert f.probe_many(flat, ends) == batch
    assert f.probe_many(memoryview(flat), array.array("q", ends)) == batch
    out = bytearray(len(keys))
    assert f.probe_many(bytearray(flat), array.array("i", ends), out=out) is out
    assert out == batch


def test_filter_from_bytes_and_str_keys(fixtures, keys10):
    data = (fixtures / "cassandra-1.0/filters/n10_b15.Filter.db").read_bytes()
    f = bloomcodec.Filter(data, format="cassandra-1.0", name="n10")
    assert list(f.probe_many(keys10)) == [1] * 10
    # str keys are their UTF-8 bytes.
    text = ["user:%d" % i for i in range(20)]
    g = bloomcodec.Filter(bloomcodec.build("cassandra-1.0", text, buckets_per_element=15),
                          format="cassandra-1.0")
    assert g.probe_many([t.encode() for t in text]) == g.probe_many(text) == bytearray([1] * 20)


def test_hash_and_size_equal_the_cli(tmp_path, keys10):
    (tmp_path / "k.hex").write_text("".join(k.hex() + "\n" for k in keys10[:4]))
    for fmt in ("cassandra-1.0", "leveldb-bloom", "rocksdb-bloom"):
        cli = run_cli("hash", "--format", fmt, "--keys", tmp_path / "k.hex", "--key-format", "hex",
                      "--json")
        assert [bloomcodec.hash(fmt, k) for k in keys10[:4]] == cli["hashes"]
    cli = run_cli("size", "--format", "cassandra-1.0", "--expected-keys", 1000, "--fp-chance",
                  0.01, "--json")
    assert bloomcodec.size("cassandra-1.0", 1000, fp_chance=0.01) == cli


def test_damaged_filter_raises_error_with_file_and_offset(fixtures):
    data = (fixtures / "cassandra-1.0/filters/n1000_b15.Filter.db").read_bytes()[:100]
    with pytest.raises(bloomcodec.Error) as e:
        bloomcodec.Filter(data, format="cassandra-1.0", name="cut-Filter.db")
    assert e.value.file == "cut-Filter.db"
    assert e.value.offset == 8
    assert "expected" in e.value.message and e.value.code == "corrupt"
    assert str(e.value).startswith("cut-Filter.db: byte 8: ")


def test_bad_arguments_raise_error():
    with pytest.raises(bloomcodec.Error, match="unknown format 'nope'"):
        bloomcodec.build("nope", [b"a"])
    with pytest.raises(bloomcodec.Error, match="offsets"):
        bloomcodec.build("cassandra-1.0", b"abc", [0, 4], buckets_per_element=15)
    with pytest.raises(bloomcodec.Error) as e:
        bloomcodec.Filter("/nonexistent/Filter.db", format="cassandra-1.0")
    assert e.value.file == "/nonexistent/Filter.db" and e.value.offset is None

