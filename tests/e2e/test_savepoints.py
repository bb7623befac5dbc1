"""Savepoints on Spark: a job stopped with a savepoint and restored from it (at another
parallelism, with an operator added) gives exactly an uninterrupted run's output; a
savepoint taken while the job runs restores too; what cannot be restored is refused with
one error naming the savepoint and what is wrong."""

import json
import os
import shutil
import time

import pytest

from tests.e2e.jobs.checkpointed_counts import RunningCount, event
from tests.e2e.shared import read_part_files
from weir.common import Configuration, Duration, Time, Types, WatermarkStrategy
from weir.common.job import JobExecutionError, JobStatus
from weir.datastream import (
    KeyedBroadcastProcessFunction,
    KeyedProcessFunction,
    ProcessWindowFunction,
    StreamExecutionEnvironment,
)
from weir.datastream.connectors import DataGeneratorSource, FileSink
from weir.datastream.state import MapStateDescriptor, ValueStateDescriptor
from weir.datastream.window import TumblingEventTimeWindows
from weir.runtime.state.savepoint import MANIFEST, SavepointError, load_savepoint
from weir.state import write_keyed_state

pytestmark = pytest.mark.spark

EVENTS, PER_BATCH, RATE = 600, 40, 200


def expected_records():
    counts, records = {}, []
    for index in range(EVENTS):
        key, ts = event(index)
        counts[key] = counts.get(key, 0) + 1
        records.append({"key": key, "ts": ts, "count": counts[key]})
    return records + [{"key": k, "ts": 10**12, "final": n} for k, n in counts.items()]


def environment(spark, tmp_path, run, parallelism, settings):
    """An environment on `spark` with `settings` (e.g. the savepoint to restore), its
    checkpoint of its own for `run`."""
    configuration = Configuration()
    for key, value in (settings or {}).items():
        configuration.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(configuration)
    env.set_spark_session(spark).set_parallelism(parallelism)
    env.enable_checkpointing(100)
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(tmp_path / f"checkpoint-{run}"))
    return env


def start_job(
    spark,
    tmp_path,
    run,
    parallelism=2,
    settings=None,
    uid="running-count",
    extra_operator=False,
    counter=RunningCount,
    rate=RATE,
):
    env = environment(spark, tmp_path, run, parallelism, settings)
    source = DataGeneratorSource(
        event, count=EVENTS, records_per_second=rate, max_records_per_batch=PER_BATCH
    )
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda e, ts: e[1])
    stream = env.from_source(source, strategy, "events").uid("events")
    counts = stream.key_by(lambda e: e[0]).process(counter()).uid(uid)
    if extra_operator:  # a stateful operator the savepoint does not know: starts empty
        counts = counts.key_by(lambda r: r["key"]).process(Renumber()).uid("renumber")
    counts.sink_to(FileSink.for_json_lines(str(tmp_path / "out")).build())
    return env.execute_async("savepointed counts")


class Renumber(KeyedProcessFunction):
    """Passes records on, counting them again from where it was restored (from nothing)."""

    def open(self, runtime_context):
        self.seen = runtime_context.get_state(ValueStateDescriptor("seen"))

    def process_element(self, value, ctx):
        seen = (self.seen.value() or 0) + 1
        self.seen.update(seen)
        yield {**value, "seen": seen}


def wait_for_records(directory, at_least, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if os.path.isdir(directory) and len(read_part_files(directory)) >= at_least:
            return
        time.sleep(0.1)
    raise AssertionError(f"fewer than {at_least} records in {seconds} s")


def stop_midway(spark, tmp_path, **job):
    client = start_job(spark, tmp_path, "first", **job)
    wait_for_records(str(tmp_path / "out"), 100)
    path = client.stop_with_savepoint(False, str(tmp_path / "savepoints")).result()
    assert client.wait(60) == JobStatus.FINISHED
    written = read_part_files(str(tmp_path / "out"))
    assert 100 <= len(written) < EVENTS  # stopped midway
    return path


def order(record):
    return json.dumps(record, sort_keys=True)


@pytest.mark.parametrize("parallelism", [1, 4])
def test_stop_with_savepoint_and_restore_at_another_parallelism_as_if_never_stopped(
    spark, tmp_path, parallelism
):
    path = stop_midway(spark, tmp_path)
    assert os.path.basename(path).startswith("savepoint-")
    restored = start_job(spark, tmp_path, "second", parallelism, {"execution.savepoint.path": path})
    restored.get_job_execution_result()
    assert sorted(read_part_files(str(tmp_path / "out")), key=order) == sorted(
        expected_records(), key=order
    )


def test_a_stop_whose_savepoint_fails_leaves_the_job_running_and_its_state_whole(
    spark, tmp_path, monkeypatch
):
    """The savepoint is written before the query stops: a write that fails half-way (here
    after its first file, as a full disk would) leaves no partial savepoint and the job
    RUNNING; a later stop's savepoint restores to an uninterrupted run's output."""
    import weir.runtime.state.savepoint as savepoints

    client = start_job(spark, tmp_path, "first", rate=30)  # 20 s: running throughout
    wait_for_records(str(tmp_path / "out"), 100)
    real_write = savepoints.SavepointWriter._write

    def full_disk(writer, *args):  # a file written, then the disk is full
        real_write(writer, *args)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(savepoints.SavepointWriter, "_write", full_disk)
    with pytest.raises(OSError, match="No space left on device"):
        client.stop_with_savepoint(False, str(tmp_path / "savepoints"))
    assert client.get_job_status() == JobStatus.RUNNING
    assert os.listdir(tmp_path / "savepoints") == []
    with pytest.raises(SavepointError, match="cannot write a savepoint to /proc/nope"):
        client.stop_with_savepoint(False, "/proc/nope")
    assert client.get_job_status() == JobStatus.RUNNING
    before = len(read_part_files(str(tmp_path / "out")))
    wait_for_records(str(tmp_path / "out"), before + 20)  # it goes on
    monkeypatch.undo()
    path = client.stop_with_savepoint(False, str(tmp_path / "savepoints")).result()
    assert client.wait(60) == JobStatus.FINISHED
    start_job(
        spark, tmp_path, "second", 2, {"execution.savepoint.path": path}
    ).get_job_execution_result()
    assert sorted(read_part_files(str(tmp_path / "out")), key=order) == sorted(
        expected_records(), key=order
    )


def test_a_savepoint_triggered_while_the_job_runs_restores_its_state(spark, tmp_path):
    """The savepoint is as of a committed micro-batch; the job goes on to its end. A new
    run from the savepoint (into its own output) gives the records after that batch."""
    client = start_job(spark, tmp_path, "first")
    wait_for_records(str(tmp_path / "out"), 100)
    path = client.trigger_savepoint(str(tmp_path / "savepoints")).result()
    client.get_job_execution_result()
    assert sorted(read_part_files(str(tmp_path / "out")), key=order) == sorted(
        expected_records(), key=order
    )
    position = load_savepoint(path).sources["events"]
    shutil.rmtree(tmp_path / "out")
    start_job(
        spark, tmp_path, "second", 2, {"execution.savepoint.path": path}
    ).get_job_execution_result()
    later = [r for r in expected_records() if r["ts"] >= position["pos"] * 10]
    assert 0 < len(later) < len(expected_records())
    assert sorted(read_part_files(str(tmp_path / "out")), key=order) == sorted(later, key=order)


def test_stop_with_drain_fires_every_timer_first_and_the_restored_job_goes_on(spark, tmp_path):
    """Drain (Flink's stop --drain): the sources end where they are, the watermark reaches
    the end of time and each key's end-of-time timer fires with its count so far before
    the savepoint; restored, the job counts on from there (the timers, fired, are gone)."""
    client = start_job(spark, tmp_path, "first")
    wait_for_records(str(tmp_path / "out"), 100)
    path = client.stop_with_savepoint(True, str(tmp_path / "savepoints")).result()
    assert client.wait(60) == JobStatus.FINISHED
    drained = read_part_files(str(tmp_path / "out"))
    counted = [record for record in drained if "count" in record]
    read = len(counted)
    assert 100 <= read < EVENTS
    assert sorted(counted, key=order) == sorted(expected_records()[:read], key=order)
    so_far = {}
    for record in counted:
        so_far[record["key"]] = record["count"]
    assert sorted((record for record in drained if "final" in record), key=order) == sorted(
        ({"key": key, "ts": 10**12, "final": n} for key, n in so_far.items()), key=order
    )
    start_job(
        spark, tmp_path, "second", 2, {"execution.savepoint.path": path}
    ).get_job_execution_result()
    assert sorted(read_part_files(str(tmp_path / "out")), key=order) == sorted(
        drained + expected_records()[read:EVENTS], key=order
    )


def test_an_operator_added_on_restore_starts_empty(spark, tmp_path):
    path = stop_midway(spark, tmp_path)
    before = read_part_files(str(tmp_path / "out"))
    start_job(
        spark, tmp_path, "second", 2, {"execution.savepoint.path": path}, extra_operator=True
    ).get_job_execution_result()
    after = [r for r in read_part_files(str(tmp_path / "out")) if "seen" in r]
    per_key = {}
    for record in sorted(after, key=lambda r: r["ts"]):
        per_key.setdefault(record["key"], []).append(record["seen"])
    assert all(seen == list(range(1, len(seen) + 1)) for seen in per_key.values())
    stripped = [{k: v for k, v in r.items() if k != "seen"} for r in after]
    assert sorted(before + stripped, key=order) == sorted(expected_records(), key=order)


def test_state_of_a_removed_operator_is_refused_unless_allowed(spark, tmp_path):
    path = stop_midway(spark, tmp_path)
    with pytest.raises(SavepointError) as refused:
        start_job(
            spark, tmp_path, "second", 2, {"execution.savepoint.path": path}, uid="renamed-count"
        )
    assert str(refused.value) == (
        f"savepoint {path} holds state of operators the job does not have: running-count. "
        "Give them back their uid(...), or allow non-restored state "
        "('execution.savepoint.ignore-unclaimed-state': true, or "
        "--allow-non-restored-state) to drop it"
    )
    before = {order(r) for r in read_part_files(str(tmp_path / "out"))}
    start_job(
        spark,
        tmp_path,
        "third",
        2,
        {"execution.savepoint.path": path, "execution.savepoint.ignore-unclaimed-state": "true"},
        uid="renamed-count",
    ).get_job_execution_result()
    after = [r for r in read_part_files(str(tmp_path / "out")) if order(r) not in before]
    counts = {}
    for record in sorted(after, key=lambda r: r["ts"]):  # the renamed operator started empty
        counts.setdefault(record["key"], []).append(record.get("count", record.get("final")))
    assert len(counts) == 7
    assert all(
        seen[:-1] == list(range(1, len(seen))) and seen[-1] == len(seen) - 1
        for seen in counts.values()
    )


class LongCount(RunningCount):
    """RunningCount with its count declared as Types.LONG() (it was pickled)."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.LONG()))


def test_a_state_type_changed_incompatibly_is_refused_and_nothing_is_half_restored(spark, tmp_path):
    path = stop_midway(spark, tmp_path)
    with pytest.raises(JobExecutionError) as refused:
        start_job(
            spark, tmp_path, "second", 2, {"execution.savepoint.path": path}, counter=LongCount
        ).get_job_execution_result()
    assert (
        "state 'count' of operator 'running-count': the restored state is value state "
        "of pickled, the job declares value state of Types.LONG(); the change is not "
        "compatible (only a Row's fields may be added or removed)" in str(refused.value)
    )
    start_job(
        spark, tmp_path, "third", 2, {"execution.savepoint.path": path}
    ).get_job_execution_result()
    assert sorted(read_part_files(str(tmp_path / "out")), key=order) == sorted(
        expected_records(), key=order
    )


def test_a_damaged_savepoint_is_refused_naming_what_is_wrong(spark, tmp_path):
    path = stop_midway(spark, tmp_path)
    restore = {"execution.savepoint.path": path}
    keyed = next(name for name in os.listdir(path) if name.startswith("keyed-"))
    with open(os.path.join(path, keyed), "r+b") as handle:
        handle.seek(20)
        handle.write(b"\x00\x01")
    with pytest.raises(
        SavepointError, match=f"its file {keyed} .state of 'running-count'. is corrupt"
    ):
        start_job(spark, tmp_path, "second", 2, restore)
    os.remove(os.path.join(path, keyed))
    with pytest.raises(SavepointError, match=f"is missing its file {keyed}"):
        start_job(spark, tmp_path, "third", 2, restore)
    with open(os.path.join(path, MANIFEST)) as handle:
        manifest = json.load(handle)
    with open(os.path.join(path, MANIFEST), "w") as handle:
        json.dump({**manifest, "version": 99}, handle)
    with pytest.raises(SavepointError, match="has format version 99; this weir reads version 1"):
        start_job(spark, tmp_path, "fourth", 2, restore)
    os.remove(os.path.join(path, MANIFEST))  # as a crash before the manifest leaves it
    with pytest.raises(SavepointError, match="has no _metadata file"):
        start_job(spark, tmp_path, "fifth", 2, restore)


def test_another_max_parallelism_is_refused(spark, tmp_path):
    path = stop_midway(spark, tmp_path)
    configuration = Configuration().set_string("execution.savepoint.path", path)
    env = StreamExecutionEnvironment.get_execution_environment(configuration)
    env.set_spark_session(spark).set_max_parallelism(64)
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(tmp_path / "checkpoint-2"))
    env.from_collection([("a", 1)]).key_by(lambda e: e[0]).process(RunningCount()).uid(
        "running-count"
    ).print()
    with pytest.raises(
        SavepointError, match="was taken with max parallelism 128; the job has max parallelism 64"
    ):
        env.execute_async("refused")


# -- a job of every kind of state, stopped and restored twice ------------------------------
RULES = MapStateDescriptor("rules", Types.STRING(), Types.INT())
WINDOW_EVENTS, WINDOW_PER_BATCH = 900, 30


def late_event(index):
    """Every 50th record is late: 60 records (600 ms) behind, more than a micro-batch
    (so always behind the watermark), within the windows' allowed lateness."""
    ts = (index - 60) * 10 + 5 if index % 50 == 49 and index >= 60 else index * 10
    return (f"k{index % 5}", ts)


class Tag(KeyedBroadcastProcessFunction):
    """Passes records on; at the end each key reports the broadcast rules it sees."""

    def process_element(self, value, ctx):
        ctx.timer_service().register_event_time_timer(10**12)
        yield value

    def process_broadcast_element(self, value, ctx):
        ctx.get_broadcast_state(RULES).put(value[0], value[1])

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), -1, sorted(ctx.get_broadcast_state(RULES).items())


class WindowCount(ProcessWindowFunction):
    def process(self, key, context, elements):
        values = [e[1] for e in elements]
        yield {"key": key, "end": context.window().end, "n": len(values), "sum": sum(values)}


def every_state_job(spark, tmp_path, run, parallelism, settings=None):
    env = environment(spark, tmp_path, run, parallelism, settings)
    source = DataGeneratorSource(
        late_event,
        count=WINDOW_EVENTS,
        records_per_second=300,
        max_records_per_batch=WINDOW_PER_BATCH,
    )
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda e, ts: e[1])
    events = env.from_source(source, strategy, "events").uid("events")
    rules = env.from_collection([("factor", 3), ("offset", 7)]).uid("rules")
    tagged = events.key_by(lambda e: e[0]).connect(rules.broadcast(RULES)).process(Tag()).uid("tag")
    records = tagged.filter(lambda r: r[1] != -1)
    output = str(tmp_path / f"out-{run.split('-')[0]}")
    (
        records.key_by(lambda e: e[0])
        .window(TumblingEventTimeWindows.of(Time.milliseconds(100)))
        .allowed_lateness(1000)
        .process(WindowCount())
        .uid("windows")
        .sink_to(FileSink.for_json_lines(output).build())
    )
    records.key_by(lambda e: e[0]).process(RunningCount()).uid("running-count").sink_to(
        FileSink.for_json_lines(output).build()
    )
    tagged.filter(lambda r: r[1] == -1).map(lambda r: {"key": r[0], "rules": r[2]}).sink_to(
        FileSink.for_json_lines(output).build()
    )
    return env.execute_async("every state")


def test_every_kind_of_state_survives_two_savepoints_at_other_parallelisms(spark, tmp_path):
    """Keyed state, timers, windows with allowed lateness (late firings) and broadcast
    state: stopped with a savepoint at parallelism 2, restored at 4, stopped again,
    restored at 1 and run to the end, the job writes what an uninterrupted run writes."""
    every_state_job(spark, tmp_path, "whole", 2).get_job_execution_result()
    expected = read_part_files(str(tmp_path / "out-whole"))
    assert any(r.get("rules") == [["factor", 3], ["offset", 7]] for r in expected)
    path = None
    for run, parallelism in (("parts-1", 2), ("parts-2", 4)):
        written = len(read_part_files(str(tmp_path / "out-parts"))) if path else 0
        client = every_state_job(
            spark, tmp_path, run, parallelism, {"execution.savepoint.path": path} if path else None
        )
        wait_for_records(str(tmp_path / "out-parts"), written + 60)
        path = client.stop_with_savepoint(False, str(tmp_path / "savepoints")).result()
        client.wait(60)
    every_state_job(
        spark, tmp_path, "parts-3", 1, {"execution.savepoint.path": path}
    ).get_job_execution_result()
    assert sorted(read_part_files(str(tmp_path / "out-parts")), key=order) == sorted(
        expected, key=order
    )


FIXTURE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "savepoint-v1")


def test_a_savepoint_of_format_version_1_still_restores(spark, tmp_path):
    """tests/data/savepoint-v1 was taken by weir 0.1 (format version 1) from this module's
    job stopped after 201 records: a later weir must restore it, and the job goes on
    from there with every key's count."""
    copy = str(tmp_path / "savepoint-v1")
    shutil.copytree(FIXTURE, copy)
    assert load_savepoint(copy).sources == {"events": {"end": 0, "pos": 201}}
    start_job(
        spark, tmp_path, "restored", 3, {"execution.savepoint.path": copy}
    ).get_job_execution_result()
    later = [r for r in expected_records() if r["ts"] >= 201 * 10]
    assert sorted(read_part_files(str(tmp_path / "out")), key=order) == sorted(later, key=order)


def test_a_job_starts_from_state_bootstrapped_from_a_dataframe(spark, tmp_path):
    """Flink's State Processor API, writing side: counts of 1,000 per key written from a
    DataFrame into a savepoint; the job started from it counts on from there (no key
    registers its end-of-input timer, which it does at its first record only)."""
    frame = spark.createDataFrame([(f"k{i}", 1000) for i in range(7)], ["key", "total"])
    path = write_keyed_state(
        frame, str(tmp_path / "bootstrap"), "running-count", "key", {"count": "total"}
    )
    start_job(
        spark, tmp_path, "bootstrapped", 2, {"execution.savepoint.path": path}
    ).get_job_execution_result()
    expected = [{**r, "count": r["count"] + 1000} for r in expected_records() if "count" in r]
    assert sorted(read_part_files(str(tmp_path / "out")), key=order) == sorted(expected, key=order)
