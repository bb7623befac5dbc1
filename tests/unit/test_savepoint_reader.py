"""Reading a savepoint's keyed state back in pure Python (weir.state.read_keyed_state_rows):
the pages are written by weir's own keyed state backend and state objects, as a job
writes them, then read back exactly; weir's own pages and window state are left out."""

import pytest

from weir.common import Duration
from weir.common.typeinfo import Types
from weir.datastream.functions import AggregateFunction
from weir.datastream.state import (
    AggregatingStateDescriptor,
    ListStateDescriptor,
    MapStateDescriptor,
    ReducingStateDescriptor,
    StateTtlConfig,
    ValueStateDescriptor,
)
from weir.runtime.state.backend import KeyedStateBackend, MemoryPageStore, dumps
from weir.runtime.state.savepoint import SavepointWriter
from weir.runtime.state.states import create_state
from weir.runtime.wire import TIMER_PAGE
from weir.state import OperatorKeyedState, read_keyed_state_rows

MAX_PARALLELISM = 8
KEYS = ["a", "b", "c", "d", "e"]


class Average(AggregateFunction):
    def create_accumulator(self):
        return (0, 0)

    def add(self, value, accumulator):
        return (accumulator[0] + value, accumulator[1] + 1)

    def get_result(self, accumulator):
        return accumulator[0] / accumulator[1]

    def merge(self, a, b):
        return (a[0] + b[0], a[1] + b[1])


def ttl_config():
    return StateTtlConfig.new_builder(Duration.of_millis(100)).build()


def descriptors():
    seen_with_ttl = ValueStateDescriptor("seen")
    seen_with_ttl.enable_time_to_live(ttl_config())
    return {
        "count": ValueStateDescriptor("count", Types.LONG()),
        "items": ListStateDescriptor("items", Types.INT()),
        "by_word": MapStateDescriptor("by_word", Types.STRING(), Types.INT()),
        "seen": seen_with_ttl,
        "total": ReducingStateDescriptor("total", lambda a, b: a + b),
        "mean": AggregatingStateDescriptor("mean", Average()),
    }


def fill_state(backend, clock):
    """Each key's state as a job keeps it: key i (of KEYS) saw i + 1 elements."""
    states = {name: create_state(backend, d, d.kind) for name, d in descriptors().items()}
    for i, key in enumerate(KEYS):
        backend.set_current_key(key)
        for n in range(i + 1):
            states["count"].update(n + 1)
            states["items"].add(n * 10)
            states["total"].add(n)
            states["mean"].add(n)
        if i % 2 == 0:  # only the even keys have a map and TTL state
            states["by_word"].put(f"w{i}", i)
            states["by_word"].put("all", 1)
            clock[0] = 1000 + i
            states["seen"].update(True)
        # a window's state of this key: a (view, namespace) slot, not user keyed state
        backend.put_entry(("window", (0, 10)), {"contents": [key]})
    backend.flush()


@pytest.fixture
def savepoint_dir(tmp_path):
    stores = {}
    clock = [0]
    backend = KeyedStateBackend(
        lambda kg: stores.setdefault(kg, MemoryPageStore()), MAX_PARALLELISM, clock=lambda: clock[0]
    )
    fill_state(backend, clock)
    rows = [
        (kg, page_id, blob)
        for kg, store in sorted(stores.items())
        for page_id, blob in sorted(store.pages.items())
    ]
    # weir's own page of a key group (timers): never read as keyed state
    rows.append((0, TIMER_PAGE, dumps({"z": {"count": 99}})))
    writer = SavepointWriter(str(tmp_path / "savepoint-abcdef-000000000000"))
    writer.write_keyed("counter", rows)
    writer.write_operator_state("buffering-sink", [(0, 1, dumps({}))])
    return writer.finish("job", "abcdef0123", 3, MAX_PARALLELISM, 2, {"events": {"n": 5}})


def test_value_state_rows_are_each_keys_value(savepoint_dir):
    rows = read_keyed_state_rows(savepoint_dir, "counter", "count")
    assert sorted(rows) == [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5)]


def test_list_map_and_reducing_state_rows_are_as_stored(savepoint_dir):
    assert sorted(read_keyed_state_rows(savepoint_dir, "counter", "items")) == [
        ("a", [0]),
        ("b", [0, 10]),
        ("c", [0, 10, 20]),
        ("d", [0, 10, 20, 30]),
        ("e", [0, 10, 20, 30, 40]),
    ]
    assert sorted(read_keyed_state_rows(savepoint_dir, "counter", "by_word")) == [
        ("a", {"w0": 0, "all": 1}),
        ("c", {"w2": 2, "all": 1}),
        ("e", {"w4": 4, "all": 1}),
    ]
    assert sorted(read_keyed_state_rows(savepoint_dir, "counter", "total")) == [
        ("a", 0),
        ("b", 1),
        ("c", 3),
        ("d", 6),
        ("e", 10),
    ]


def test_ttl_state_is_unwrapped_expired_or_not(savepoint_dir):
    assert sorted(read_keyed_state_rows(savepoint_dir, "counter", "seen")) == [
        ("a", (True, 1000)),
        ("c", (True, 1002)),
        ("e", (True, 1004)),
    ]
    assert sorted(read_keyed_state_rows(savepoint_dir, "counter", "seen", ttl=True)) == [
        ("a", True),
        ("c", True),
        ("e", True),
    ]


def test_values_read_as_each_state_kind_reads_them(savepoint_dir):
    state = OperatorKeyedState(savepoint_dir, "counter")
    given = descriptors()
    assert sorted(state.values(given["seen"])) == [("a", True), ("c", True), ("e", True)]
    assert sorted(state.values(given["mean"])) == [
        ("a", 0.0),
        ("b", 0.5),
        ("c", 1.0),
        ("d", 1.5),
        ("e", 2.0),
    ]
    assert sorted(state.values(given["count"])) == [
        ("a", 1),
        ("b", 2),
        ("c", 3),
        ("d", 4),
        ("e", 5),
    ]


def test_only_user_pages_and_plain_state_names_are_read(savepoint_dir):
    state = OperatorKeyedState(savepoint_dir, "counter")
    assert state.state_names() == ["by_word", "count", "items", "mean", "seen", "total"]
    assert sorted(state.keys()) == KEYS  # not the timer page's "z"


def test_a_state_the_operator_never_wrote_has_no_rows(savepoint_dir):
    assert read_keyed_state_rows(savepoint_dir, "counter", "never") == []


def test_an_unknown_uid_is_refused_naming_the_savepoint_and_its_uids(savepoint_dir):
    with pytest.raises(ValueError) as error:
        read_keyed_state_rows(savepoint_dir, "countr", "count")
    assert str(error.value) == (
        f"savepoint {savepoint_dir} has no keyed state of an operator with uid 'countr'; "
        "the uids of its operators with keyed state: 'counter'"
    )


def test_a_uid_without_keyed_state_is_refused_saying_so(savepoint_dir):
    with pytest.raises(ValueError) as error:
        read_keyed_state_rows(savepoint_dir, "buffering-sink", "count")
    assert str(error.value) == (
        f"savepoint {savepoint_dir} has no keyed state of an operator with uid "
        "'buffering-sink' (it has 'buffering-sink', without keyed state: a source, or an "
        "operator with operator state only); the uids of its operators with keyed state: "
        "'counter'"
    )


def test_reading_with_the_wrong_descriptor_is_refused(savepoint_dir):
    where = f"state 'count' of operator 'counter' in savepoint {savepoint_dir}"
    with pytest.raises(TypeError) as error:
        read_keyed_state_rows(savepoint_dir, "counter", "count", ttl=True)
    assert str(error.value).startswith(f"{where}: the value of key ")
    assert str(error.value).endswith(
        " is not stored with a TTL (a (value, last access) "
        "pair): read it with a descriptor without "
        "enable_time_to_live"
    )
    with pytest.raises(TypeError) as error:
        OperatorKeyedState(savepoint_dir, "counter").values(ListStateDescriptor("count"))
    assert str(error.value).startswith(f"{where}: key ")
    assert str(error.value).endswith(
        " holds a value of type int, not a ListState's list: "
        "read it with the descriptor of the state's kind"
    )


def test_untyped_values_that_are_not_simple_are_refused_before_spark_is_used(savepoint_dir):
    from weir.state import read_keyed_state

    with pytest.raises(TypeError) as error:
        read_keyed_state(None, savepoint_dir, "counter", ValueStateDescriptor("seen"))
    assert str(error.value) == (
        f"state 'seen' of operator 'counter' in savepoint {savepoint_dir}: its values are "
        "not all of one simple type (str, int, float or bool): they are tuple; give the "
        "descriptor their type, e.g. ValueStateDescriptor('seen', Types.INT())"
    )


class TableSpark:
    """Stands in for a SparkSession: gives back the Arrow table and schema it is handed."""

    def createDataFrame(self, table, schema):
        return table, schema


def test_frame_columns_are_typed_by_the_descriptor_or_from_simple_values(savepoint_dir):
    from weir.state import read_keyed_state

    def read(descriptor):
        table, schema = read_keyed_state(TableSpark(), savepoint_dir, "counter", descriptor)
        assert [field.name for field in table.schema] == ["key", "value"]
        return schema.simpleString(), sorted(tuple(row.values()) for row in table.to_pylist())

    given = descriptors()
    assert read(given["count"]) == (
        "struct<key:string,value:bigint>",
        [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5)],
    )
    assert read(given["items"]) == (
        "struct<key:string,value:array<int>>",
        [
            ("a", [0]),
            ("b", [0, 10]),
            ("c", [0, 10, 20]),
            ("d", [0, 10, 20, 30]),
            ("e", [0, 10, 20, 30, 40]),
        ],
    )
    assert read(MapStateDescriptor("by_word")) == (
        "struct<key:string,value:map<string,bigint>>",
        [
            ("a", [("w0", 0), ("all", 1)]),
            ("c", [("w2", 2), ("all", 1)]),
            ("e", [("w4", 4), ("all", 1)]),
        ],
    )
    assert read(given["mean"]) == (
        "struct<key:string,value:double>",
        [("a", 0.0), ("b", 0.5), ("c", 1.0), ("d", 1.5), ("e", 2.0)],
    )
    assert read(ListStateDescriptor("never", Types.STRING())) == (
        "struct<key:string,value:array<string>>",
        [],
    )
    assert read(ValueStateDescriptor("never")) == ("struct<key:string,value:void>", [])


def test_values_not_of_the_declared_type_are_refused(savepoint_dir):
    from weir.state import read_keyed_state

    with pytest.raises(TypeError) as error:
        read_keyed_state(
            TableSpark(), savepoint_dir, "counter", ValueStateDescriptor("count", Types.STRING())
        )
    assert str(error.value) == (
        f"state 'count' of operator 'counter' in savepoint {savepoint_dir}: key 'e': path "
        "value: expected STRING, got int 5"
    )
