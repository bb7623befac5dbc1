"""The shard layout of keyed work on Spark (weir.spark.shards) and the checkpoint's record
of it (weir.spark.restore.state_layout), without Spark."""

import json

import pytest

from weir.runtime.key_groups import first_key_group
from weir.spark.restore import JOB_FILE, state_layout
from weir.spark.shards import ShardLayout, shard_numbers, spark_partition


def test_known_hashes_are_sparks():
    # F.pmod(F.hash(uid, n), 7) as Spark 4.3 computed it for a string and an int column
    assert [spark_partition("running-count", n, 7) for n in range(8)] == [4, 3, 1, 6, 0, 6, 4, 5]


@pytest.mark.parametrize("partitions", [1, 2, 3, 8, 200])
def test_each_shard_number_is_the_smallest_spark_places_in_its_partition(partitions):
    for uid in ["running-count", "windows", "é"]:
        numbers = shard_numbers(uid, partitions)
        assert [spark_partition(uid, n, partitions) for n in numbers] == list(range(partitions))
        for partition, number in enumerate(numbers):
            assert all(
                spark_partition(uid, smaller, partitions) != partition for smaller in range(number)
            )


@pytest.mark.parametrize("parallelism", [1, 2, 3, 7])
def test_a_subtasks_key_group_range_is_one_shard(parallelism):
    layout = ShardLayout(128, parallelism)
    for subtask in range(parallelism):
        first = first_key_group(subtask, 128, parallelism)
        last = first_key_group(subtask + 1, 128, parallelism) - 1
        assert {layout.shard_of(kg) for kg in range(first, last + 1)} == {subtask}


def test_more_partitions_than_key_groups_give_each_key_group_its_own_shard():
    layout = ShardLayout(4, 10)
    assert [layout.shard_of(kg) for kg in range(4)] == [0, 1, 2, 3]
    assert len({layout.number("op", kg) for kg in range(4)}) == 4


def test_without_partitions_the_key_group_is_its_own_number():
    layout = ShardLayout(128)
    assert [layout.number("op", kg) for kg in (0, 5, 127)] == [0, 5, 127]


def _committed(checkpoint, batch=0):
    (checkpoint / "commits").mkdir(parents=True, exist_ok=True)
    (checkpoint / "commits" / str(batch)).write_text("v1\n{}\n")


def _offsets(checkpoint, batch, partitions):
    (checkpoint / "offsets").mkdir(parents=True, exist_ok=True)
    conf = {"conf": {"spark.sql.shuffle.partitions": str(partitions)}}
    (checkpoint / "offsets" / str(batch)).write_text(f"v1\n{json.dumps(conf)}\n{{}}\n")


def test_a_new_checkpoint_records_the_partitions_it_starts_with(tmp_path):
    assert state_layout(str(tmp_path), 3) == 3
    written = json.loads((tmp_path / JOB_FILE).read_text())
    assert (written["state_layout"], written["shuffle_partitions"]) == ("shards-1", 3)


def test_a_resumed_checkpoint_keeps_its_partitions_whatever_the_session_says(tmp_path):
    state_layout(str(tmp_path), 2)
    _committed(tmp_path)
    assert state_layout(str(tmp_path), 5) == 2


def test_an_uncommitted_first_batch_keeps_the_partitions_of_its_offset_log(tmp_path):
    _offsets(tmp_path, 0, 4)  # Spark runs batch 0 again with those
    assert state_layout(str(tmp_path), 2) == 4


def test_a_checkpoint_of_the_key_group_layout_is_refused_naming_the_way_out(tmp_path):
    (tmp_path / JOB_FILE).write_text(json.dumps({"max_parallelism": 128}))
    _committed(tmp_path)
    with pytest.raises(
        ValueError,
        match="written by an earlier weir.*take a savepoint with "
        "the earlier weir and start this job from it in a new checkpoint "
        "directory, or start from a new checkpoint directory",
    ):
        state_layout(str(tmp_path), 2)


def test_a_job_without_keyed_state_resumes_a_checkpoint_of_the_key_group_layout(tmp_path):
    (tmp_path / JOB_FILE).write_text(json.dumps({"max_parallelism": 128}))
    _committed(tmp_path)
    _offsets(tmp_path, 0, 2)
    assert state_layout(str(tmp_path), 5, keyed=False) == 2
    assert json.loads((tmp_path / JOB_FILE).read_text())["state_layout"] == "shards-1"
