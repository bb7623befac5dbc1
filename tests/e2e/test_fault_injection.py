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
so the Kafka output's exactly-once is asserted apart, an expected failure in a run where
that gap shows; what is asserted of it here holds on Tansu too: no update lost, nothing
foreign, and no update written twice by one life (the gap's copies come from a killed
life's open transaction, written again by a later life). Tansu 0.6 can also stop
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
    setup = fi.Setup(kafka_broker, redis_server, postgres_server.create_database(),
                     str(tmp_path_factory.mktemp("fault_injection")), fi.Sizes(),
                     _spark_conf())
    report = fi.run_with_kills(setup, RANDOM_KILLS, random.Random(seed))
    print(f"{len(report.kills)} kills, {report.restarts} restarts, {report.batches} "
          f"micro-batches, {report.seconds:.0f} s (seed {seed})")
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
    assert not diff.duplicated, (f"{sink}: {len(diff.duplicated)} duplicated, e.g. "
                                 f"{diff.duplicated[:5]}\n{kills}")
    assert not diff.foreign, f"{sink}: unexpected {diff.foreign[:5]}\n{kills}"


def test_the_redis_stream_has_each_keys_updates_in_order(run):
    _, actual, _ = run
    assert fi.out_of_order_keys(actual["redis_stream"]) == []


def test_kafka_has_every_update_and_no_copy_but_the_brokers_gap_explains(run):
    """On Tansu: every update there, nothing else, and an update found twice only as
    records of a killed life's aborted transaction written again by a later life."""
    expected, actual, _ = run
    diff = fi.difference(expected["kafka"], fi.without_life(actual["kafka"]))
    assert not diff.foreign, f"unexpected {diff.foreign[:5]}"
    final_life = max(r["life"] for r in actual["kafka"])
    for update, lives in fi.kafka_duplicate_lives(actual["kafka"]).items():
        assert len(set(lives)) == len(lives), f"{update} written twice by one life: {lives}"
        assert final_life not in lives[:-1], f"{update} copied by the last life: {lives}"
    _xfail_if_held_back_by_the_broker(diff.lost, actual)
    assert not diff.lost, f"{len(diff.lost)} lost, e.g. {diff.lost[:5]}"


def test_kafka_holds_exactly_the_uninterrupted_output(run):
    """Exactly the uninterrupted output, unless Tansu's gap shows in this run: then the only
    difference is copies (the test above checks that each comes from a killed life's
    aborted transaction), an expected failure. Whether it shows depends on where the first
    kill lands in the transaction, so a strict xfail failed the suite when it did not."""
    expected, actual, _ = run
    diff = fi.difference(expected["kafka"], fi.without_life(actual["kafka"]))
    assert not diff.foreign, f"unexpected {diff.foreign[:5]}"
    _xfail_if_held_back_by_the_broker(diff.lost, actual)
    if diff.duplicated and not diff.lost and not diff.foreign:
        pytest.xfail("Tansu 0.6 gap: records of aborted transactions reach read_committed "
                     f"consumers ({len(diff.duplicated)} copies)")
    assert diff.exact, diff


def _xfail_if_held_back_by_the_broker(lost, actual) -> None:
    """An expected failure if every update missing from the read_committed output (`lost`)
    is in the log beyond where that read stopped; the lives that wrote those copies are
    named (a copy only in a killed life's aborted transaction would be a real loss that
    this cannot tell apart; the other sinks are checked exactly)."""
    beyond = actual["kafka_beyond"]
    if fi.held_back_by_the_broker(lost, beyond):
        pytest.xfail(f"Tansu 0.6 gap: read_committed stopped short, {len(lost)} updates "
                     f"in the log beyond where it stopped (copies by life: "
                     f"{fi.held_back_lives(lost, beyond)}), e.g. {lost[:3]}")
