"""Runtime parts without Spark: key groups, rolling aggregations, chains, sources, plan."""

import json
import os
import subprocess
import sys

import pytest

from weir.common import Row, WatermarkStrategy
from weir.datastream import ProcessFunction
from weir.plan import graph as g
from weir.runtime.aggregations import rolling_reducer
from weir.runtime.chain import StatelessChain, Step
from weir.runtime.errors import UserFunctionError
from weir.runtime.key_groups import (
    KeyGroupAssigner,
    assign_to_key_group,
    stable_key_hash,
    stable_key_hashes,
)
from weir.runtime.output_tag import OutputTag
from weir.runtime.connectors.file_sink import FileSinkSpec
from weir.runtime.sink_writers import InProcessSink
from weir.runtime.sources import END_SPLIT, CollectionReader, FileReader
from weir.runtime.state.backend import KeyedStateBackend, MemoryPageStore
from weir.runtime.state.descriptors import ValueStateDescriptor
from weir.runtime.state.states import ValueState

KEYS = ["sensor_1", 42, -7, ("a", 1), 2**70, True, b"raw"]


def test_key_hash_is_the_same_in_processes_with_different_hash_seeds():
    script = (
        "from weir.runtime.key_groups import stable_key_hash;"
        f"print([stable_key_hash(k) for k in {KEYS!r}])"
    )
    results = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run(
            [sys.executable, "-c", script],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
        ).stdout
        results.add(out.strip())
    assert results == {str([stable_key_hash(k) for k in KEYS])}


def test_key_hashes_stay_what_checkpoints_were_written_with():
    """Keyed state lives in the key group of its key's hash: a restored checkpoint needs
    the same hashes (these are the values weir has always computed), one key at a time or
    many at once."""
    keys = KEYS + [2**127, -(2**127)]
    pinned = [
        2767468922,
        1452018826,
        2237834681,
        2016147753,
        494653024,
        239414433,
        3745629847,
        809782699,
        1181530444,
    ]
    assert [stable_key_hash(k) for k in keys] == pinned
    assert stable_key_hashes(keys) == pinned
    ints = list(range(-1000, 1000)) + [2**126, -(2**126)]
    assert stable_key_hashes(ints) == [stable_key_hash(k) for k in ints]
    assert KeyGroupAssigner(128, cache_size=10).key_groups(ints + ints[:5]) == [
        stable_key_hash(k) % 128 for k in ints + ints[:5]
    ]


def test_key_group_cache_forgets_when_full_without_losing_a_chunks_known_keys():
    assigner = KeyGroupAssigner(128, cache_size=10)
    assigner.key_groups(list(range(8)))
    keys = [1, 100, 101, 102, 100, 7]  # known and new keys: the cache overflows
    assert assigner.key_groups(keys) == [stable_key_hash(k) % 128 for k in keys]
    assert assigner.key_groups([0]) == [stable_key_hash(0) % 128]


def test_state_backend_keeps_each_keys_entry_current_through_clears_and_releases():
    stores = {}
    backend = KeyedStateBackend(lambda kg: stores.setdefault(kg, MemoryPageStore()), 4)
    count, name = (ValueState(backend, ValueStateDescriptor(n)) for n in ("count", "name"))

    backend.set_current_key("a")
    count.update(1)
    name.update("x")
    backend.set_current_key("b")
    assert count.value() is None
    count.update(2)
    backend.set_current_key("a")
    count.update(None)  # clears one state of "a": its other one stays
    assert (count.value(), name.value()) == (None, "x")
    name.clear()  # "a" has no state left: its entry leaves the page
    backend.set_current_key("a")
    assert name.value() is None
    group = assign_to_key_group("a", 4)
    assert "a" not in backend.key_group_pages(group).page(0)
    name.update("y")  # and comes back
    backend.release()  # stores the changed pages; later reads load them again
    assert count.value() is None and name.value() is None  # no key is current: nothing
    backend.set_current_key("a")
    assert (count.value(), name.value()) == (None, "y")
    backend.set_current_key("b")
    assert (count.value(), name.value()) == (2, None)


def test_keys_spread_over_key_groups():
    groups = [assign_to_key_group(f"key-{i}", 128) for i in range(12_800)]
    counts = [groups.count(kg) for kg in range(128)]
    assert min(counts) > 50 and max(counts) < 160


@pytest.mark.parametrize(
    "kind, records, expected",
    [
        ("sum", [(1, "a"), (2, "b"), (3, "c")], [(1, "a"), (3, "a"), (6, "a")]),
        ("min", [(5, "a"), (2, "b"), (9, "c")], [(5, "a"), (2, "a"), (2, "a")]),
        ("max", [(5, "a"), (2, "b"), (9, "c")], [(5, "a"), (5, "a"), (9, "a")]),
        ("min_by", [(5, "a"), (2, "b"), (2, "c")], [(5, "a"), (2, "b"), (2, "b")]),
        ("max_by", [(5, "a"), (9, "b"), (9, "c")], [(5, "a"), (9, "b"), (9, "b")]),
    ],
)
def test_rolling_aggregations_follow_flink(kind, records, expected):
    reducer = rolling_reducer(kind, 0)
    acc, results = None, []
    for record in records:
        acc = record if acc is None else reducer.reduce(acc, record)
        results.append(acc)
    assert results == expected


def test_rolling_sum_on_named_row_fields_and_scalars():
    reducer = rolling_reducer("sum", "n")
    assert reducer.reduce(Row(k="a", n=1), Row(k="b", n=2)) == Row(k="a", n=3)
    assert rolling_reducer("sum", 0).reduce(4, 5) == 9


class Splitter(ProcessFunction):
    def process_element(self, value, ctx):
        if value < 0:
            yield OutputTag("negative"), value
        else:
            yield value * ctx.timestamp()


def test_chain_runs_steps_in_order_and_routes_side_outputs():
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda v, ts: abs(v)
    )
    chain = StatelessChain(
        [
            Step("timestamps", strategy, "ts"),
            Step("flat_map", lambda v: [v, -v], "dup"),
            Step("process", Splitter(), "split"),
            Step("filter", lambda v: v != 4, "drop4"),
            Step("map", lambda v: v + 1, "inc"),
        ]
    )
    chain.open()
    main, side = chain.run([(2, None), (3, None)])
    assert main == [(10, 3)]
    assert side == [("negative", -2, 2), ("negative", -3, 3)]


def test_chain_errors_name_the_step():
    chain = StatelessChain([Step("map", lambda v: 1 // v, "divide")])
    chain.open()
    with pytest.raises(UserFunctionError, match="operator 'divide'.*ZeroDivisionError"):
        chain.run([(0, None)])


def test_collection_reader_batches_then_ends():
    reader = CollectionReader(list(range(5)), num_splits=2, max_records_per_batch=3)
    start = reader.initial_offset()
    first = reader.latest_offset(start)
    assert first == {"pos": 3, "end": 0}
    assert reader.splits(start, first) == [(0, 0, 1), (1, 1, 3)]
    second = reader.latest_offset(first)
    assert second == {"pos": 5, "end": 1}
    assert reader.splits(first, second) == [(0, 3, 4), (1, 4, 5), END_SPLIT]
    assert reader.latest_offset(second) == second
    assert list(reader.read(1, 3)) == [(1, None), (2, None)]
    empty = CollectionReader([])
    assert empty.latest_offset(empty.initial_offset()) == {"pos": 0, "end": 1}


def test_file_reader_reads_json_csv_and_text_in_modification_order(tmp_path):
    (tmp_path / "b.json").write_text('{"id": "s1", "t": 1}\n{"id": "s2", "t": 2}\n')
    os.utime(tmp_path / "b.json", ns=(1, 1))
    (tmp_path / "a.json").write_text('{"id": "s3", "t": 3}\n')
    os.utime(tmp_path / "a.json", ns=(2, 2))
    reader = FileReader(str(tmp_path), "json")
    end = reader.latest_offset(reader.initial_offset())
    splits = reader.splits(reader.initial_offset(), end)
    assert splits[-1] == END_SPLIT
    values = [v for _, files in splits[:-1] for v, _ in reader.read_files(files)]
    assert values == [Row(id="s1", t=1), Row(id="s2", t=2), Row(id="s3", t=3)]
    csv_file = tmp_path / "x.csv"
    csv_file.write_text("id,t\ns1,5\n")
    assert list(FileReader(str(csv_file), "csv").read_files([str(csv_file)])) == [
        (Row(id="s1", t="5"), None)
    ]


def test_file_reader_gives_bad_json_lines_as_dead_letters_when_asked(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1}\nnot json\n[2]\n')
    values = [
        v for v, _ in FileReader(str(bad), "json", dead_letter_tag="dead").read_files([str(bad)])
    ]
    assert values[0] == Row(a=1)
    assert [(d.position, d.reason.split(":")[0], d.record) for d in values[1:]] == [
        (f"{bad}:2", "not a JSON object", b"not json\n"),
        (f"{bad}:3", "not a JSON object", b"[2]\n"),
    ]
    with pytest.raises(ValueError, match="'csv' file has no such records"):
        FileReader(str(bad), "csv", dead_letter_tag="dead")


def test_file_reader_rejects_bad_json_with_file_and_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1}\nnot json\n')
    with pytest.raises(ValueError, match="bad.json:2: not a JSON object"):
        list(FileReader(str(bad), "json").read_files([str(bad)]))


def test_file_sink_writes_each_batch_once_and_replays_replace(tmp_path):
    sink = InProcessSink(FileSinkSpec(str(tmp_path), "json"), "files", "job")
    sink.write([Row(a=1), Row(a=2)], 3)
    sink.write([Row(a=1), Row(a=2)], 3)
    files = sorted(os.listdir(tmp_path))
    assert files == ["part-job-files-0000000003-0-0.json"]
    lines = (tmp_path / files[0]).read_text().splitlines()
    assert [json.loads(line) for line in lines] == [{"a": 1}, {"a": 2}]


def test_sources_without_watermarks_and_uids():
    graph = g.JobGraph()
    plain = graph.add(g.SOURCE, "plain")
    timed = graph.add(g.SOURCE, "timed")
    mapped = graph.add(g.STATELESS, "map", (timed.id,), step="map", function=abs)
    wm = graph.add(g.WATERMARK, "wm", (mapped.id,), strategy=None)
    union = graph.add(g.UNION, "union", (plain.id, wm.id))
    nodes = graph.upstream_of([union])
    assert g.sources_without_watermarks(nodes) == [plain.id]
    assert g.assign_uids(nodes) == {
        0: "source-0",
        1: "source-1",
        2: "stateless-0",
        3: "watermark-0",
        4: "union-0",
    }
    graph.update(plain.id, uid="same")
    graph.update(timed.id, uid="same")
    with pytest.raises(ValueError, match="uid 'same' is used by more than one operator"):
        g.assign_uids(graph.upstream_of([union]))


def test_paced_bounded_generator_always_makes_progress_until_its_end():
    from weir.runtime.sources import DataGeneratorReader

    reader = DataGeneratorReader(lambda i: i, count=3, records_per_second=200)
    offset, steps = reader.initial_offset(), []
    while not offset["end"]:
        offset = reader.latest_offset(offset)
        steps.append(offset["pos"])
    assert steps[-1] == 3 and all(b > a for a, b in zip([0] + steps, steps))


def test_paused_gc_restores_the_collector_state_even_on_error():
    import gc
    from weir.runtime.gc_pause import paused_gc

    assert gc.isenabled()
    with pytest.raises(ValueError):
        with paused_gc():
            assert not gc.isenabled()
            with paused_gc():  # nested: the outer pause still holds after the inner ends
                pass
            assert not gc.isenabled()
            raise ValueError("boom")
    assert gc.isenabled()


def _parquet_file(tmp_path, names, rows):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = str(tmp_path / "rows.parquet")
    pq.write_table(pa.table({name: [row[i] for row in rows] for i, name in enumerate(names)}), path)
    return path


def test_parquet_splits_read_their_row_ranges_as_rows(tmp_path):
    from weir.common.row import Row
    from weir.runtime.sources import FileReader

    rows = [(i, f"s{i}", i * 0.5) for i in range(10)]
    path = _parquet_file(tmp_path, ["id", "name", "x.y"], rows)
    reader = FileReader(str(tmp_path), "parquet")
    reader.rows_per_split = 4
    splits = reader.splits(reader.initial_offset(), reader.latest_offset(reader.initial_offset()))
    assert [s for s in splits if s != "end"] == [
        (0, [(path, 0, 3)]),
        (1, [(path, 3, 6)]),
        (2, [(path, 6, 10)]),
    ]
    read = [value for split in splits if split != "end" for value, _ in reader.read_files(split[1])]
    assert read == [Row(id=i, name=n, **{"x.y": x}) for i, n, x in rows]
    assert [r.id for r in read] == list(range(10)) and read[7]["x.y"] == 3.5


def test_parquet_batches_are_cut_into_about_target_splits_row_ranges(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from weir.runtime.sources import FileReader

    paths = []
    for name, rows in (("a.parquet", 10), ("b.parquet", 30)):
        paths.append(str(tmp_path / name))
        pq.write_table(pa.table({"id": list(range(rows))}), paths[-1])
    reader = FileReader(str(tmp_path), "parquet")
    reader.min_rows_per_split, reader.rows_per_split, reader.target_splits = 4, 12, 4

    def splits():
        start = reader.initial_offset()
        return reader.splits(start, reader.latest_offset(start))

    # 40 rows for 4 splits: 10 rows a split, so the 30-row file is cut in three
    assert splits() == [
        (0, [paths[0]]),
        (1, [(paths[1], 0, 10)]),
        (2, [(paths[1], 10, 20)]),
        (3, [(paths[1], 20, 30)]),
        "end",
    ]
    reader.target_splits = 1  # one split would be 40 rows: at most 12
    assert splits() == [
        (0, [paths[0]]),
        (1, [(paths[1], 0, 10)]),
        (2, [(paths[1], 10, 20)]),
        (3, [(paths[1], 20, 30)]),
        "end",
    ]
    reader.target_splits = 20  # 2 rows a split: at least 4
    cut = splits()
    assert cut[:3] == [(0, [(paths[0], 0, 3)]), (1, [(paths[0], 3, 6)]), (2, [(paths[0], 6, 10)])]
    assert len(cut) == 3 + 8 + 1 and cut[-2] == (10, [(paths[1], 26, 30)])


@pytest.fixture
def read_columns(monkeypatch):
    """The columns each pyarrow.parquet.read_table call reads, in call order."""
    import pyarrow.parquet as pq

    calls = []
    real_read_table = pq.read_table

    def read_table(source, columns=None, **kwargs):
        calls.append(columns)
        return real_read_table(source, columns=columns, **kwargs)

    monkeypatch.setattr(pq, "read_table", read_table)
    return calls


def test_parquet_rows_read_only_the_columns_a_job_reads(tmp_path, read_columns):
    from weir.runtime.sources import read_file

    path = _parquet_file(tmp_path, ["id", "name"], [(1, "a"), (2, "b"), (3, "c")])
    rows = list(read_file(path, "parquet", (1, 3)))
    assert [r.name for r in rows] == ["b", "c"]
    assert read_columns == [["name"]]
    assert rows[0].id == 2 and read_columns == [["name"], ["id"]]


def test_parquet_row_ranges_of_one_file_decode_its_columns_once(tmp_path, read_columns):
    import os
    from weir.runtime.sources import read_file

    path = _parquet_file(tmp_path, ["id", "name"], [(i, f"n{i}") for i in range(6)])
    assert [r.id for r in read_file(path, "parquet", (0, 3))] == [0, 1, 2]
    assert [r.id for r in read_file(path, "parquet", (3, 6))] == [3, 4, 5]
    assert read_columns == [["id"]]
    # the file is replaced: its new contents are read, never the cached column
    os.remove(path)
    assert _parquet_file(tmp_path, ["id", "name"], [(i * 10, "x") for i in range(6)]) == path
    assert [r.id for r in read_file(path, "parquet", (3, 6))] == [30, 40, 50]
    assert read_columns == [["id"], ["id"]]


@pytest.mark.parametrize("row_range", [None, (2, 7), (5, 5)])
def test_parquet_text_columns_read_as_the_same_strings(tmp_path, row_range):
    from weir.runtime.sources import read_file

    names = ["view", "click", None, "purchase", "view", "", "click", "view", "é"]
    rows = [(i, name, None if name is None else name * 2) for i, name in enumerate(names)]
    path = _parquet_file(tmp_path, ["id", "kind", "with_nulls"], rows)
    lo, hi = row_range or (0, len(rows))
    read = list(read_file(path, "parquet", row_range))
    assert [(r.id, r.kind, r.with_nulls) for r in read] == rows[lo:hi]
    assert all(type(r.kind) is str for r in read if r.kind is not None)


def test_parquet_text_column_without_nulls_shares_one_str_per_value(tmp_path):
    from weir.runtime.sources import read_file

    path = _parquet_file(tmp_path, ["kind"], [("view",), ("click",), ("view",)])
    read = [r.kind for r in read_file(path, "parquet")]
    assert read == ["view", "click", "view"] and read[0] is read[2]


def test_parquet_number_columns_read_as_pyarrow_gives_them(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from weir.runtime.sources import read_file

    table = pa.table(
        {
            "i": pa.array([1, -2, 3], pa.int64()),
            "u": pa.array([2**63 + 1, 0, 5], pa.uint64()),
            "b": pa.array([1, 2, 3], pa.int8()),
            "f": pa.array([0.1, -0.0, 1e300]),
            "f32": pa.array([0.5, 1.25, 3.0], pa.float32()),
            "n": pa.array([1, None, 3]),
        }
    )
    path = str(tmp_path / "numbers.parquet")
    pq.write_table(table, path)
    expected = [tuple(row.values()) for row in table.to_pylist()]
    read = [tuple(row) for row in read_file(path, "parquet")]
    assert read == expected
    assert [list(map(type, row)) for row in read] == [list(map(type, row)) for row in expected]
    assert str(read[1][3]) == "-0.0"
