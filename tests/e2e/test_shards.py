"""Keyed work on Spark grouped by shard (weir.spark.shards): weir's Python copy of Spark's
hash agrees with Spark's, and a job's keyed state lands in the partition of its shard."""

import pytest
from pyspark.sql import functions as F

from tests.e2e.shared import RunningCount, checkpointed_env
from weir.spark.shards import ShardLayout, hash_int, hash_string, spark_partition

pytestmark = pytest.mark.spark

UIDS = [
    "",
    "a",
    "ab",
    "abc",
    "abcd",
    "abcde",
    "running-count",
    "é€漢字 x",
    "\x00forward",
    "Window(TumblingEventTimeWindows)_12",
]
NUMBERS = [0, 1, 2, 5, 127, 4096, -3, 2**31 - 1, -(2**31)]


def test_the_hash_and_partition_of_a_grouping_key_are_sparks(spark):
    frame = spark.createDataFrame([(uid, n) for uid in UIDS for n in NUMBERS], "uid string, n int")
    rows = frame.select(
        "uid",
        "n",
        F.hash("uid", "n").alias("hash"),
        F.pmod(F.hash("uid", "n"), F.lit(7)).alias("partition"),
    ).collect()
    signed = lambda h: h - (1 << 32) if h >= (1 << 31) else h  # noqa: E731
    assert [
        (r.uid, r.n, signed(hash_int(r.n, hash_string(r.uid, 42))), spark_partition(r.uid, r.n, 7))
        for r in rows
    ] == [(r.uid, r.n, r.hash, r.partition) for r in rows]


def test_each_key_groups_state_is_in_its_shards_group_and_partition(spark, tmp_path):
    env = checkpointed_env(spark, tmp_path / "checkpoint")
    keys = [f"key-{i}" for i in range(40)]
    env.from_collection([(key, i) for i, key in enumerate(keys)]).key_by(
        lambda record: record[0]
    ).process(RunningCount()).uid("running-count").print()
    env.execute("counts by shard")
    operator = (
        spark.read.format("state-metadata")
        .load(str(tmp_path / "checkpoint"))
        .collect()[0]
        .operatorId
    )
    rows = (
        spark.read.format("statestore")
        .option("operatorId", operator)
        .option("stateVarName", "pages")
        .load(str(tmp_path / "checkpoint"))
        .select(
            F.col("key._g").alias("uid"),
            F.col("key._gk").alias("number"),
            F.col("user_map_key.kg").alias("key_group"),
            "partition_id",
        )
        .collect()
    )
    layout = ShardLayout(128, 2)
    assert {row.uid for row in rows} == {"running-count"}
    assert len(rows) == len({row.key_group for row in rows}) > 20  # (40 keys)
    assert [(row.number, row.partition_id) for row in rows] == [
        (layout.number("running-count", row.key_group), layout.shard_of(row.key_group))
        for row in rows
    ]
    assert {row.partition_id for row in rows} == {0, 1}
