"""Nexmark's Flink SQL queries on weir, beside native Spark SQL and (optionally) PyFlink
2.3 SQL, over the same generated events (tests/nexmark: the generator, the queries).

Each query reads the JSON files of people, auctions and bids and writes to a sink that
discards rows (weir and PyFlink: the `blackhole` connector; Spark: the `noop` format);
its time runs from declaring its tables (weir's and PyFlink's `CREATE TABLE`, Spark's
readers, which list the files where the DDL does not) to the query's end. weir and
native Spark SQL run each query in a process of their own, as a program of that query
would, after an untimed run of it over a few events (the JVM's start and first
compiles): weir in its embedded session as it ships (the JVM's compilers are the first
job's choice, both for a lowered query, C1 only otherwise), native Spark SQL in a
session of bench/engines.py's settings with Spark's default compilers; --repeat times
each (the table shows the median), --rounds runs a weir process and a native one in
turn that many times (the ratio is the median of each round's). Native
Spark SQL runs the queries whose SQL Spark reads as it is (as a batch job over the
files: Spark's streaming SQL cannot run them), the others show "-". PyFlink
runs with `--pyflink PYTHON` (an interpreter with apache-flink 2.3; not a dependency of
weir), each query in one process. weir and PyFlink run with the table settings of
Nexmark's own Flink configuration (mini-batch: a group aggregation changes a key once
per bundle), or with `--configuration flink-defaults` Flink's defaults (row by row).

  .venv/bin/python bench/nexmark.py --events 20000              # smoke run
  .venv/bin/python bench/nexmark.py --pyflink /tmp/pyflink/venv/bin/python
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)

import engines  # noqa: E402 (bench/engines.py)
from tests.nexmark.generator import write_events  # noqa: E402
from tests.nexmark.queries import QUERIES, TABLES, ddl  # noqa: E402

DEFAULT = [
    "q0",
    "q1",
    "q2",
    "q3",
    "q4",
    "q5",
    "q7",
    "q8",
    "q9",
    "q10",
    "q11",
    "q14",
    "q15",
    "q16",
    "q17",
    "q18",
    "q19",
    "q20",
    "q21",
    "q22",
    "q23",
]  # (all weir runs)
SPARK_AS_IS = {"q0", "q1", "q2", "q3", "q10", "q15", "q17", "q20", "q21"}
# The table settings of Nexmark's own Flink configuration (nexmark-flink's conf/config.yaml)
# or Flink's defaults, on weir and PyFlink alike (--configuration)
CONFIGURATIONS = {
    "nexmark": {
        "table.exec.mini-batch.enabled": "true",
        "table.exec.mini-batch.allow-latency": "2s",
        "table.exec.mini-batch.size": "50000",
        "table.optimizer.distinct-agg.split.enabled": "true",
    },
    "flink-defaults": {},
}

PYFLINK_RUNNER = """
import json, sys, time
from pyflink.table import EnvironmentSettings, TableEnvironment
sys.path.insert(0, sys.argv[1])
from queries import QUERIES, ddl
directory, name = sys.argv[2], sys.argv[3]
t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "2")
for key, value in json.loads(sys.argv[4]).items():
    t_env.get_config().set(key, value)
from pyflink.table import DataTypes
from pyflink.table.udf import udf
t_env.create_temporary_function("count_char", udf(  # (q14's function, in Python)
    lambda text, char: text.count(char), result_type=DataTypes.BIGINT()))
start = time.time()
for table in ("person", "auction", "bid"):
    t_env.execute_sql(ddl(table, directory))
t_env.execute_sql("CREATE TABLE sink WITH ('connector' = 'blackhole') AS "
                  + QUERIES[name]).wait()
print(json.dumps({"seconds": time.time() - start}))
"""


def run_weir(directory, name, settings):
    from weir.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "2")
    for key, value in settings.items():
        t_env.get_config().set(key, value)
    from tests.nexmark.run_queries import count_char  # (q14's function)

    t_env.create_temporary_function("count_char", count_char)
    start = time.time()
    for table in TABLES:
        t_env.execute_sql(ddl(table, directory))
    table = t_env.sql_query(QUERIES[name])
    columns = ", ".join(f"`c{i}` {c.data_type}" for i, c in enumerate(table._node.columns))
    t_env.execute_sql(f"CREATE TABLE sink ({columns}) WITH ('connector' = 'blackhole')")
    table.execute_insert("sink").wait()
    return time.time() - start


def in_process(side, directory, warm, name, repeat, settings=None):
    """The times of `repeat` runs of query `name` on `side` ("weir" or "native") in a
    process of its own (as a program of that one query), after a run over `warm`'s few
    events (its JVM's start, untimed)."""
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            f"--{side}-query",
            name,
            directory,
            warm,
            str(repeat),
            json.dumps(settings or {}),
        ],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{side}'s {name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _weir_query(name, directory, warm, repeat, settings):
    settings = json.loads(settings)
    run_weir(warm, name, settings)
    print(json.dumps([run_weir(directory, name, settings) for _ in range(int(repeat))]))


def _native_query(name, directory, warm, repeat, _settings):
    from keyed_state import make_session  # (bench/engines.py's sessions)

    spark = make_session(engines.NATIVE_CONF)
    try:
        run_native(spark, warm, name)
        print(json.dumps([run_native(spark, directory, name) for _ in range(int(repeat))]))
    finally:
        spark.stop()


def run_native(spark, directory, name):
    start = time.time()
    for table in TABLES:
        schema = (
            TABLES[table]
            .replace("`", "")
            .replace("VARCHAR", "STRING")
            .replace("TIMESTAMP(3)", "TIMESTAMP")
        )
        spark.read.schema(schema).json(
            os.path.join(directory, f"{table}.json")
        ).createOrReplaceTempView(table)
    spark.sql(QUERIES[name]).write.format("noop").mode("overwrite").save()
    return time.time() - start


def run_pyflink(python, directory, name, settings):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(PYFLINK_RUNNER)
    env = dict(os.environ, PATH=os.path.dirname(python) + os.pathsep + os.environ["PATH"])
    done = subprocess.run(
        [
            python,
            script.name,
            os.path.join(ROOT, "tests", "nexmark"),
            directory,
            name,
            json.dumps(settings),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    os.unlink(script.name)
    if done.returncode != 0:
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])["seconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--queries", nargs="*", default=DEFAULT)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="weir's and native's "
        "processes in turn this many times; weir/native is the median of "
        "each round's ratio (the machine's speed drifts between processes)",
    )
    parser.add_argument("--pyflink", help="a Python interpreter with apache-flink 2.3")
    parser.add_argument(
        "--configuration",
        choices=sorted(CONFIGURATIONS),
        default="nexmark",
        help="table settings on weir and PyFlink: "
        "Nexmark's own (mini-batch; the default) or Flink's defaults",
    )
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="nexmark-")
    started = time.time()
    write_events(directory, args.events)
    print(f"{args.events:,} events written in {time.time() - started:.1f} s", flush=True)
    warm = tempfile.mkdtemp(prefix="nexmark-warm-")  # Spark's and weir's start, untimed
    write_events(warm, 1000)
    _print_table(args, _run_all(args, directory, warm))


def _run_all(args, directory, warm):
    rows = []
    for name in args.queries:
        settings = CONFIGURATIONS[args.configuration]
        weir, native, ratios = [], [], []
        for _ in range(args.rounds):  # (a weir process, then a native one, in turn)
            weir.append(
                statistics.median(in_process("weir", directory, warm, name, args.repeat, settings))
            )
            if name in SPARK_AS_IS:
                native.append(
                    statistics.median(in_process("native", directory, warm, name, args.repeat))
                )
                ratios.append(native[-1] / weir[-1])
        pyflink = run_pyflink(args.pyflink, directory, name, settings) if args.pyflink else None
        rows.append(
            (
                name,
                statistics.median(weir),
                statistics.median(native) if native else None,
                pyflink,
                statistics.median(ratios) if ratios else None,
            )
        )
        print(name, weir, native, pyflink, [round(r, 3) for r in ratios], flush=True)
    return rows


def _print_table(args, rows):
    rate = lambda s: "-" if s is None else f"{args.events / s:,.0f}"  # noqa: E731
    ratio = lambda a, b: "-" if a is None or b is None else f"{b / a:.3f}"  # noqa: E731
    print(
        f"\n{args.events:,} events, {args.configuration} configuration; events/s (higher "
        "is better); ratios weir/peer"
        + (f"; weir/native: the median of {args.rounds} rounds' ratios" if args.rounds > 1 else "")
        + "\n"
    )
    print("| query | weir | native Spark SQL | PyFlink SQL | weir/native | weir/PyFlink |")
    print("|---|---|---|---|---|---|")
    for name, weir, native, pyflink, paired in rows:
        native_ratio = "-" if paired is None else f"{paired:.3f}"
        print(
            f"| {name} | {rate(weir)} | {rate(native)} | {rate(pyflink)} | "
            f"{native_ratio} | {ratio(weir, pyflink)} |"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--weir-query"]:
        _weir_query(*sys.argv[2:])
    elif sys.argv[1:2] == ["--native-query"]:
        _native_query(*sys.argv[2:])
    else:
        main()
