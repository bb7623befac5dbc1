"""Fault injection: a stateful job reading Kafka and files and writing Kafka, files,
PostgreSQL and Redis (tests/e2e/jobs/fault_injection_job.py) is SIGKILLed at random
moments, restarted on the same checkpoint each time, and finally runs to its end: every
sink then holds exactly what an uninterrupted run writes, nothing lost, nothing twice.

The expected contents come from a plain-Python model of the job (fault_injection_common),
which equals an uninterrupted run's output exactly (`bench/fault_injection.py --reference`
checks that). The kills: one deterministic, inside an open Kafka transaction that already
holds records; then 10 at random moments, seeded (FAULT_INJECTION_SEED to repeat a run;
the seed is printed). FAULT_INJECTION_SPARK_CONF="key=value,..." passes Spark settings to
the job (a diagnostic knob; the test runs without it).

Tansu, the test broker, shows records of aborted transactions to read_committed consumers,
so the Kafka output's exactly-once is asserted apart, record by record: the job tags each
Kafka record with the life, micro-batch and task whose transaction holds it, and right
after each kill the test ends the killed life's transactions (as the next life's writers
do first) and reads how many batches each task had committed (the sink's replay markers),
so it knows which records are of a transaction the kill left open, aborted. The committed
records must be exactly the uninterrupted output (nothing lost, nothing foreign, no copy);
a record of an aborted transaction must be an expected update of the batch in flight at
its life's kill. The raw read_committed output's exact equality is an expected failure
only in a run where every copy in it is such a record. Tansu 0.6 can also stop
read_committed consumers at an offset that later committed transactions do not move (seen
in one run of many): a run where updates are missing from the read_committed output but
all are in the topic's log beyond the offset where that read stopped is an expected
failure of that gap (after the checks for foreign records and copies), with what was
missing and the lives that wrote the held-back copies.
"""

import os
import random

import pytest

from tests.e2e import fault_injection_common as fi

pytestmark = pytest.mark.spark

RANDOM_KILLS = 10


def _seed() -> int:
    return int(os.environ.get("FAULT_INJECTION_SEED") or random.randrange(2**32))


def _spark_conf() -> dict:
    settings = os.environ.get("FAULT_INJECTION_SPARK_CONF", "")
    return dict(item.split("=", 1) for item in settings.split(",") if item)


@pytest.fixture(scope="module")
def run(kafka_broker, redis_server, postgres_server, tmp_path_factory):
    """The job killed 1 + RANDOM_KILLS times, then run to its end; (expected contents,
    actual contents, report)."""
    seed = _seed()
    print(f"\nfault injection: FAULT_INJECTION_SEED={seed}")
    setup = fi.Setup(
        kafka_broker,
        redis_server,
        postgres_server.create_database(),
        str(tmp_path_factory.mktemp("fault_injection")),
        fi.Sizes(),
        _spark_conf(),
    )
    report = fi.run_with_kills(setup, RANDOM_KILLS, random.Random(seed))
    print(
        f"{len(report.kills)} kills, {report.restarts} restarts, {report.batches} "
        f"micro-batches, {report.seconds:.0f} s (seed {seed})"
    )
    expected = fi.expected_sinks(setup.sizes)
    return expected, fi.read_sinks(setup, expected), report


def test_the_job_was_killed_at_random_moments_and_ran_to_its_end(run):
    _, _, report = run
    assert len(report.kills) == 1 + RANDOM_KILLS, [str(k) for k in report.kills]
    assert report.kills[0].kind == "in-transaction"
    assert {k.kind for k in report.kills[1:]} <= {"startup", "working"}


@pytest.mark.parametrize("sink", ["files", "postgres", "redis_stream", "redis_hash"])
def test_a_sink_holds_exactly_the_uninterrupted_output(run, sink):
    expected, actual, report = run
    diff = fi.difference(expected[sink], actual[sink])
    kills = "\n".join(map(str, report.kills))
    assert not diff.lost, f"{sink}: {len(diff.lost)} lost, e.g. {diff.lost[:5]}\n{kills}"
    assert not diff.duplicated, (
        f"{sink}: {len(diff.duplicated)} duplicated, e.g. {diff.duplicated[:5]}\n{kills}"
    )
    assert not diff.foreign, f"{sink}: unexpected {diff.foreign[:5]}\n{kills}"


def test_the_redis_stream_has_each_keys_updates_in_order(run):
    _, actual, _ = run
    assert fi.out_of_order_keys(actual["redis_stream"]) == []


def test_kafka_has_every_update_and_no_copy_but_the_brokers_gap_explains(run):
    """On Tansu: the records of committed transactions are exactly the uninterrupted
    output (every update, nothing else, no copy), and every other record is of a
    transaction a kill left open, which the next life aborted (record by record: see the
    module's doc)."""
    expected, actual, report = run
    kills = "\n".join(map(str, report.kills))
    found = fi.kafka_transactions(actual["kafka"], report.kills)
    assert not found.unexplained, (
        f"{len(found.unexplained)} records of no transaction "
        f"known, e.g. {found.unexplained[:5]}\n{kills}"
    )
    aborted = fi.difference(expected["kafka"], fi.without_life(found.aborted))
    assert not aborted.foreign, f"unexpected in aborted transactions: {aborted.foreign[:5]}"
    diff = fi.difference(expected["kafka"], fi.without_life(found.committed))
    assert not diff.foreign, f"unexpected {diff.foreign[:5]}\n{kills}"
    assert not diff.duplicated, (
        f"{len(diff.duplicated)} copies in committed transactions, "
        f"e.g. {diff.duplicated[:5]}\n{kills}"
    )
    _xfail_if_held_back_by_the_broker(diff.lost, actual)
    assert not diff.lost, f"{len(diff.lost)} lost, e.g. {diff.lost[:5]}\n{kills}"


def test_kafka_holds_exactly_the_uninterrupted_output(run):
    """Exactly the uninterrupted output, unless Tansu's gap shows in this run: an expected
    failure only where every copy is a record of a transaction a kill left open and the
    records of committed transactions are exact (record by record: see the module's doc).
    Whether it shows depends on where the first kill lands in the transaction, so a strict
    xfail failed the suite when it did not."""
    expected, actual, report = run
    diff = fi.difference(expected["kafka"], fi.without_life(actual["kafka"]))
    assert not diff.foreign, f"unexpected {diff.foreign[:5]}"
    _xfail_if_held_back_by_the_broker(diff.lost, actual)
    if diff.duplicated and not diff.lost:
        found = fi.kafka_transactions(actual["kafka"], report.kills)
        committed = fi.difference(expected["kafka"], fi.without_life(found.committed))
        if not found.unexplained and committed.exact:
            where = sorted({(r["life"], r["batch"], r["task"]) for r in found.aborted})
            pytest.xfail(
                "Tansu 0.6 gap: records of aborted transactions reach "
                f"read_committed consumers ({len(diff.duplicated)} copies, each a "
                f"record of the transactions (life, batch, task) {where} that "
                "kills left open)"
            )
    assert diff.exact, diff


def _xfail_if_held_back_by_the_broker(lost, actual) -> None:
    """An expected failure if every update missing from the read_committed output (`lost`)
    is in the log beyond where that read stopped; the lives that wrote those copies are
    named (a copy only in a killed life's aborted transaction would be a real loss that
    this cannot tell apart; the other sinks are checked exactly)."""
    beyond = actual["kafka_beyond"]
    if fi.held_back_by_the_broker(lost, beyond):
        pytest.xfail(
            f"Tansu 0.6 gap: read_committed stopped short, {len(lost)} updates "
            f"in the log beyond where it stopped (copies by life: "
            f"{fi.held_back_lives(lost, beyond)}), e.g. {lost[:3]}"
        )
