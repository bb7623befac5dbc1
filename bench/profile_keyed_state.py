"""Where weir's time goes in the keyed counting job of bench/keyed_state.py.

Runs the weir-datagen job once (after a warm-up) with Spark's event log on, then prints per
micro-batch durations and state-operator metrics from the query's progress, and per Spark
stage the summed task run time (stage 1: source + key-group mapInArrow + shuffle write;
stage 2: shuffle read + transformWithStateInPandas + sink frame):

  .venv/bin/python bench/profile_keyed_state.py --events 400000 --keys 1000000

For Python-level detail, attach py-spy (it follows Spark's Python workers) when it prints
MEASURING, so only the measured run is sampled:

  .venv/bin/python bench/profile_keyed_state.py --attach-wait 5 > /tmp/p.log &
  until grep -q MEASURING /tmp/p.log; do sleep 1; done
  .venv/bin/py-spy record --subprocesses -r 50 -f raw -o /tmp/weir.txt --pid <pid printed>
"""

import argparse
import collections
import glob
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keyed_state as bench  # noqa: E402


def stage_times(event_log_dir, after_ms):
    """{(stage id, stage name): (tasks, summed run ms, summed GC ms)} of jobs after `after_ms`."""
    names, totals = {}, collections.defaultdict(lambda: [0, 0, 0])
    for path in glob.glob(os.path.join(event_log_dir, "**", "*"), recursive=True):
        if not os.path.isfile(path):
            continue
        with open(path) as handle:
            for line in handle:
                event = json.loads(line)
                kind = event.get("Event")
                if kind == "SparkListenerStageSubmitted":
                    info = event["Stage Info"]
                    names[info["Stage ID"]] = info["Stage Name"].split(" at ")[0]
                elif kind == "SparkListenerTaskEnd":
                    info, metrics = event["Task Info"], event.get("Task Metrics") or {}
                    if info["Launch Time"] < after_ms:
                        continue
                    total = totals[event["Stage ID"]]
                    total[0] += 1
                    total[1] += metrics.get("Executor Run Time", 0)
                    total[2] += metrics.get("JVM GC Time", 0)
    return {(sid, names.get(sid, "?")): tuple(t) for sid, t in sorted(totals.items())}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=400_000)
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument(
        "--attach-wait",
        type=float,
        default=0,
        help="seconds to wait after printing MEASURING (to attach a profiler)",
    )
    args = parser.parse_args(argv)
    event_log_dir = tempfile.mkdtemp(prefix="bench-eventlog-")
    spark = bench.make_session(
        {
            "spark.eventLog.enabled": "true",
            "spark.eventLog.dir": event_log_dir,
            "spark.eventLog.compress": "false",
        }
    )
    try:
        final_timer = bench.probe_final_timer(spark)
        bench.run_weir(spark, 20_000, 100, args.batches, final_timer=final_timer)
        print(f"MEASURING pid {os.getpid()}", flush=True)
        time.sleep(args.attach_wait)
        started_ms = int(time.time() * 1000)
        seconds, progress, results = bench.run_weir(
            spark, args.events, args.keys, args.batches, final_timer=final_timer
        )
        bench.check_weir(results, args.events, min(args.keys, args.events), "weir-datagen")
        print(
            f"\nweir-datagen: {args.events:,} events, {args.keys:,} keys: {seconds:.2f} s, "
            f"{args.events / seconds:,.0f} ev/s"
        )
        print(
            "\nbatch  rows     trigger  addBatch  latestOffset  walCommit  commitOffsets  "
            "state: rows  updated  commitMs  memMB  customMetrics"
        )
        for p in progress:
            d, ops = p["durationMs"], p["stateOperators"] or [{}]
            op = ops[0]
            custom = {k: v for k, v in op.get("customMetrics", {}).items() if v}
            print(
                f"{p['batchId']:5d} {p['numInputRows']:7d} {d.get('triggerExecution', 0):8d} "
                f"{d.get('addBatch', 0):9d} {d.get('latestOffset', 0):13d} "
                f"{d.get('walCommit', 0):10d} {d.get('commitOffsets', 0):14d}  "
                f"{op.get('numRowsTotal', 0):11d} {op.get('numRowsUpdated', 0):8d} "
                f"{op.get('commitTimeMs', 0):9d} "
                f"{op.get('memoryUsedBytes', 0) / 2**20:6.1f}  {custom}"
            )
        print("MEASURED", flush=True)
        time.sleep(2)  # let the event log flush
        print("\nstage (tasks): summed task run time, GC")
        for (sid, name), (tasks, run_ms, gc_ms) in stage_times(event_log_dir, started_ms).items():
            print(
                f"  stage {sid:3d} {name[:60]:60s} tasks {tasks:3d}  run {run_ms:7d} ms  "
                f"gc {gc_ms:5d} ms"
            )
    finally:
        spark.stop()
        shutil.rmtree(event_log_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
