"""weir's source tasks as one Spark Python streaming data source.

The source reader travels in an option, pickled; offsets are the reader's JSON dicts, so a
restarted query replays exactly the records of the batches in its offset log.
"""

import base64
import functools
import json
import pickle
import time
import uuid
from typing import Optional, Tuple

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    InputPartition,
)
from pyspark.sql.streaming.datasource import SupportsTriggerAvailableNow

from weir.task.worker_instances import WorkerInstances
from weir.runtime.pickling import dumps_by_value
from weir.runtime.gc_pause import freeze_long_lived, paused_gc
from weir.runtime.sources import END_SPLIT
from weir.runtime.wire import Bundler, Channel, Control
from weir.spark.frames import STREAM_SCHEMA_DDL, to_batch

FORMAT = "weir"
PAUSE_S = 0.05  # how often a BATCH job asks a pausing source again for its last records


def encode(value) -> str:
    return base64.b64encode(dumps_by_value(value)).decode("ascii")


def decode(text: str):
    return pickle.loads(base64.b64decode(text))


class WeirDataSource(DataSource):
    @classmethod
    def name(cls):
        return FORMAT

    def schema(self):
        return STREAM_SCHEMA_DDL

    def _source_reader(self):
        reader = decode(self.options["reader"])
        reader.target_splits = int(self.options.get("target_splits", "1"))
        # (weir.runtime.split_watermarks)
        reader.announced_marks = (
            functools.partial(_announced_marks, self.options["marks_file"], self.options["uid"])
            if "marks_file" in self.options
            else None
        )
        return reader

    def streamReader(self, schema):
        options = self.options
        start = json.loads(options["start"]) if "start" in options else None
        reader = WeirStreamReader(
            self._source_reader(),
            options["task"],
            (options["run"], options["uid"]),
            start,
            options.get("hold_file"),
        )
        idle = (options["idle_file"], options["idle_group"]) if "idle_file" in options else None
        own = (
            (
                options["own_file"],
                int(options["key_groups"]),
                frozenset(json.loads(options["own_uids"])),
            )
            if "own_file" in options
            else None
        )
        due = (
            (options["due_file"], int(options["key_groups"]), json.loads(options["due_uids"]))
            if "due_file" in options
            else None
        )
        return AnnouncingReader(reader, idle, own, due) if idle or own or due else reader

    def reader(self, schema):
        return WeirBatchReader(self._source_reader(), self.options["task"])


class _Split(InputPartition):
    """What one Spark task reads: splits of the source's input in order, the first of
    them the micro-batch's first split where `first`."""

    def __init__(self, splits: list, first: bool):
        super().__init__(splits)
        self.splits = splits
        self.first = first


def _partitions(splits: list, extra=()) -> list:
    """One Spark task per data split; the end of input and `extra` splits (announcements)
    ride with the last one, or make one task of their own without data. A task costs
    ~50-90 ms to start here, on the critical path where it waits for a free core."""
    data = [split for split in splits if split != END_SPLIT]
    ends = [split for split in splits if split == END_SPLIT]
    partitions = [_Split([split], index == 0) for index, split in enumerate(data)]
    if partitions:
        partitions[-1].splits.extend(ends + list(extra))
    elif ends or extra:  # the end is then the batch's first split
        partitions.append(_Split(ends + list(extra), bool(ends)))
    return partitions


class WeirStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Reads a source task's splits: its records routed to their consumers (the source task
    runs the stateless operators fused behind it and assigns key groups), its largest
    timestamps for the watermark, ticks and a scripted source's controls.

    The task stays encoded until records are read: the driver-side Python process that
    plans offsets and splits never unpickles the user's functions."""

    def __init__(self, reader, encoded_task: str, run_key=None, start=None, hold_file=None):
        self.reader = reader
        self.encoded_task = encoded_task
        self.run_key = run_key
        self.start = start  # where a job restored from a savepoint starts (None: the start)
        self.hold_file = hold_file

    def prepareForTriggerAvailableNow(self):
        """Bounded readers end by themselves; availableNow is only used for them."""

    def held(self):
        """How the driver holds the job's sources (to stop it between micro-batches):
        None (it does not), HOLD (they report no new offsets) or DRAIN (they report their
        end of input where they are, so the watermark reaches the end of time)."""
        if self.hold_file is None:
            return None
        try:
            with open(self.hold_file, "rb") as held:
                return DRAIN if held.read() == DRAIN else HOLD
        except FileNotFoundError:
            return None

    def _named(self, offset: dict) -> dict:
        """`offset` naming its source (a savepoint finds each source's position by it)."""
        return offset if self.run_key is None else {**offset, SOURCE_KEY: self.run_key[1]}

    def initialOffset(self):
        return self._named(self.start if self.start is not None else self.reader.initial_offset())

    def latestOffset(self, start=None, limit=None):
        start = inner_offset(start) or inner_offset(self.initialOffset())
        held = self.held()
        if held == HOLD:
            return self._named(start)
        if held == DRAIN:
            return self._named({**start, "end": 1})
        return self._named(self.reader.latest_offset(start))

    def partitions(self, start, end, extra=()):
        return _partitions(self.reader.splits(inner_offset(start), inner_offset(end)), extra)

    def read(self, partition):
        return read_split(self.reader, self.encoded_task, partition, self.run_key)

    def commit(self, end):
        self.reader.commit_offset(inner_offset(end))


class AnnouncingReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """A source whose micro-batches also carry what the driver announces: the largest
    timestamp of its watermark group while the group is idle (`idle`: the driver's file
    and the group's name; weir.control.idleness), and on one source of the job, the own
    watermarks of the operators that some watermark group does not reach (`own`: the
    driver's file, the operators' key groups and their uids: announcements for others, of
    an earlier version of the job, are left out; weir.control.watermarks), and on one source
    of an unbounded job, a tick when a processing-time timer is due, so that a stream
    without input gets a micro-batch that fires it (`due`: the driver's file of the
    earliest pending timer, the operators' key groups and the uids of the operators that
    may hold such timers). Its offsets hold them, and a micro-batch whose offsets move
    them reads one more split that announces them. The offset log keeps the
    announcements, so a replay makes them again. Offsets written without them are taken
    as they are (a job may change between runs)."""

    def __init__(self, inner: WeirStreamReader, idle=None, own=None, due=None):
        self.inner = inner
        self.idle = idle
        self.own = own
        self.due = due

    def prepareForTriggerAvailableNow(self):
        self.inner.prepareForTriggerAvailableNow()

    def initialOffset(self):
        return _announcing(self.inner.initialOffset())

    def latestOffset(self, start=None, limit=None):
        start = _announcing(start) if start else self.initialOffset()
        if self.inner.held():
            return start
        end = _announcing(self.inner.latestOffset(start, limit))
        if self.idle is not None:
            end[IDLE_KEY] = _later(
                start[IDLE_KEY], read_announcements(self.idle[0]).get(self.idle[1])
            )
        if self.own is not None:
            known, uids = start[OWN_KEY], self.own[2]
            announced = {
                uid: mark for uid, mark in read_announcements(self.own[0]).items() if uid in uids
            }
            end[OWN_KEY] = {
                uid: _later(known.get(uid), announced.get(uid)) for uid in {**known, **announced}
            }
        if self.due is not None:
            end[TICK_KEY] = _tick(start[TICK_KEY], read_announcements(self.due[0]).get("due"))
        return end

    def partitions(self, start, end):
        start, end = _announcing(start), _announcing(end)
        announcements: list = []
        if end[IDLE_KEY] is not None and end[IDLE_KEY] != start[IDLE_KEY]:
            announcements.append((Control.IDLE, end[IDLE_KEY]))
        moved = {uid: mark for uid, mark in end[OWN_KEY].items() if start[OWN_KEY].get(uid) != mark}
        if moved:
            announcements.append((Control.OWN, moved))
        # (an earlier run's offset may hold a tick where this run has no timers)
        if self.due is not None and end[TICK_KEY] != start[TICK_KEY]:
            announcements.append((Control.TICK,))
        return self.inner.partitions(start, end, announcements)

    def read(self, partition):
        data = [split for split in partition.splits if not _is_announcement(split)]
        if data:
            yield from self.inner.read(_Split(data, partition.first))
        for split in partition.splits:
            if _is_announcement(split):
                yield self._announcement(split)

    def _announcement(self, split):
        if split[0] == Control.IDLE:
            return to_batch([(Channel.WATERMARK, 0, 0, Control.IDLE, None, split[1])])
        if split[0] == Control.OWN:
            return to_batch(
                [
                    (uid, 0, key_group, Control.OWN, None, mark)
                    for uid, mark in split[1].items()
                    for key_group in range(self.own[1])
                ]
            )
        bundler = Bundler()  # TICK
        for uid in self.due[2]:
            bundler.add_ticks(uid, self.due[1])
        return to_batch(bundler.rows())

    def commit(self, end):
        self.inner.commit(end)


IDLE_KEY = "weir_idle"  # the announced timestamp of an idle-capable source's group
OWN_KEY = "weir_own"  # the announced own watermarks of operators ({uid: watermark})
TICK_KEY = "weir_tick"  # when the last micro-batch for a due processing-time timer was asked
SOURCE_KEY = "weir_source"  # the uid of the source whose offset it is
HOLD, DRAIN = b"", b"drain"  # what the hold file holds: hold the sources, or drain them
ANNOUNCED = (IDLE_KEY, OWN_KEY, TICK_KEY, SOURCE_KEY)
TICK_RETRY_MS = 1000  # a timer still reported due this long after its tick asks again


def inner_offset(offset):
    """A source reader's own offset: without what weir's readers added (its source's uid,
    AnnouncingReader's announcements)."""
    if offset and any(key in offset for key in ANNOUNCED):
        offset = {key: value for key, value in offset.items() if key not in ANNOUNCED}
    return offset


def _tick(last, due):
    """The time of the tick a processing-time timer due at `due` needs (None: none is
    pending): now once it has come, unless the tick `last` was already asked for it (and
    less than TICK_RETRY_MS ago: a timer still pending after that asks again)."""
    now = int(time.time() * 1000)
    if (
        due is None
        or due > now
        or (last is not None and last >= due and now - last < TICK_RETRY_MS)
    ):
        return last
    return now


def _later(known, announced):
    """An announcement never goes back: the larger of the two (None: none)."""
    return known if announced is None or (known is not None and known > announced) else announced


def _announcing(offset: dict) -> dict:
    """`offset` holding announcements (none yet where it holds none)."""
    return {IDLE_KEY: None, OWN_KEY: {}, TICK_KEY: None, **offset}


def _is_announcement(split) -> bool:
    return isinstance(split, tuple) and split[0] in (Control.IDLE, Control.OWN, Control.TICK)


def _announced_marks(path: str, uid: str):
    """The marks of source `uid`'s partitions the driver wrote to `path` (None: none)."""
    return read_announcements(path).get(uid)


def read_announcements(path: str) -> dict:
    """{watermark group name: announced timestamp} the driver wrote to `path`."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return {}


class WeirBatchReader(DataSourceReader):
    """Reads every split of a bounded source task at once (a BATCH-mode job)."""

    def __init__(self, reader, encoded_task: str):
        self.reader = reader
        self.encoded_task = encoded_task

    def partitions(self):
        start = end = self.reader.initial_offset()
        while not end["end"]:
            later = self.reader.latest_offset(end)
            if later == end:  # a pausing reader waits for its last records
                time.sleep(PAUSE_S)
            end = later
        return _partitions(self.reader.splits(start, end))

    def read(self, partition):
        return read_split(self.reader, self.encoded_task, partition)


SOURCES = WorkerInstances()  # this worker process's source tasks: (run, uid) -> SourceRunner


def read_split(reader, encoded_task: str, partition, run_key: Optional[Tuple[str, str]] = None):
    """The rows of a partition's splits. The collector stays paused until they are read:
    paused per chunk, re-enabling it made Python scan every row the file reader still held
    (py-spy on YSB: 34 of the source's 205 samples). With `run_key` ((run id, task uid)) the
    worker process keeps the task, and the functions fused behind it open, for the
    splits of later micro-batches of the run."""
    # Imported here: the driver-side Python processes that plan the source (offsets,
    # partitions) need none of the task's code, and start ~40 ms sooner without it.
    from weir.task.printing import PrintCapture
    from weir.task.source_runner import SourceRunner, chunks_of

    freeze_long_lived()
    with paused_gc():
        if run_key is None:
            runner = SourceRunner(*decode(encoded_task))
        else:
            runner = SOURCES.get(*run_key, lambda: SourceRunner(*decode(encoded_task)))
        try:
            with PrintCapture(runner.plan.forward_prints) as printed:
                for index, split in enumerate(partition.splits):
                    chunks = chunks_of(reader, split) if split != END_SPLIT else ()
                    for rows in runner.read(split, partition.first and index == 0, chunks):
                        rows = printed.rows() + rows
                        if rows:
                            yield to_batch(rows)
                rows = printed.rows()
            if rows:
                yield to_batch(rows)
        except BaseException:
            if run_key is not None:
                SOURCES.drop(*run_key)
            raise
        if run_key is None:
            runner.close()


def spark_tasks(splits: list) -> list:
    """The Spark tasks that read `splits` (a batch's splits of one source): for each, the
    splits it reads and whether the first of them is the micro-batch's first."""
    return [(part.splits, part.first) for part in _partitions(splits)]


def read_task(reader, encoded_task: str, splits: list, first: bool, run_key=None):
    """The rows of one of `spark_tasks`' tasks (as read_split)."""
    return read_split(reader, encoded_task, _Split(splits, first), run_key)


def register(spark) -> None:
    spark.dataSource.register(WeirDataSource)


def read_stream(
    spark,
    task,
    plan,
    data_watermarks: bool,
    idle_source=None,
    own_source=None,
    due_source=None,
    marks_file=None,
    hold_file=None,
):
    """The streaming frame of a source task (`plan`: the plan's settings and ticked
    operators; `idle_source`: (its watermark group's name, the driver's announcements
    file) if the group can become idle; `own_source`: (the driver's announcements file,
    the uids of the operators with own watermarks) if this source carries them;
    `due_source`: (the driver's file of the earliest processing-time timer, the uids of
    the operators that may hold them) if this source ticks for them; `marks_file`: the
    driver's file of its partitions' largest timestamps if it keeps a watermark per
    partition; `hold_file`: the file whose presence holds the source). A plan restored
    from a savepoint starts the source at its saved position."""
    reader = (
        _options(spark.readStream, spark, task, plan, data_watermarks)
        .option("run", plan.run_id or uuid.uuid4().hex)
        .option("uid", task.uid)
    )
    if task.uid in plan.start_offsets:
        reader = reader.option("start", json.dumps(plan.start_offsets[task.uid]))
    if hold_file is not None:
        reader = reader.option("hold_file", hold_file)
    if marks_file is not None:
        reader = reader.option("marks_file", marks_file)
    if idle_source is not None:
        group, idle_file = idle_source
        reader = reader.option("idle_group", str(group)).option("idle_file", idle_file)
    if own_source is not None:
        own_file, uids = own_source
        reader = reader.option("own_file", own_file).option("own_uids", json.dumps(uids))
    if due_source is not None:
        due_file, uids = due_source
        reader = reader.option("due_file", due_file).option("due_uids", json.dumps(uids))
    if own_source is not None or due_source is not None:  # announced to every key group
        reader = reader.option("key_groups", str(plan.max_parallelism))
    return reader.load()


def read_batch(spark, task, plan):
    """The batch frame of a bounded source task: all of its input."""
    return _options(spark.read, spark, task, plan, False).load()


def _options(reader, spark, task, plan, data_watermarks: bool):
    return (
        reader.format(FORMAT)
        .option("reader", encode(task.node.param("reader")))
        .option("task", encode((task, plan, data_watermarks)))
        .option("target_splits", spark.sparkContext.defaultParallelism)
    )
