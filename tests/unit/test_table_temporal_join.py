"""Event-time temporal joins (weir.table.temporal_join) through the operator harness: the
version valid at each left row's time, deletes, LEFT padding, expired versions."""

import datetime

import pytest

from weir.table import EnvironmentSettings, TableEnvironment
from weir.table.changelog import DELETE, INSERT, UPDATE_AFTER
from weir.table.temporal_join import VersionedJoin
from weir.testing.harness import KeyedOperatorHarness


def at(ms):
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)


def harness(left_outer=False):
    key = lambda record: record[1][1]  # noqa: E731 (rows: time, key, value)
    function = VersionedJoin(0, 0, lambda row: row[5] != "rejected", 3, left_outer)
    return KeyedOperatorHarness(function, (key, key))


def order(h, ms, name):
    h.process_element1((INSERT, (at(ms), "k", name)), ms)


def version(h, ms, value, kind=INSERT):
    h.process_element2((kind, (at(ms), "k", value)), ms)


def joined(h):
    return [(v[2], v[5]) for _, v in h.extract_values()]


def test_each_left_row_joins_the_version_valid_at_its_time_once_the_watermark_passes():
    h = harness()
    version(h, 10, "v10"), version(h, 20, "v20")
    order(h, 5, "before"), order(h, 10, "at10"), order(h, 25, "after20"), order(h, 15, "mid")
    h.process_watermark(14)
    assert joined(h) == [("at10", "v10")]
    version(h, 30, "v30")
    h.process_watermark(40)
    assert joined(h) == [("mid", "v10"), ("after20", "v20")]


def test_a_left_join_pads_rows_without_a_version_a_deleted_key_or_a_failed_condition():
    h = harness(left_outer=True)
    order(h, 5, "none yet")
    version(h, 10, "v10"), version(h, 20, "v20", DELETE), version(h, 30, "rejected")
    order(h, 12, "v10 valid"), order(h, 22, "deleted"), order(h, 35, "condition fails")
    h.process_watermark(100)
    assert joined(h) == [
        ("none yet", None),
        ("v10 valid", "v10"),
        ("deleted", None),
        ("condition fails", None),
    ]


def test_versions_no_later_row_can_see_are_dropped_and_upserts_count_as_versions():
    h = harness()
    version(h, 10, "v10"), version(h, 20, "v20", UPDATE_AFTER)
    order(h, 25, "a")
    h.process_watermark(30)
    assert joined(h) == [("a", "v20")]
    order(h, 31, "b")
    h.process_watermark(40)
    assert joined(h) == [("b", "v20")]
    assert h.num_keyed_state_entries() == 1  # (v20 alone is kept)


def test_a_temporal_join_needs_a_versioned_table_and_an_event_time(tmp_path):
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    (tmp_path / "x.csv").write_text("")
    for name, key in (("o", ""), ("plain", ""), ("versioned", ", PRIMARY KEY (k) NOT ENFORCED")):
        t_env.execute_sql(
            f"CREATE TABLE {name} (ts TIMESTAMP(3), k STRING, p AS PROCTIME(), "
            f"WATERMARK FOR ts AS ts{key}) WITH ('connector' = 'filesystem', "
            f"'path' = '{tmp_path}/x.csv', 'format' = 'csv')"
        )
    with pytest.raises(ValueError, match="needs a versioned table"):
        t_env.sql_query("SELECT * FROM o JOIN plain FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k")
    with pytest.raises(NotImplementedError, match="not the left table's event-time"):
        t_env.sql_query(
            "SELECT * FROM o JOIN versioned FOR SYSTEM_TIME AS OF o.p AS r ON o.k = r.k"
        )
    with pytest.raises(NotImplementedError, match="a FULL temporal join"):
        t_env.sql_query(
            "SELECT * FROM o FULL JOIN versioned FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k"
        )


def test_a_versions_retraction_before_its_update_does_not_delete_it():
    """A versioned view (a deduplication) sends -U then +U: the versions are its upserts."""
    from weir.table.changelog import UPDATE_BEFORE

    h = harness()
    version(h, 10, "v10"), version(h, 10, "v10", UPDATE_BEFORE), version(h, 20, "v20", UPDATE_AFTER)
    order(h, 15, "a"), order(h, 25, "b")
    h.process_watermark(30)
    assert joined(h) == [("a", "v10"), ("b", "v20")]
