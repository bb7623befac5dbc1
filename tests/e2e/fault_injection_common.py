"""What the fault-injection test (test_fault_injection.py) and its benchmark
(bench/fault_injection.py) share: the input, a plain-Python model of the job's output,
running the job (tests/e2e/jobs/fault_injection_job.py) with SIGKILLs at random moments,
reading every sink and comparing it with the model.

The model is exact because the output does not depend on how the input is cut into
micro-batches: a key's events come from one source (Kafka: even keys, files: odd keys),
which keeps their order, and each source's timestamps only grow, so no event is ever
behind the watermark (the job's watermark is the smaller of the two sources').
"""

import collections
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from tests.e2e.shared import read_part_files
from weir.spark.restore import IDENTITY_FILE, last_committed_batch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JOB = os.path.join(ROOT, "tests", "e2e", "jobs", "fault_injection_job.py")
KEYS_PER_SOURCE = 5
STEP_MS = 200  # event time between a source's consecutive events
WINDOW_MS = 10_000
JOB_TIMEOUT_S = 600
LIFE_S = 15.0  # about how long a life (killed at random) runs
WORK_TIMEOUT_S = 120  # a life that plans no micro-batch for this long is stuck
KAFKA_TASKS = 2  # the tasks that write the Kafka sink: the job's 2 shuffle partitions
TAGS = ("life", "batch", "task")  # what the job adds to a Kafka record (see the job)


@dataclass
class Sizes:
    """How much input: Kafka records (produced while the job runs, a share per life) and
    files (read one per micro-batch)."""

    kafka_events: int = 360
    files: int = 24
    events_per_file: int = 15

    @staticmethod
    def for_kills(kills: int) -> "Sizes":
        """Enough input for `kills` kills while the job works: two files per life, as many
        Kafka records as file records."""
        files = max(Sizes.files, 2 * kills)
        return Sizes(files * Sizes.events_per_file, files, Sizes.events_per_file)


# -- the input ----------------------------------------------------------------------------


def event(source: int, index: int) -> dict:
    """The index-th event of a source (0: Kafka, even keys; 1: files, odd keys)."""
    return {
        "key": f"k{2 * (index % KEYS_PER_SOURCE) + source}",
        "value": (index * 37 + source * 11) % 101,
        "ts": index * STEP_MS,
    }


def kafka_input(sizes: Sizes) -> List[dict]:
    return [event(0, i) for i in range(sizes.kafka_events)]


def file_input(sizes: Sizes) -> List[List[dict]]:
    """The events of each file, in reading order."""
    per = sizes.events_per_file
    return [[event(1, f * per + i) for i in range(per)] for f in range(sizes.files)]


def all_events(sizes: Sizes) -> List[dict]:
    """Every event, each source's in its order (Kafka's, then the files')."""
    return kafka_input(sizes) + [e for events in file_input(sizes) for e in events]


def write_files(directory: str, files: List[List[dict]]) -> None:
    """The JSON-lines files, their modification times one second apart in order (the file
    source reads in modification-time order)."""
    os.makedirs(directory, exist_ok=True)
    start = time.time() - len(files) - 10
    for number, events in enumerate(files):
        path = os.path.join(directory, f"events-{number:04d}.json")
        with open(path, "w") as handle:
            handle.writelines(json.dumps(e) + "\n" for e in events)
        os.utime(path, (start + number, start + number))


class PacedProducer(threading.Thread):
    """Produces the Kafka input one record at a time (one record per Kafka batch: Tansu's
    "latest" offset is right only so), `rate` per second, as far as `allow(count)` lets
    it: each life of the job gets a share of its own while it runs, so the Kafka source
    always has records to come (a bounded Kafka source that has caught up holds every
    micro-batch back) and the job cannot end before the last share."""

    def __init__(self, broker, topic: str, events: List[dict], rate: float):
        super().__init__(daemon=True)
        self.broker, self.topic, self.events, self.rate = broker, topic, events, rate
        self.allowed, self.at_once = 0, 0
        self.error = None

    def allow(self, count: int, at_once: bool = False) -> None:
        """Produce up to the count-th record (`at_once`: without pacing)."""
        self.allowed = max(self.allowed, count)
        if at_once:
            self.at_once = self.allowed

    def run(self) -> None:
        try:
            sent = 0
            while sent < len(self.events):
                if sent < self.at_once:
                    self._produce(self.events[sent : self.at_once])
                    sent = self.at_once
                elif sent < self.allowed:
                    self._produce(self.events[sent : sent + 1])
                    sent += 1
                    time.sleep(1 / self.rate)
                else:
                    time.sleep(0.05)
        except Exception as exc:  # noqa: BLE001 (reported by the test)
            self.error = exc

    def _produce(self, events: List[dict]) -> None:
        self.broker.produce(self.topic, [(json.dumps(e), 0, None) for e in events])


# -- the model ----------------------------------------------------------------------------


def expected_updates(sizes: Sizes) -> List[dict]:
    """The running count and sum per key after each event."""
    totals, updates = {}, []
    for e in all_events(sizes):
        count, total = totals.get(e["key"], (0, 0))
        totals[e["key"]] = count + 1, total + e["value"]
        updates.append(
            {"key": e["key"], "ts": e["ts"], "count": count + 1, "sum": total + e["value"]}
        )
    return updates


def expected_windows(sizes: Sizes) -> List[dict]:
    """The number of events per key and 10 s window."""
    counts = collections.Counter()
    for e in all_events(sizes):
        counts[e["key"], e["ts"] // WINDOW_MS * WINDOW_MS] += 1
    return [
        {"key": key, "start": start, "end": start + WINDOW_MS, "count": n}
        for (key, start), n in counts.items()
    ]


def expected_state(updates: List[dict]) -> Dict[str, dict]:
    """The Redis hash of each key: its last update (Redis keeps text)."""
    return {
        u["key"]: {"count": str(u["count"]), "sum": str(u["sum"]), "ts": str(u["ts"])}
        for u in updates
    }


def expected_sinks(sizes: Sizes) -> Dict[str, list]:
    """Every sink's expected contents, as lists of records (order aside)."""
    updates, windows = expected_updates(sizes), expected_windows(sizes)
    text = [{name: str(value) for name, value in u.items()} for u in updates]
    return {
        "kafka": updates,
        "redis_stream": text,
        "redis_hash": [expected_state(updates)],
        "files": windows,
        "postgres": [[w["key"], w["start"], w["end"], w["count"]] for w in windows],
    }


# -- the servers and names of one run -------------------------------------------------------


@dataclass
class Setup:
    """The servers, names and directories of one fault-injection run."""

    broker: object
    redis: object
    database: object
    directory: str
    sizes: Sizes
    spark_conf: Dict[str, str] = field(default_factory=dict)
    name: str = field(default_factory=lambda: f"fi{uuid.uuid4().hex[:8]}")

    def __post_init__(self):
        self.input_topic = self.broker.create_topic(1, f"{self.name}-in")
        self.output_topic = self.broker.create_topic(1, f"{self.name}-out")
        self.windows_table = f"{self.name}_windows"
        self.database.execute(
            f"CREATE TABLE {self.windows_table} (key text, window_start "
            "bigint, window_end bigint, n bigint)"
        )
        for sub in ("input", "output", "checkpoint", "logs"):
            os.makedirs(self.path(sub), exist_ok=True)

    def path(self, name: str) -> str:
        return os.path.join(self.directory, name)

    def job_args(self, life: int, hang_file: Optional[str] = None) -> List[str]:
        args = [
            "--broker",
            self.broker.bootstrap,
            "--input-topic",
            self.input_topic,
            "--input-dir",
            self.path("input"),
            "--output-topic",
            self.output_topic,
            "--output-dir",
            self.path("output"),
            "--jdbc-url",
            self.database.jdbc_url,
            "--windows-table",
            self.windows_table,
            "--redis-url",
            self.redis.url,
            "--redis-prefix",
            self.name,
            "--checkpoint",
            self.path("checkpoint"),
            "--kafka-events",
            str(self.sizes.kafka_events),
            "--life",
            str(life),
        ]
        for key, value in self.spark_conf.items():
            args += ["--spark-conf", f"{key}={value}"]
        return args + (["--hang-in-transaction", hang_file] if hang_file else [])


# -- running it, with kills ---------------------------------------------------------------


@dataclass
class KillPoint:
    """Where one SIGKILL landed: the life it ended, seconds after that life started, the
    last micro-batch committed then, the batch in flight (planned, not committed), and
    per task of the Kafka sink the micro-batches it had committed to Kafka then (None: the
    job had no identity yet; see kafka_batches_written)."""

    life: int
    after_s: float
    committed: Optional[int]
    in_flight: Optional[int]
    kind: str
    kafka_written: Optional[Dict[int, int]] = None

    def __str__(self):
        where = (
            "before its first batch"
            if self.committed is None and self.in_flight is None
            else f"batch {self.in_flight} in flight"
            if self.in_flight is not None
            else f"between batches (last committed {self.committed})"
        )
        written = (
            ""
            if self.kafka_written is None
            else (f"; Kafka batches committed by task: {self.kafka_written}")
        )
        return (
            f"life {self.life}: {self.kind} kill {self.after_s:.1f} s after its start, "
            f"{where}{written}"
        )


@dataclass
class RunReport:
    kills: List[KillPoint] = field(default_factory=list)
    restarts: int = 0
    seconds: float = 0.0
    batches: Optional[int] = None


def _batch_ids(directory: str) -> List[int]:
    if not os.path.isdir(directory):
        return []
    return sorted(int(n) for n in os.listdir(directory) if n.isdigit())


def kill_point(setup: Setup, life: int, after_s: float, kind: str) -> KillPoint:
    """Where the kill of life `life` landed; read right after the kill, before the next
    life starts."""
    checkpoint = setup.path("checkpoint")
    committed = last_committed_batch(checkpoint)
    planned = _batch_ids(os.path.join(checkpoint, "offsets"))
    in_flight = planned[-1] if planned and planned[-1] != committed else None
    return KillPoint(life, after_s, committed, in_flight, kind, kafka_batches_written(setup))


def kafka_batches_written(setup: Setup) -> Optional[Dict[int, int]]:
    """Per task of the job's Kafka sink, how many micro-batches it has committed to Kafka
    (batches 0 to n - 1), as its replay marker says: the transaction of a task's batch b
    also commits offset b + 1 of the consumer group <prefix>-<job>-<task> (prefix: the
    output topic; job: the identity in the checkpoint; weir.runtime.connectors.kafka_sink).
    Read after a kill and before the next life: first a producer of each task's
    transactional id is initialized, as the next life's writer of the task does first,
    which ends the transaction the killed life left: aborted if open, committed if the
    life had asked for its commit (the broker finishes it, even after the kill). Then a
    batch of the killed life below the marker committed, and one at or above it did not.
    None where the job has no identity yet."""
    from confluent_kafka import Consumer, Producer, TopicPartition

    identity = os.path.join(setup.path("checkpoint"), IDENTITY_FILE)
    if not os.path.exists(identity):
        return None
    with open(identity, encoding="ascii") as handle:
        job = handle.read().strip()
    written = {}
    for task in range(KAFKA_TASKS):
        Producer(
            {
                "bootstrap.servers": setup.broker.bootstrap,
                "transactional.id": f"{setup.output_topic}-{task}",
            }
        ).init_transactions(60)
        consumer = Consumer(
            {
                "bootstrap.servers": setup.broker.bootstrap,
                "group.id": f"{setup.output_topic}-{job}-{task}",
                "enable.auto.commit": False,
            }
        )
        try:
            marker = consumer.committed([TopicPartition(setup.output_topic, 0)], timeout=30)
        finally:
            consumer.close()
        written[task] = max(marker[0].offset, 0)  # (none committed: a negative offset)
    return written


def start_job(setup: Setup, life: int, hang_file: Optional[str] = None) -> subprocess.Popen:
    """The job as a process of its own session (the driver and its Spark workers are
    one process group), its output in logs/life-N.log."""
    env = dict(
        os.environ,
        PYTHONPATH=ROOT,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    log = open(os.path.join(setup.path("logs"), f"life-{life}.log"), "wb")
    process = subprocess.Popen(
        [sys.executable, JOB, *setup.job_args(life, hang_file)],
        env=env,
        start_new_session=True,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    process.life = life
    return process


def log_tail(setup: Setup, life: int, chars: int = 3000) -> str:
    """The end of a life's output, without the query plan Spark appends to a failure."""
    with open(os.path.join(setup.path("logs"), f"life-{life}.log"), errors="replace") as f:
        text = f.read()
    return text.split("=== Streaming Query ===")[0][-chars:]


def kill(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGKILL)  # the driver and its Spark workers, at once
    process.wait()


def _check_alive(setup: Setup, process: subprocess.Popen) -> None:
    if process.poll() is not None:
        raise AssertionError(
            f"life {process.life} exited early with {process.returncode}:"
            f"\n{log_tail(setup, process.life)}"
        )


def kill_inside_a_kafka_transaction(setup: Setup, report: RunReport) -> None:
    """Life 0: runs until the Kafka sink's serializer stops inside an open transaction
    that already holds records, then kills it (deterministic: see the job)."""
    hang_file = os.path.join(setup.directory, "hanging")
    started = time.monotonic()
    process = start_job(setup, 0, hang_file)
    deadline = started + JOB_TIMEOUT_S
    while not os.path.exists(hang_file):
        _check_alive(setup, process)
        if time.monotonic() > deadline:
            kill(process)
            raise AssertionError("the Kafka sink never hung inside a transaction")
        time.sleep(0.1)
    kill(process)
    report.kills.append(kill_point(setup, 0, time.monotonic() - started, "in-transaction"))


@dataclass
class KillPlan:
    """When random kills land: with probability `startup_share`, `startup_s` seconds after
    a life starts (while Spark starts, before or during its first batch); otherwise
    `working_s` seconds after the life first plans or commits a micro-batch (a batch in
    flight, its sinks' commits, between batches)."""

    startup_share: float = 0.2
    startup_s: tuple = (3.0, 14.0)
    working_s: tuple = (0.0, 8.0)

    def draw(self, rng) -> tuple:
        """("startup" or "working", seconds)."""
        if rng.random() < self.startup_share:
            return "startup", rng.uniform(*self.startup_s)
        return "working", rng.uniform(*self.working_s)


def _progress(checkpoint: str) -> tuple:
    return (
        tuple(_batch_ids(os.path.join(checkpoint, "offsets"))),
        last_committed_batch(checkpoint),
    )


def _wait_for_work(setup: Setup, process: subprocess.Popen) -> None:
    """Until the life plans or commits a micro-batch (or ends); an AssertionError if it
    does neither within WORK_TIMEOUT_S."""
    checkpoint = setup.path("checkpoint")
    before, deadline = _progress(checkpoint), time.monotonic() + WORK_TIMEOUT_S
    while process.poll() is None and _progress(checkpoint) == before:
        if time.monotonic() > deadline:
            kill(process)
            raise AssertionError(
                f"life {process.life} planned no micro-batch in "
                f"{WORK_TIMEOUT_S} s:\n{log_tail(setup, process.life)}"
            )
        time.sleep(0.1)


def random_kill(setup: Setup, life: int, plan: KillPlan, rng, report: RunReport) -> None:
    """Starts life `life` and kills it at a moment `plan` draws (it cannot end before:
    the last Kafka records are held back)."""
    kind, delay = plan.draw(rng)
    started = time.monotonic()
    process = start_job(setup, life)
    if kind == "working":
        _wait_for_work(setup, process)
    try:
        process.wait(delay)
    except subprocess.TimeoutExpired:
        kill(process)
        report.kills.append(kill_point(setup, life, time.monotonic() - started, kind))
        return
    raise AssertionError(
        f"life {life} ended by itself ({process.returncode}) before the "
        f"end of its input:\n{log_tail(setup, life)}"
    )


def finish(setup: Setup, life: int) -> None:
    """The last life: runs the job until it ends by itself."""
    process = start_job(setup, life)
    try:
        process.wait(JOB_TIMEOUT_S)
    except subprocess.TimeoutExpired as error:
        kill(process)
        raise AssertionError(
            f"the last life did not end within {JOB_TIMEOUT_S} s:\n{log_tail(setup, life)}"
        ) from error
    if process.returncode:
        raise AssertionError(
            f"the last life failed with {process.returncode}:\n{log_tail(setup, life)}"
        )


@contextlib.contextmanager
def fed_input(setup: Setup, rate: float = 1.0):
    """The input files written, and a producer of the Kafka input (see PacedProducer)
    running meanwhile; in the end, every record produced."""
    write_files(setup.path("input"), file_input(setup.sizes))
    producer = PacedProducer(setup.broker, setup.input_topic, kafka_input(setup.sizes), rate)
    producer.start()
    try:
        yield producer
    finally:
        producer.allow(setup.sizes.kafka_events, at_once=True)
    producer.join(JOB_TIMEOUT_S)
    if producer.error is not None:
        raise producer.error


def run_uninterrupted(setup: Setup) -> RunReport:
    """The same input and job, run once to its end without a kill (the reference)."""
    started = time.monotonic()
    with fed_input(setup) as producer:
        producer.allow(setup.sizes.kafka_events, at_once=True)
        finish(setup, 0)
    return RunReport(
        seconds=time.monotonic() - started, batches=last_committed_batch(setup.path("checkpoint"))
    )


def run_with_kills(setup: Setup, kills: int, rng, plan: KillPlan = None, log=print) -> RunReport:
    """Feeds the input, kills the job once inside a Kafka transaction and then `kills`
    times at random moments (`plan`), restarting it on the same checkpoint each time, and
    lets the last life run to its end. Each life gets its share of the Kafka records,
    produced over about LIFE_S seconds; the last life gets the rest at once."""
    plan = KillPlan() if plan is None else plan
    total = setup.sizes.kafka_events
    share = total / (kills + 2)
    report, started = RunReport(), time.monotonic()
    with fed_input(setup, share / LIFE_S) as producer:
        producer.allow(round(share))
        kill_inside_a_kafka_transaction(setup, report)
        log(report.kills[-1])
        for life in range(1, kills + 1):
            producer.allow(round(share * (life + 1)))
            random_kill(setup, life, plan, rng, report)
            log(report.kills[-1])
        producer.allow(total, at_once=True)
        finish(setup, kills + 1)
        log(f"life {kills + 1}: ran to the end")
    report.restarts = kills + 1
    report.seconds = time.monotonic() - started
    report.batches = last_committed_batch(setup.path("checkpoint"))
    return report


# -- reading the sinks and comparing ------------------------------------------------------


def read_kafka(setup: Setup, count: int, committed: bool = True) -> List[tuple]:
    """The output topic read with read_committed (else its whole log, read_uncommitted):
    (partition, offset, update with its TAGS) triples."""
    return [
        (partition, offset, json.loads(value))
        for partition, offset, value in setup.broker.consume_at(
            setup.output_topic, count, 60 if committed else 10, committed
        )
    ]


def read_redis_hash(setup: Setup) -> Dict[str, dict]:
    client, prefix = setup.redis.client, f"{setup.name}:state:"
    return {
        key.decode()[len(prefix) :]: {
            k.decode(): v.decode() for k, v in client.hgetall(key).items()
        }
        for key in client.scan_iter(match=f"{prefix}*")
    }


def read_sinks(setup: Setup, expected: Dict[str, list]) -> Dict[str, list]:
    """Every sink's contents, shaped as expected_sinks's (Kafka's with the lives)."""
    rows = setup.database.query(
        f"SELECT key, window_start, window_end, n FROM {setup.windows_table}"
    )
    committed = read_kafka(setup, len(expected["kafka"]))
    read_to = {}  # partition -> the offset after the last record read_committed gave
    for partition, offset, _ in committed:
        read_to[partition] = max(read_to.get(partition, 0), offset + 1)
    log = read_kafka(setup, len(expected["kafka"]), committed=False)
    return {
        "kafka": [record for _, _, record in committed],
        "kafka_beyond": [
            record for partition, offset, record in log if offset >= read_to.get(partition, 0)
        ],
        "redis_stream": setup.redis.entries(f"{setup.name}:updates"),
        "redis_hash": [read_redis_hash(setup)],
        "files": read_part_files(setup.path("output")),
        "postgres": [list(row) for row in rows],
    }


def without_life(records: List[dict]) -> List[dict]:
    """Kafka records as updates: their TAGS (life, micro-batch, task) left out."""
    return [{k: v for k, v in r.items() if k not in TAGS} for r in records]


def _text(record) -> str:
    return json.dumps(record, sort_keys=True)


def _update_text(record: dict) -> str:
    """A Kafka record's update (its TAGS left out), as difference() compares it."""
    return _text({k: v for k, v in record.items() if k not in TAGS})


@dataclass
class KafkaTransactions:
    """The Kafka output's records by the transaction that holds each: `committed`, those
    of transactions that committed; `aborted`, those of a transaction a kill left open
    (the next producer of its id aborts it; Tansu still shows them to read_committed
    consumers); `unexplained`, records neither (with why)."""

    committed: List[dict] = field(default_factory=list)
    aborted: List[dict] = field(default_factory=list)
    unexplained: List[str] = field(default_factory=list)


def kafka_transactions(records: List[dict], kills: List[KillPoint]) -> KafkaTransactions:
    """Sorts the Kafka output's records (each tagged with its life, micro-batch and task:
    one transaction per life, batch and task) record by record. The last life ran to its
    end, so its transactions committed. A killed life's record of (batch b, task t) is of
    a committed transaction if the task's marker read right after the kill was above b
    (kafka_batches_written); otherwise its transaction was open at the kill, which must
    then have been of the batch in flight (a life commits or fails each transaction before
    its batch commits)."""
    killed = {kill.life: kill for kill in kills}
    found = KafkaTransactions()
    for record in records:
        kill = killed.get(record["life"])
        if kill is None:
            found.committed.append(record)
            continue
        written = (kill.kafka_written or {}).get(record.get("task"))
        batch = record.get("batch")
        if written is None or batch is None:
            found.unexplained.append(f"{_text(record)}: no marker of its task read at {kill}")
        elif batch < written:
            found.committed.append(record)
        elif batch == kill.in_flight:
            found.aborted.append(record)
        else:
            found.unexplained.append(
                f"{_text(record)}: its task had committed {written} "
                f"batches, and batch {batch} was not in flight at "
                f"{kill}"
            )
    return found


@dataclass
class Difference:
    """One sink's contents against the expected ones, as multisets."""

    records: int
    lost: List[str]
    duplicated: List[str]  # one entry per extra copy of an expected record
    foreign: List[str]  # records not expected at all

    @property
    def exact(self) -> bool:
        return not (self.lost or self.duplicated or self.foreign)


def held_back_by_the_broker(missing: List[str], beyond: list) -> bool:
    """Whether every update a read_committed consumer misses (`missing`: a Difference's
    lost) is in the topic's log beyond the offset where that consumer stopped (`beyond`:
    those records, read_uncommitted). Tansu 0.6 can stop read_committed consumers at an
    offset that committed transactions no longer move: see docs/connectors.md."""
    held = collections.Counter(map(_update_text, beyond))
    return bool(missing) and not collections.Counter(missing) - held


def held_back_lives(missing: List[str], beyond: list) -> Dict[int, int]:
    """{life: how many of the missing updates' held-back copies it wrote}."""
    wanted = set(missing)
    return dict(
        collections.Counter(record["life"] for record in beyond if _update_text(record) in wanted)
    )


def difference(expected: list, actual: list) -> Difference:
    want = collections.Counter(map(_text, expected))
    got = collections.Counter(map(_text, actual))
    extra = got - want
    return Difference(
        len(actual),
        sorted((want - got).elements()),
        sorted(r for r in extra.elements() if r in want),
        sorted(r for r in extra.elements() if r not in want),
    )


def compare(expected: Dict[str, list], actual: Dict[str, list]) -> Dict[str, Difference]:
    """Per sink, its difference from the expected contents (Kafka's lives left out)."""
    return {
        sink: difference(
            expected[sink], without_life(actual[sink]) if sink == "kafka" else actual[sink]
        )
        for sink in expected
    }


def kafka_duplicate_lives(records: List[dict]) -> Dict[str, List[int]]:
    """The lives that wrote each update found more than once in the Kafka output."""
    lives = collections.defaultdict(list)
    for record in records:
        lives[_update_text(record)].append(record["life"])
    return {update: found for update, found in lives.items() if len(found) > 1}


def out_of_order_keys(stream_entries: List[dict]) -> List[str]:
    """Keys whose updates in the Redis stream are not in count order (a task's entries
    of a batch go in one transaction, in the order the key saw its events)."""
    counts = collections.defaultdict(list)
    for entry in stream_entries:
        counts[entry["key"]].append(int(entry["count"]))
    return sorted(key for key, seen in counts.items() if seen != sorted(seen))
