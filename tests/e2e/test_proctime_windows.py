"""Windows over a processing-time attribute fire while a source lasts: a datagen of 60
sequential ids at 20 rows a second (3 s) in 1-second windows by the clock. Which rows
fall in which window is the clock's (on Flink too), so what must hold is checked: each
window fired once, aligned to the second, after the one before; its rows the next ids
in sequence, none twice; the window the input ends in never fires (no timer fires at
the end of the input in processing time: as on Flink, whose source may outlive it)."""

import datetime

import pytest

from weir.datastream import StreamExecutionEnvironment
from weir.table import StreamTableEnvironment

QUERIES = {
    "window table function": """
        SELECT window_start, window_end, COUNT(*), MIN(id), MAX(id)
        FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(pt), INTERVAL '1' SECOND))
        GROUP BY window_start, window_end""",
    "group window": """
        SELECT TUMBLE_START(pt, INTERVAL '1' SECOND), TUMBLE_END(pt, INTERVAL '1' SECOND),
               COUNT(*), MIN(id), MAX(id)
        FROM g GROUP BY TUMBLE(pt, INTERVAL '1' SECOND)""",
}


@pytest.mark.parametrize("query", sorted(QUERIES))
def test_processing_time_windows_fire_by_the_clock(query):
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql("""
        CREATE TABLE g (id BIGINT, pt AS PROCTIME()) WITH ('connector' = 'datagen',
            'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
            'fields.id.end' = '60', 'rows-per-second' = '20')""")
    started = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    rows = [tuple(r) for r in t_env.execute_sql(QUERIES[query]).collect()]
    assert rows, "a 3-second input in 1-second windows fires at least one window"
    next_id, previous_end = 1, None
    for start, end, count, low, high in rows:
        assert end - start == datetime.timedelta(seconds=1) and start.microsecond == 0
        assert start >= started - datetime.timedelta(seconds=1)
        assert previous_end is None or start >= previous_end
        assert (low, high, count) == (next_id, next_id + count - 1, count)
        next_id, previous_end = high + 1, end
    assert next_id <= 60  # (the last rows' window never fires)
