"""A job killed with SIGKILL mid-stream and started again gives exactly the output of an
uninterrupted run: state, source positions and file output are exactly-once."""

import contextlib
import json
import os
import signal
import subprocess
import sys

import pytest

from tests.e2e.shared import read_part_files, wait_until
from weir.spark.announcements import DUE_FILE
from weir.spark.restore import last_committed_batch, load_operator_states
from weir.spark.source import read_announcements

pytestmark = pytest.mark.spark

JOB = os.path.join(os.path.dirname(__file__), "jobs", "checkpointed_counts.py")
TWO_INPUTS = os.path.join(os.path.dirname(__file__), "jobs", "checkpointed_two_inputs.py")
SILENT = os.path.join(os.path.dirname(__file__), "jobs", "silent_alert.py")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVENTS, PER_BATCH, RATE = 700, 50, 150


def expected_records():
    counts, records = {}, []
    for index in range(EVENTS):
        key = f"k{index % 7}"
        counts[key] = counts.get(key, 0) + 1
        records.append({"key": key, "ts": index * 10, "count": counts[key]})
    records += [{"key": k, "ts": 10**12, "final": n} for k, n in counts.items()]
    return records


def start(output, checkpoint, job=(JOB,), extra=()):
    env = dict(
        os.environ,
        PYTHONPATH=ROOT,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    return subprocess.Popen(
        [sys.executable, *job, output, checkpoint, str(EVENTS), str(PER_BATCH), str(RATE), *extra],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _three_part_files(output, checkpoint):
    return (
        os.path.isdir(output) and len([n for n in os.listdir(output) if n.startswith("part-")]) >= 3
    )


def kill_and_restart(
    tmp_path, job_args, restart_args=None, restart_extra=(), ready=_three_part_files
):
    """Starts the job, SIGKILLs it once `ready(output, checkpoint)` (by default: it has
    written 3 part files), starts it again (with `restart_args`, if given, and
    `restart_extra` after the usual arguments) on the same checkpoint; returns everything
    it wrote."""
    output, checkpoint = str(tmp_path / "out"), str(tmp_path / "checkpoint")
    job = start(output, checkpoint, job_args)
    try:
        wait_until(
            lambda: _alive(job) and ready(output, checkpoint),
            "the moment to kill",
            300,
            state=lambda: (
                len(read_part_files(output)) if os.path.isdir(output) else "no output yet"
            ),
        )
    finally:
        with contextlib.suppress(ProcessLookupError):  # (none left of a job that died)
            os.killpg(job.pid, signal.SIGKILL)  # the driver and its Spark workers, at once
        job.wait()
    written_before = len(read_part_files(output))
    assert 0 < written_before < EVENTS

    restarted = start(output, checkpoint, restart_args or job_args, restart_extra)
    _, stderr = restarted.communicate(timeout=600)
    assert restarted.returncode == 0, stderr.decode()[-3000:]
    return read_part_files(output)


def test_sigkill_mid_stream_then_restart_gives_the_uninterrupted_output(tmp_path):
    records = kill_and_restart(tmp_path, (JOB,))
    expected = expected_records()
    key = lambda r: (r["key"], r["ts"])  # noqa: E731
    assert sorted(records, key=key) == sorted(expected, key=key)
    assert len(records) == len(expected)


def _alive(job) -> bool:
    """True while `job` runs; an AssertionError with its error output once it has ended."""
    assert job.poll() is None, job.stderr.read().decode()[-3000:]
    return True


def _wait_for_output(directory, job, done, seconds=90):
    wait_until(
        lambda: _alive(job) and os.path.isdir(directory) and done(read_part_files(directory)),
        "such output",
        seconds,
        state=lambda: read_part_files(directory) if os.path.isdir(directory) else None,
    )


def _batch_ids(directory):
    return (
        sorted(int(n) for n in os.listdir(directory) if n.isdigit())
        if os.path.isdir(directory)
        else []
    )


def _at_rest(checkpoint) -> bool:
    """Whether a job without input (its source has no record to come) and without its own
    watermarks or idleness can run no further micro-batch: none is in flight (every batch
    in the offset log committed) and the driver announces no pending processing-time
    timer to tick for (a batch writes the announcement before it commits: read between
    the two logs, with no batch in flight, it is the last batch's)."""
    committed = last_committed_batch(checkpoint)
    due = read_announcements(os.path.join(checkpoint, DUE_FILE)).get("due", "unread")
    planned = _batch_ids(os.path.join(checkpoint, "offsets"))
    return committed is not None and planned[-1:] == [committed] and due is None


def test_a_timer_pending_when_killed_fires_after_the_restart_without_input(tmp_path):
    """Killed while its processing-time timer waits and no input will ever come again (the
    batch of its records committed, so Spark replays nothing): the restarted job still
    fires it (it ticks at once, so every key group reports its timers)."""
    output, checkpoint = str(tmp_path / "out"), str(tmp_path / "checkpoint")
    job = start(output, checkpoint, (SILENT,))
    _wait_for_output(
        output,
        job,
        lambda records: len(records) >= 2 and last_committed_batch(checkpoint) is not None,
    )
    os.killpg(job.pid, signal.SIGKILL)
    job.wait()
    assert not any("alert" in r for r in read_part_files(output))  # the timer waits 10 s
    restarted = start(output, checkpoint, (SILENT,))
    try:
        _wait_for_output(output, restarted, lambda records: any("alert" in r for r in records))
        # nothing more comes: no micro-batch in flight and no timer pending, without input
        wait_until(
            lambda: _alive(restarted) and _at_rest(checkpoint),
            "the restarted job at rest after the alert",
            60,
            state=lambda: (
                last_committed_batch(checkpoint),
                _batch_ids(os.path.join(checkpoint, "offsets"))[-1:],
                read_announcements(os.path.join(checkpoint, DUE_FILE)),
            ),
        )
    finally:
        os.killpg(restarted.pid, signal.SIGKILL)
        restarted.wait()
    order = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
    assert sorted(read_part_files(output), key=order) == sorted(
        [{"element": 0}, {"element": 1}, {"alert": "a"}], key=order
    )


@pytest.mark.parametrize("parallelism", [1, 3])
def test_keyed_state_and_timers_survive_a_restart_at_another_parallelism(tmp_path, parallelism):
    """Killed at parallelism 2 and restarted at 1 or 3: each key's count and end-of-input
    timer live in its key group, whichever subtask now runs it (Flink's rescaling)."""
    records = kill_and_restart(tmp_path, (JOB,), restart_extra=(str(parallelism),))
    key = lambda r: (r["key"], r["ts"])  # noqa: E731
    assert sorted(records, key=key) == sorted(expected_records(), key=key)


def expected_two_inputs(kind):
    left = [(f"k{i % 7}", i * 10) for i in range(EVENTS)]
    right = [(f"k{i % 7}", i * 10 + 3) for i in range(EVENTS)]
    if kind == "async":
        return [{"key": k, "ts": t, "answer": t * 2} for k, t in left]
    if kind == "interval_join":
        return [
            {"key": k, "ts": t, "right": u}
            for k, t in left
            for j, u in right
            if k == j and abs(u - t) <= 20
        ]
    counts, records = {}, []
    for side, events in enumerate((left, right) if kind == "co_process" else (left,)):
        for key, ts in events:
            counts[key, side] = counts.get((key, side), 0) + 1
            record = {"key": key, "ts": ts, "count": counts[key, side]}
            records.append({**record, "side": side} if kind == "co_process" else record)
    for key in sorted({k for k, _ in left}):
        final = (
            {"final": [counts[key, 0], counts[key, 1]]}
            if kind == "co_process"
            else {"final": counts[key, 0], "rules": EVENTS}
        )
        records.append({"key": key, "ts": 10**12, **final})
    return records


@pytest.mark.parametrize("kind", ["co_process", "broadcast", "interval_join", "async"])
def test_multi_stream_jobs_restart_from_checkpoint_as_if_never_killed(tmp_path, kind):
    records = kill_and_restart(tmp_path, (TWO_INPUTS, kind))
    order = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
    assert sorted(records, key=order) == sorted(expected_two_inputs(kind), key=order)


def test_own_watermarks_restart_from_checkpoint_as_if_never_killed(tmp_path):
    """Each input counted in windows of its own: the second input's timestamps run far
    ahead of the first's, so its operator's own watermark (not the job's, the slower
    first input's) makes its stragglers late, before and after the restart (Flink drops
    them; with the job's watermark they would join their windows)."""
    records = kill_and_restart(tmp_path, (TWO_INPUTS, "own_watermarks"))
    counts = {}
    for index in range(EVENTS):
        key = f"k{index % 7}"
        counts["left", key, index * 10 // 100 * 100 + 100] = (
            counts.get(("left", key, index * 10 // 100 * 100 + 100), 0) + 1
        )
        if not (index % 10 == 9 and index >= 400):  # a straggler is late
            counts["right", key, index * 1000 + 100] = 1
    expected = [{"side": s, "key": k, "end": e, "count": n} for (s, k, e), n in counts.items()]
    order = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
    assert sorted(records, key=order) == sorted(expected, key=order)


def _both_instances_committed(output, checkpoint):
    """Both instances wrote records in a micro-batch Spark committed: each has a snapshot
    (with its union list entry) in the checkpoint a restart restores."""
    committed = last_committed_batch(checkpoint) if os.path.isdir(checkpoint) else None
    if committed is None or not os.path.isdir(output):
        return False
    batches = {}
    for name in os.listdir(output):
        parts = name.split("-")
        if name.startswith("part-") and len(parts) >= 6 and parts[-3].isdigit():
            batches.setdefault(int(parts[-3]), set()).add(parts[-2])
    return any(b <= committed and len(subtasks) == 2 for b, subtasks in batches.items())


def test_operator_state_restarts_from_checkpoint_as_if_never_killed(tmp_path):
    """Which instance reads a record depends on how the runs cut their micro-batches, so
    this checks what must hold whatever the cut: every record numbered once, each
    instance's numbers 1, 2, 3... without a gap or a repeat across the restart, and the
    union list state holding every instance's entry right after the restart only. (Killed
    once both instances have a committed snapshot: killed earlier, a restart's union holds
    the entries of the instances that had one, as in Flink.)"""
    records = kill_and_restart(
        tmp_path, (TWO_INPUTS, "operator_state"), ready=_both_instances_committed
    )
    assert sorted(r["ts"] for r in records) == [i * 10 for i in range(EVENTS)]
    for instance in (0, 1):
        mine = sorted(r["n"] for r in records if r["instance"] == instance)
        assert mine == list(range(1, len(mine) + 1))
    unions = {tuple(r["union"]) for r in records}
    assert unions == {(), (0,), (1,), (0, 1)}
    assert all(r["union"] in ([], [r["instance"]], [0, 1]) for r in records)


def test_operator_state_is_dealt_out_again_at_a_new_parallelism(tmp_path):
    """Killed at parallelism 2 and restarted at 1: the one instance gets both instances'
    counts (list state), so its numbers go on from their sum, and the union list of both
    instances' indexes."""
    records = kill_and_restart(
        tmp_path,
        (TWO_INPUTS, "operator_state"),
        (TWO_INPUTS, "operator_state:1"),
        ready=_both_instances_committed,
    )
    assert sorted(r["ts"] for r in records) == [i * 10 for i in range(EVENTS)]
    second = sorted(r["n"] for r in records if r["instance"] == 1)  # before the kill only
    assert second and second == list(range(1, len(second) + 1))
    first = sorted(r["n"] for r in records if r["instance"] == 0)
    before = next(i for i, n in enumerate(first) if n != i + 1)
    assert first == list(range(1, before + 1)) + list(range(before + len(second) + 1, EVENTS + 1))
    assert [0, 1] in [r["union"] for r in records]


def test_a_sink_functions_operator_state_survives_a_restart(tmp_path):
    """A sink function buffering records in list state: what it sent on plus what it holds
    at the end is every record, none lost (sent at least once: a batch replayed after
    the restart sends its groups again)."""
    sent = kill_and_restart(tmp_path, (TWO_INPUTS, "buffering_sink"))
    saved = load_operator_states(str(tmp_path / "checkpoint"))
    held = [r for (_, snapshot) in saved["snapshots"].values() for r in snapshot["buffered"][1]]
    as_text = lambda records: {json.dumps(r, sort_keys=True) for r in records}  # noqa: E731
    everything = as_text({"key": f"k{i % 7}", "ts": i * 10} for i in range(EVENTS))
    assert as_text(sent) | as_text(held) == everything
    assert not as_text(sent) & as_text(held)
    assert len(sent) - len(as_text(sent)) <= PER_BATCH + 8  # one batch, two buffers
