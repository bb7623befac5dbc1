"""Window aggregation by slices (weir.table.window_slicing) against the plan that repeats
each row per window, on random out-of-order rows with late ones, in-process."""

import os
import random

import pytest

from weir.datastream import StreamExecutionEnvironment
from weir.table import StreamTableEnvironment, window_slicing
from weir.table.window_slicing import Windows
from weir.table.window_tvf import windows_of


@pytest.mark.parametrize(
    "kind, size, step", [("tumble", 10, None), ("hop", 10, 2), ("hop", 6, 3), ("cumulate", 12, 4)]
)
def test_a_slice_is_in_the_windows_its_rows_are_in(kind, size, step):
    windows = Windows(kind, size, step)
    for timestamp in range(-30, 60):
        start = timestamp - timestamp % windows.slice
        expected = [end for _, end in windows_of(kind, timestamp, size, step or size)]
        assert list(windows.ends(start)) == expected
        assert all(
            windows.start_of(end) == begin
            for begin, end in windows_of(kind, timestamp, size, step or size)
        )


def _rows(tmp_path, seed):
    rng = random.Random(seed)
    lines = []
    for index in range(300):
        second = index // 3 + rng.randrange(-8, 3)  # out of order, some rows late
        lines.append(
            f"2020-01-01 00:{second // 60 + 10:02d}:{second % 60:02d},"
            f"{rng.choice('abc')},{rng.randrange(100)}\n"
        )
    (tmp_path / "rows.csv").write_text("".join(lines))


def _run(tmp_path, query, slicing, monkeypatch):
    if not slicing:
        monkeypatch.setattr(window_slicing, "sliceable", lambda node, tvf: False)
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(
        "CREATE TABLE r (ts TIMESTAMP(3), k STRING, v INT, WATERMARK FOR ts AS "
        f"ts - INTERVAL '2' SECOND) WITH ('connector' = 'filesystem', 'path' = "
        f"'{os.path.join(tmp_path, 'rows.csv')}', 'format' = 'csv')"
    )
    rows = sorted(tuple(row) for row in t_env.execute_sql(query).collect())
    monkeypatch.undo()
    return rows


@pytest.mark.parametrize(
    "function",
    [
        "TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND)",
        "HOP(TABLE r, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND)",
        "CUMULATE(TABLE r, DESCRIPTOR(ts), INTERVAL '4' SECOND, INTERVAL '12' SECOND)",
    ],
)
def test_slices_give_the_rows_of_one_row_per_window(tmp_path, monkeypatch, function):
    _rows(tmp_path, 7)
    query = (
        f"SELECT k, window_start, window_end, COUNT(*), SUM(v), MAX(v), "
        f"COUNT(DISTINCT v) FROM TABLE({function}) GROUP BY k, window_start, "
        "window_end"
    )
    sliced = _run(tmp_path, query, True, monkeypatch)
    assert sliced == _run(tmp_path, query, False, monkeypatch)
    assert len(sliced) > 20
