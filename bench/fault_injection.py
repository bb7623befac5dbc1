"""Fault injection at scale: the job of tests/e2e/test_fault_injection.py (Kafka and files
in; Kafka, files, PostgreSQL, a Redis stream and Redis hashes out) SIGKILLed once inside an
open Kafka transaction and then `--kills` times at random moments, restarted on the same
checkpoint each time, and run to its end; prints the kills, restarts, run time, and per
sink its records, losses and duplicates against a model of the job (all should be 0).

The broker is Tansu, which shows records of aborted transactions to read_committed
consumers: Kafka's duplicates are counted apart and attributed to that gap when their
copies come from distinct lives (see the test). The input grows with --kills (two files
per life, and as many Kafka records, a share of them produced while each life runs), so
the kills land while the job has work, and it cannot end before the last life.

  .venv/bin/python bench/fault_injection.py --kills 20 --seed 7
  .venv/bin/python bench/fault_injection.py                    # 100 kills
  .venv/bin/python bench/fault_injection.py --kills 0 --reference   # the model, checked
"""

import argparse
import collections
import os
import random
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)  # PYTHONPATH wins

from tests.e2e import fault_injection_common as fi  # noqa: E402
from tests.servers.kafka import Broker  # noqa: E402
from tests.servers.postgres import Postgres  # noqa: E402
from tests.servers.redis import RedisServer  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=100, help="random kills (default 100)")
    parser.add_argument("--seed", type=int, default=None, help="default: a random one")
    parser.add_argument(
        "--reference",
        action="store_true",
        help="first run the job once without kills and check the model",
    )
    parser.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting for the job (repeatable)",
    )
    return parser.parse_args()


class Servers:
    """A Tansu broker, a Redis server and a PostgreSQL cluster of this run's own."""

    def __init__(self, directory: str):
        self.broker = Broker(os.path.join(directory, "broker.log"))
        self.redis = RedisServer(directory)
        self.postgres = Postgres()

    def setup(self, directory: str, sizes: fi.Sizes, spark_conf: dict) -> fi.Setup:
        os.makedirs(directory)
        return fi.Setup(
            self.broker, self.redis, self.postgres.create_database(), directory, sizes, spark_conf
        )

    def stop(self) -> None:
        for server in (self.broker, self.redis, self.postgres):
            server.stop()


def print_sinks(expected: dict, actual: dict) -> bool:
    """Per sink: records, expected, lost, duplicated, foreign; True if all are exact but
    for Kafka duplicates of the broker's gap."""
    differences = fi.compare(expected, actual)
    print(f"{'sink':<14}{'records':>9}{'expected':>10}{'lost':>7}{'duplicated':>12}{'foreign':>9}")
    for sink, diff in differences.items():
        print(
            f"{sink:<14}{diff.records:>9}{len(expected[sink]):>10}{len(diff.lost):>7}"
            f"{len(diff.duplicated):>12}{len(diff.foreign):>9}"
        )
    explained = print_kafka_duplicates(actual["kafka"])
    return all(
        diff.exact or (sink == "kafka" and not diff.lost and not diff.foreign and explained)
        for sink, diff in differences.items()
    )


def print_kafka_duplicates(records: list) -> bool:
    """Kafka's duplicated updates by the lives that wrote their copies; True if every
    one is of the broker's gap's shape (copies from distinct lives)."""
    duplicates = fi.kafka_duplicate_lives(records)
    if not duplicates:
        return True
    by_lives = collections.Counter(tuple(lives) for lives in duplicates.values())
    shown = ", ".join(f"{n} by lives {list(lives)}" for lives, n in sorted(by_lives.items()))
    print(f"kafka duplicates (Tansu shows aborted transactions): {shown}")
    return all(len(set(lives)) == len(lives) for lives in duplicates.values())


def reference(servers: Servers, directory: str, sizes: fi.Sizes, spark_conf: dict) -> bool:
    setup = servers.setup(directory, sizes, spark_conf)
    report = fi.run_uninterrupted(setup)
    expected = fi.expected_sinks(sizes)
    print(
        f"reference run (no kills): {report.seconds:.0f} s, {report.batches} "
        f"micro-batches; against the model:"
    )
    return print_sinks(expected, fi.read_sinks(setup, expected))


def with_kills(servers: Servers, directory: str, args, spark_conf: dict) -> bool:
    sizes = fi.Sizes.for_kills(args.kills)
    setup = servers.setup(directory, sizes, spark_conf)
    print(
        f"seed {args.seed}; input: {sizes.kafka_events} Kafka records, {sizes.files} "
        f"files of {sizes.events_per_file}",
        flush=True,
    )
    report = fi.run_with_kills(
        setup, args.kills, random.Random(args.seed), log=lambda line: print(line, flush=True)
    )
    kinds = collections.Counter(k.kind for k in report.kills)
    in_flight = sum(k.in_flight is not None for k in report.kills)
    print(
        f"kills: {len(report.kills)} ({', '.join(f'{n} {k}' for k, n in kinds.items())}; "
        f"{in_flight} with a micro-batch in flight); restarts: {report.restarts}; "
        f"micro-batches: {report.batches}; total run time: {report.seconds:.0f} s"
    )
    expected = fi.expected_sinks(sizes)
    return print_sinks(expected, fi.read_sinks(setup, expected))


def main() -> int:
    args = parse_args()
    args.seed = random.randrange(2**32) if args.seed is None else args.seed
    spark_conf = dict(setting.split("=", 1) for setting in args.spark_conf)
    directory = tempfile.mkdtemp(prefix="weir-fault-injection-")
    servers = Servers(directory)
    try:
        ok = not args.reference or reference(
            servers, os.path.join(directory, "reference"), fi.Sizes(), spark_conf
        )
        if args.kills:
            ok = with_kills(servers, os.path.join(directory, "kills"), args, spark_conf) and ok
    finally:
        servers.stop()
    print("exact" if ok else "NOT EXACT (see above)")
    if ok:
        shutil.rmtree(directory, ignore_errors=True)
    else:
        print(f"kept for inspection: {directory}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
