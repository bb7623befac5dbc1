"""A savepoint written from data (the State Processor API's writing side) holds each key in
its key group's page as a job's backend would: reading it back, or a job's state backend
loading it, gives the values written."""

import pytest

from weir.runtime.key_groups import assign_to_key_group
from weir.runtime.state.backend import KeyedStateBackend, MemoryPageStore
from weir.runtime.state.bootstrap import write_keyed_savepoint
from weir.runtime.state.savepoint import load_savepoint
from weir.runtime.state.savepoint_reader import read_keyed_state_rows


def test_written_state_reads_back_and_loads_into_a_backend(tmp_path):
    entries = [(f"k{i}", {"count": i * 10, "seen": [i]}) for i in range(20)]
    path = write_keyed_savepoint(str(tmp_path), {"counts": entries}, max_parallelism=16)
    savepoint = load_savepoint(path)
    assert (savepoint.max_parallelism, savepoint.sources) == (16, {})
    assert sorted(read_keyed_state_rows(path, "counts", "count")) == sorted(
        (f"k{i}", i * 10) for i in range(20)
    )
    stores = {}
    for key_group, page, data in savepoint.keyed_rows("counts"):
        stores.setdefault(key_group, MemoryPageStore()).store(page, data)
    assert set(stores) == {assign_to_key_group(f"k{i}", 16) for i in range(20)}
    backend = KeyedStateBackend(lambda group: stores.get(group, MemoryPageStore()), 16)
    backend.set_current_key("k7")
    assert (backend.get_entry("count"), backend.get_entry("seen")) == (70, [7])


def test_a_key_given_twice_or_state_not_by_name_is_refused(tmp_path):
    with pytest.raises(ValueError, match="key 'a' is given twice"):
        write_keyed_savepoint(str(tmp_path), {"u": [("a", {"n": 1}), ("a", {"n": 2})]})
    with pytest.raises(
        TypeError,
        match=r"key 'a': its state must be a \{state name: value\} "
        "dict, got 5",
    ):
        write_keyed_savepoint(str(tmp_path), {"u": [("a", 5)]})
