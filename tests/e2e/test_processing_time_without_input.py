"""A processing-time timer fires when it is due even while no input comes at all: the
engine runs a micro-batch for it (as Flink's timer service fires on the wall clock)."""

import types

from tests.e2e.jobs.silent_alert import InactivityAlert, TwoThenSilence
from tests.e2e.shared import wait_until, wait_until_at_rest
from weir.common import WatermarkStrategy
from weir.common.job import JobStatus


def _job(env, results):
    env.set_parallelism(2)
    env.from_source(TwoThenSilence(), WatermarkStrategy.no_watermarks(), "quiet").key_by(
        lambda v: v[0]
    ).process(InactivityAlert(1000)).add_sink(lambda v, ctx: results.append(v))


EXPECTED = [{"element": 0}, {"element": 1}, {"alert": "a"}]


def test_a_due_timer_fires_on_spark_while_the_stream_has_no_input(spark_env):
    results = []
    _job(spark_env, results)
    client = spark_env.execute_async("quiet")
    try:
        wait_until(
            lambda: len(results) >= 3, "the two elements and the alert", 60, state=lambda: results
        )
        # no more output comes: the query has run every micro-batch there is (a trigger
        # after them found nothing to do) and no processing-time timer is pending, so
        # without input no micro-batch follows
        wait_until_at_rest(client.query, "the query at rest after the alert")
        assert client.due is None, client.due
    finally:
        client.cancel()
    assert sorted(results, key=str) == sorted(EXPECTED, key=str)


def test_a_due_timer_fires_in_process_while_the_stream_has_no_input(local_env):
    results = []
    _job(local_env, results)
    client = local_env.execute_async("quiet")
    try:
        wait_until(
            lambda: len(results) >= 3, "the two elements and the alert", 60, state=lambda: results
        )
        # no more output comes: two more rounds of the executor (each polls the source and
        # the timers; the second starts after the first has ended) find nothing to run, and
        # no processing-time timer is pending
        seen = client.rounds
        wait_until(lambda: client.rounds >= seen + 2, "two more rounds of the executor", 60)
        assert client.control.next_processing_timer() is None
    finally:
        client.cancel()
    assert client.wait(30) == JobStatus.CANCELED
    assert sorted(results, key=str) == sorted(EXPECTED, key=str)


def test_the_first_source_ticks_once_when_the_earliest_timer_has_come(tmp_path, monkeypatch):
    """The driver's file names the earliest pending timer: once it has come the source's
    offsets move (one tick, kept in the offset log), a split then wakes every key group
    of each operator that may hold one, and the same timer asks again only if it is still
    pending a second later."""
    from weir.runtime.sources import CollectionReader
    from weir.runtime.wire import Control
    from weir.spark import source
    from weir.spark.source import TICK_KEY, AnnouncingReader, WeirStreamReader

    due_file = tmp_path / "due.json"
    due_file.write_text('{"due": 5000}')
    reader = AnnouncingReader(
        WeirStreamReader(CollectionReader([1, 2, 3]), "unused"), due=(str(due_file), 3, ["alerts"])
    )
    clock = [4.999]  # seconds
    monkeypatch.setattr(source, "time", types.SimpleNamespace(time=lambda: clock[0]))
    start = reader.latestOffset({"pos": 3, "end": 1})
    assert start[TICK_KEY] is None  # not due yet: no batch
    clock[0] = 5.2
    ticked = reader.latestOffset(start)
    assert ticked == {**start, TICK_KEY: 5200}
    splits = reader.partitions(start, ticked)
    assert [s.splits for s in splits] == [[(Control.TICK,)]]
    rows = reader.read(splits[0]).__next__().to_pylist()
    assert [(r["_to"], r["_kg"], r["_ctl"]) for r in rows] == [
        ("alerts", kg, Control.TICK) for kg in range(3)
    ]
    clock[0] = 6.1
    assert reader.latestOffset(ticked) == ticked  # asked 0.9 s ago
    clock[0] = 6.3
    assert reader.latestOffset(ticked)[TICK_KEY] == 6300  # still pending: again
    due_file.write_text('{"due": null}')
    assert reader.latestOffset(ticked) == ticked
