"""A user's TwoPhaseCommitSinkFunction: transactions begun and pre-committed by the tasks,
committed by the driver once the micro-batch's tasks have all pre-committed."""

import os

import pytest

from weir.common import Types
from weir.datastream.connectors.two_phase_commit import TwoPhaseCommitSinkFunction


class FilesSink(TwoPhaseCommitSinkFunction):
    """Each transaction is a hidden file, renamed to its final name by the commit."""

    def __init__(self, directory):
        self.directory = directory

    def begin_transaction(self, context):
        name = f"{context.batch_id}-{context.task}"
        return {
            "pending": os.path.join(self.directory, f".{name}"),
            "final": os.path.join(self.directory, name),
            "lines": [],
        }

    def invoke(self, transaction, value, context):
        if value == "boom":
            raise ValueError("cannot write boom")
        transaction["lines"].append(f"{value}\n")

    def pre_commit(self, transaction):
        os.makedirs(self.directory, exist_ok=True)
        with open(transaction["pending"], "w") as pending:
            pending.writelines(transaction["lines"])

    def commit(self, transaction):
        if os.path.exists(transaction["pending"]):  # a replayed commit finds it done
            os.replace(transaction["pending"], transaction["final"])

    def abort(self, transaction):
        with open(os.path.join(self.directory, "aborted"), "a") as aborted:
            aborted.write(f"{len(transaction['lines'])}\n")


def _finished_lines(directory):
    names = sorted(n for n in os.listdir(directory) if n[0].isdigit())
    return sorted(line for n in names for line in open(os.path.join(directory, n)))


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_each_record_is_committed_once_by_the_driver(executor, spark_env, local_env, tmp_path):
    env = spark_env if executor == "spark" else local_env
    words = [f"w{i}" for i in range(40)]
    (
        env.from_collection(words, Types.STRING())
        .key_by(lambda w: w)
        .map(lambda w: w.upper(), Types.STRING())
        .add_sink(FilesSink(str(tmp_path)))
        .uid("files")
    )
    env.execute("two-phase")
    assert _finished_lines(tmp_path) == sorted(f"W{i}\n" for i in range(40))
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")]  # all committed


def test_a_failing_invoke_aborts_and_names_the_sink(local_env, tmp_path):
    local_env.from_collection(["a", "boom"], Types.STRING()).add_sink(FilesSink(str(tmp_path))).uid(
        "files"
    )
    with pytest.raises(Exception, match=r"(?s)files.*cannot write boom"):
        local_env.execute("two-phase")
    assert (tmp_path / "aborted").read_text() == "1\n"
    assert [n for n in os.listdir(tmp_path) if n != "aborted"] == []


def test_a_write_ahead_log_sink_sends_its_logs_from_spark_tasks(spark_env, tmp_path):
    """GenericWriteAheadSink on Spark: the tasks log their records, and after the
    micro-batch, Spark tasks (not the driver) send each log once and record it."""
    from weir.datastream.connectors.write_ahead import FileCheckpointCommitter
    from tests.unit.test_write_ahead_sink import FilesSink as SentFiles, sent_lines

    spark_env.set_parallelism(2)
    values = [f"v{i}" for i in range(40)]
    sink = SentFiles(
        FileCheckpointCommitter(tmp_path / "commits"), tmp_path / "wal", tmp_path / "out"
    )
    spark_env.from_collection(values).map(str.upper, Types.STRING()).add_sink(sink)
    spark_env.execute("write-ahead on spark")
    assert sent_lines(tmp_path / "out") == sorted(v.upper() for v in values)
    senders = {name.split("-")[1] for name in os.listdir(tmp_path / "out")}
    assert str(os.getpid()) not in senders
    (job_dir,) = [
        os.path.join(root, d)
        for root, dirs, _ in os.walk(tmp_path / "wal")
        for d in dirs
        if root != str(tmp_path / "wal")
    ]
    assert os.listdir(job_dir) == []  # every log sent, then removed
