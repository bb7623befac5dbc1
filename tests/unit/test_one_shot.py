"""Sources read whole in the first micro-batch (weir.spark.one_shot), without Spark: which
readers know their whole input, which sources may be read so, the choice kept in the
checkpoint for restarts, and the reader's numbering of its Spark tasks."""

import json
import os
from types import SimpleNamespace

import pyarrow as pa
import pytest

from weir.common import Duration, WatermarkStrategy
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource
from weir.plan.physical import compile_plan
from weir.runtime.sources import END_SPLIT, CollectionReader, DataGeneratorReader, FileReader
from weir.spark import one_shot
from weir.spark.restore import job_setting

SPARK = SimpleNamespace(sparkContext=SimpleNamespace(defaultParallelism=2))


def test_readers_whose_whole_input_is_known_at_the_start():
    assert CollectionReader([1, 2, 3]).whole_input() == {"pos": 3, "end": 1}
    assert CollectionReader([]).whole_input() == {"pos": 0, "end": 1}
    assert DataGeneratorReader(str, count=5).whole_input() == {"pos": 5, "end": 1}
    # a rate, a limit per micro-batch, no end: read by the Python data source
    assert CollectionReader([1, 2], max_records_per_batch=1).whole_input() is None
    assert DataGeneratorReader(str, count=5, records_per_second=10).whole_input() is None
    assert DataGeneratorReader(str, count=5, max_records_per_batch=2).whole_input() is None
    assert DataGeneratorReader(str).whole_input() is None
    assert FileReader("/nowhere", "text").whole_input() is None


def _plan(build):
    env = StreamExecutionEnvironment.get_execution_environment()
    build(env)
    return compile_plan(env._graph.upstream_of(env._graph.sinks()), env)


def _idle_and_not(env):
    quick = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(10))
    idle = quick.with_idleness(Duration.of_millis(50))
    a = env.from_collection([1]).assign_timestamps_and_watermarks(quick)
    b = env.from_collection([2]).assign_timestamps_and_watermarks(idle)
    a.union(b).print()


def test_a_source_whose_group_may_idle_is_not_read_whole():
    plan = _plan(_idle_and_not)
    [quick] = [g.sources for g in plan.watermark_groups if g.idleness_ms is None]
    assert one_shot.eligible_sources(plan) == list(quick)


def _generators(count=10):
    """A job of `count` records in two splits, and four at ten records per second."""

    def build(env):
        none = WatermarkStrategy.no_watermarks()
        whole = DataGeneratorSource(str, count=count, num_splits=2)
        rated = DataGeneratorSource(str, count=4, records_per_second=10)
        env.from_source(whole, none, "whole").union(env.from_source(rated, none, "rated")).print()

    return build


def test_the_choice_is_made_on_a_new_checkpoint_and_kept_for_its_restarts(tmp_path):
    plan = _plan(_generators())
    whole, limited = [task.uid for task in plan.sources]
    checkpoint = str(tmp_path)
    tasks = one_shot.plan_one_shot(SPARK, plan, checkpoint, [whole, limited])
    assert list(tasks) == [whole]  # (the other has a rate)
    # the generator's two splits in two tasks, the end with the last
    assert tasks[whole] == [([(0, 0, 5)], True), ([(1, 5, 10), END_SPLIT], False)]
    kept = {whole: {"position": {"pos": 10, "end": 1}, "tasks": 2}}
    assert job_setting(checkpoint, one_shot.SETTING) == kept
    os.makedirs(tmp_path / "offsets")
    (tmp_path / "offsets" / "0").write_text("v1\n{}\n")
    # a restart reads as the first run did (the other source stays the data source's)
    assert one_shot.plan_one_shot(SPARK, plan, checkpoint, [whole, limited]) == tasks
    assert one_shot.one_shot_positions(checkpoint, [whole, limited, "gone"]) == {
        whole: {"pos": 10, "end": 1}
    }
    # a restart whose source may no longer be read so (a savepoint starts it elsewhere)
    with pytest.raises(RuntimeError, match="read this source whole in its first micro-batch"):
        one_shot.plan_one_shot(SPARK, plan, checkpoint, [limited])


def test_a_restart_whose_source_reads_other_records_is_refused(tmp_path):
    plan = _plan(_generators())
    uids = [task.uid for task in plan.sources]
    one_shot.plan_one_shot(SPARK, plan, str(tmp_path), uids)
    os.makedirs(tmp_path / "offsets")
    (tmp_path / "offsets" / "0").write_text("v1\n{}\n")
    changed = _plan(_generators(9))  # (nine records: the replay would read others)
    with pytest.raises(RuntimeError, match=r"up to \{'pos': 10, 'end': 1\}, in 2 tasks"):
        one_shot.plan_one_shot(SPARK, changed, str(tmp_path), uids)


def test_a_checkpoint_an_earlier_weir_started_reads_no_source_whole(tmp_path):
    plan = _plan(_generators())
    os.makedirs(tmp_path / "offsets")
    (tmp_path / "offsets" / "0").write_text("v1\n{}\n")
    (tmp_path / "weir-job.json").write_text(json.dumps({"max_parallelism": 128}))
    eligible = [task.uid for task in plan.sources]
    assert one_shot.plan_one_shot(SPARK, plan, str(tmp_path), eligible) == {}
    assert one_shot.one_shot_positions(str(tmp_path), eligible) == {}


def test_the_reader_reads_the_tasks_its_rows_number(monkeypatch):
    read = []

    def read_task(reader, encoded_task, splits, first, run_key):
        read.append((reader, splits, first, run_key))
        yield f"rows of {splits}"

    monkeypatch.setattr(one_shot, "read_task", read_task)
    tasks = [([(0, 0, 5)], True), ([(1, 5, 10), END_SPLIT], False)]
    reader = one_shot.OneShotReader(
        one_shot.encode("the reader"), "the task", ("run", "uid"), tasks
    )
    # values 2 and 3 are rows of later micro-batches (a restarted query's): nothing
    batches = [pa.record_batch({"value": [1, 2]}), pa.record_batch({"value": [3, 0]})]
    assert list(reader(iter(batches))) == [f"rows of {tasks[1][0]}", f"rows of {tasks[0][0]}"]
    assert read == [
        ("the reader", tasks[1][0], False, ("run", "uid")),
        ("the reader", tasks[0][0], True, ("run", "uid")),
    ]
