"""A SQL job with a window aggregation, a group aggregation and a MATCH_RECOGNIZE stops
with a savepoint midway and resumes from it at another parallelism, giving an
uninterrupted run's results: each window once, each group's changelog continuing where it
stopped, each match once (partial matches and rows waiting for the watermark restored)."""

import json
import os
import re

import pytest

from tests.e2e.shared import read_part_files, wait_until
from weir.common.job import JobStatus
from weir.table import EnvironmentSettings, TableEnvironment

pytestmark = pytest.mark.spark
ROWS = 1200  # ids 0..1199, one every 100 ms of event time, 40 a second (30 s)


def start(tmp_path, parallelism, savepoint=None):
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", str(parallelism))
    if savepoint is not None:
        t_env.get_config().set("execution.savepoint.path", savepoint)
    t_env.execute_sql(f"""
        CREATE TABLE src (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 100, 3),
                          WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
        WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',
              'fields.id.start' = '0', 'fields.id.end' = '{ROWS - 1}',
              'rows-per-second' = '40')""")
    t_env.execute_sql(f"""
        CREATE TABLE windows (window_start TIMESTAMP(3), n BIGINT, s BIGINT)
        WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/windows', 'format' = 'json')""")
    t_env.execute_sql(
        "CREATE TABLE totals (k BIGINT, n BIGINT, s BIGINT) WITH ('connector' = 'print')"
    )
    t_env.execute_sql(f"""
        CREATE TABLE matches (k BIGINT, a BIGINT, c BIGINT)
        WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/matches', 'format' = 'json')""")
    statements = t_env.create_statement_set()
    statements.add_insert_sql("""
        INSERT INTO matches SELECT * FROM (SELECT *, MOD(id, 3) AS k FROM src)
        MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES A.id AS a, C.id AS c
                         AFTER MATCH SKIP PAST LAST ROW
                         PATTERN (A B C) DEFINE A AS MOD(A.id, 4) = 0)""")
    statements.add_insert_sql("""
        INSERT INTO windows SELECT window_start, COUNT(*), SUM(id)
        FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND))
        GROUP BY window_start, window_end""")
    statements.add_insert_sql(
        "INSERT INTO totals SELECT MOD(id, 5), COUNT(*), SUM(id) FROM src GROUP BY MOD(id, 5)"
    )
    return statements.execute()


def totals_of(printed):
    final = {}
    for kind, key, n, s in re.findall(
        r"^(?:\d+> )?([+-][IUD])\[(\d+), (\d+), (\d+)\]$", printed, re.MULTILINE
    ):
        if kind in ("+I", "+U"):
            final[int(key)] = (int(n), int(s))
        elif final.get(int(key)) == (int(n), int(s)):
            del final[int(key)]
    return final


def test_sql_job_resumes_from_a_savepoint_at_another_parallelism(spark, tmp_path, capsys):
    first = start(tmp_path, 2)
    windows = str(tmp_path / "windows")

    def two_windows_written():
        assert first.get_job_client().get_job_status() != JobStatus.FAILED
        return os.path.isdir(windows) and len(read_part_files(windows)) >= 2

    wait_until(two_windows_written, "two windows written", 120, interval=0.1)
    client = first.get_job_client()
    path = client.stop_with_savepoint(False, str(tmp_path / "savepoints")).result()
    assert client.wait(60) == JobStatus.FINISHED
    before = read_part_files(str(tmp_path / "windows"))
    assert 2 <= len(before) < ROWS // 100  # stopped midway
    start(tmp_path, 1, path).wait()
    windows = sorted(read_part_files(str(tmp_path / "windows")), key=json.dumps)
    assert windows == sorted(
        [
            {
                "window_start": f"1970-01-01 00:{w // 6:02d}:{w % 6 * 10:02d}",
                "n": 100,
                "s": sum(range(w * 100, w * 100 + 100)),
            }
            for w in range(ROWS // 100)
        ],
        key=json.dumps,
    )
    assert totals_of(capsys.readouterr().out) == {
        k: (ROWS // 5, sum(i for i in range(ROWS) if i % 5 == k)) for k in range(5)
    }
    assert (
        sorted(tuple(m.values()) for m in read_part_files(str(tmp_path / "matches")))
        == expected_matches()
    )
    assert os.path.isdir(path)


def expected_matches():
    """(k, a, c) of PATTERN (A B C), A's id a multiple of 4, per k = id mod 3, each row
    in one match at most."""
    found = []
    for k in range(3):
        ids, index = list(range(k, ROWS, 3)), 0
        while index + 2 < len(ids):
            if ids[index] % 4 == 0:
                found.append((k, ids[index], ids[index + 2]))
                index += 3
            else:
                index += 1
    return sorted(found)
