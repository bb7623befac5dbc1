"""Async I/O throughput: weir's AsyncDataStream against a loopback service of fixed latency.

Target (from the issue): 1,000 requests in flight against a loopback service of 10 ms
latency give at least 50,000 results/s.

The service runs in its own process (asyncio TCP server on 127.0.0.1, ephemeral port). A
request is the line "<request id> <payload>\\n"; the answer "<request id> <2 * payload>\\n"
is written --latency-ms after the request arrived (rounded up to the next --bucket-ms
tick: requests are bucketed by due time, each bucket answered by one timer and one write
per connection). At its end the service reports what it answered and how late its
timers fired.

The client, `Lookup` (an AsyncFunction), keeps --connections persistent connections,
opened lazily on the loop that runs async_invoke, and multiplexes requests over them by
request id (one future per request; each connection's protocol reads the answers and
resolves the futures; writes of one loop iteration go out as one write per connection).

Measured in one process, against the same service, over the same N records
(record i = (i, i % 1000), result = (i, 2 * (i % 1000))), in this order:
  ceiling    the bare client: plain asyncio, --capacity coroutines each awaiting
             Lookup.async_invoke on the next record (no weir) -- this machine's ceiling
  operator   weir's async operator alone (runtime AsyncWaitStep, unordered) over the
             records in chunks of 20,000 as the engine hands them over, without the engine
  unordered  a weir job: from_source(DataGeneratorSource) at parallelism 1 ->
             AsyncDataStream.unordered_wait(Lookup, 30 s, capacity) -> sink
  ordered    the same job with ordered_wait
The jobs run as a streaming job runs: 1,000,000 records by default, in micro-batches of
200,000. They are timed around env.execute and include the engine's planning, start
(~0.6 s here, of which ~0.3 s is Spark starting the source's driver-side Python process)
and per-micro-batch overheads (a job of 1 record shows the fixed cost of a job; it is
printed, not subtracted; in a single micro-batch of 200,000 records it weighed ~20%); they
run after a small warm-up job in the same process, so Spark's session start and the
Python workers' first start are not counted (both are printed as such). Each kind runs
--repeat times, taking turns; the medians are reported, with the client's CPU time per
record where the client runs in this process (not for Spark jobs: their Python worker).
The service reports the latency it actually gave (its ticks and timer lateness add to
--latency-ms), hence the bound --capacity / latency, and the connections it accepted
(a Spark worker process opens the function once per subtask and keeps it for later
micro-batches).
Every result is checked: each record answered exactly once, each answer right, and
ordered output in input order (exit status 1 on any mismatch).

  .venv/bin/python bench/async_io.py --records 20000            # smoke run
  .venv/bin/python bench/async_io.py                            # full size
  .venv/bin/python bench/async_io.py --executor local           # weir's in-process runner
"""

import argparse
import asyncio
import math
import multiprocessing
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)  # PYTHONPATH wins
sys.path.append(os.path.join(ROOT, "bench"))

from weir.common import Time, WatermarkStrategy  # noqa: E402
from weir.datastream import AsyncDataStream, AsyncFunction  # noqa: E402
from weir.datastream import StreamExecutionEnvironment  # noqa: E402
from weir.datastream.connectors import DataGeneratorSource  # noqa: E402

LOOPBACK = "127.0.0.1"
TARGET = 50_000  # results/s
CHUNK = 100_000  # records per call of the operator (weir.runtime.wire.MAX_BUNDLE_RECORDS)


# -- the service (its own process) ------------------------------------------------------
class Service:
    """Answers each request line after `latency` seconds, by buckets of due time."""

    def __init__(self, loop, latency, bucket):
        self.loop, self.latency, self.bucket = loop, latency, bucket
        self.buckets = {}  # tick -> {transport: [request lines]}
        self.arrivals = {}  # tick -> sum of its requests' arrival times
        self.answered, self.late_max, self.late_sum, self.flushes = 0, 0.0, 0.0, 0
        self.latency_sum = 0.0  # of every answered request: answer time - arrival time
        self.connections = 0

    def enqueue(self, transport, lines):
        now = self.loop.time()
        tick = math.ceil((now + self.latency) / self.bucket)
        due = self.buckets.get(tick)
        if due is None:
            due = self.buckets[tick] = {}
            self.arrivals[tick] = 0.0
            self.loop.call_at(tick * self.bucket, self.flush, tick)
        self.arrivals[tick] += now * len(lines)
        queued = due.get(transport)
        if queued is None:
            due[transport] = lines
        else:
            queued += lines

    def flush(self, tick):
        now = self.loop.time()
        late = now - tick * self.bucket
        self.late_max, self.late_sum = max(self.late_max, late), self.late_sum + late
        self.flushes += 1
        count = 0
        for transport, lines in self.buckets.pop(tick).items():
            if not transport.is_closing():
                transport.write(b"".join(answers(lines)))
            count += len(lines)
        self.answered += count
        self.latency_sum += now * count - self.arrivals.pop(tick)


def answers(lines):
    for line in lines:
        request_id, payload = line.split(b" ", 1)
        yield b"%s %d\n" % (request_id, 2 * int(payload))


class ServiceProtocol(asyncio.Protocol):
    def __init__(self, service):
        self.service, self.rest, self.transport = service, b"", None

    def connection_made(self, transport):
        self.transport = transport
        self.service.connections += 1

    def data_received(self, data):
        lines = (self.rest + data).split(b"\n") if self.rest else data.split(b"\n")
        self.rest = lines.pop()
        if lines:
            self.service.enqueue(self.transport, lines)


async def serve(control, latency, bucket):
    loop = asyncio.get_running_loop()
    service = Service(loop, latency, bucket)
    server = await loop.create_server(lambda: ServiceProtocol(service), LOOPBACK, 0, backlog=1024)
    stop = loop.create_future()
    loop.add_reader(control.fileno(), lambda: stop.done() or stop.set_result(None))
    control.send(server.sockets[0].getsockname()[1])
    await stop
    server.close()
    answered, flushes = max(1, service.answered), max(1, service.flushes)
    control.send(
        {
            "answered": service.answered,
            "cpu_s": time.process_time(),
            "connections": service.connections,
            "latency_ms": service.latency_sum * 1000 / answered,
            "late_mean_ms": service.late_sum * 1000 / flushes,
            "late_max_ms": service.late_max * 1000,
        }
    )


def service_main(control, latency, bucket):
    asyncio.run(serve(control, latency, bucket))


def start_service(latency_ms, bucket_ms):
    """(process, control pipe, port) of a new service process."""
    here, there = multiprocessing.get_context("spawn").Pipe()
    process = multiprocessing.get_context("spawn").Process(
        target=service_main, args=(there, latency_ms / 1000, bucket_ms / 1000), daemon=True
    )
    process.start()
    deadline = time.monotonic() + 60
    while not here.poll(0.1):
        if not process.is_alive() or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("the loopback service did not start")
    return process, here, here.recv()


def stop_service(process, control):
    """Stops the service; returns its figures (or None)."""
    control.send("stop")
    figures = control.recv() if control.poll(10) else None
    process.join(5)
    if process.is_alive():
        process.kill()
    return figures


# -- the client ---------------------------------------------------------------------------
class Connection(asyncio.Protocol):
    """One connection: requests by id, one future each; writes coalesced per iteration."""

    def __init__(self, loop):
        self.loop, self.pending, self.next_id = loop, {}, 0
        self.rest, self.out, self.transport = b"", [], None

    def connection_made(self, transport):
        self.transport = transport

    def request(self, payload):
        request_id = self.next_id
        self.next_id += 1
        future = self.pending[request_id] = self.loop.create_future()
        if not self.out:
            self.loop.call_soon(self.flush)
        self.out.append(b"%d %d\n" % (request_id, payload))
        return future

    def flush(self):
        out, self.out = self.out, []
        if not self.transport.is_closing():
            self.transport.write(b"".join(out))

    def data_received(self, data):
        lines = (self.rest + data).split(b"\n") if self.rest else data.split(b"\n")
        self.rest = lines.pop()
        pop = self.pending.pop
        for line in lines:
            request_id, answer = line.split(b" ", 1)
            future = pop(int(request_id), None)
            if future is not None and not future.done():
                future.set_result(int(answer))

    def connection_lost(self, exc):
        pending, self.pending = self.pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(ConnectionError(f"service connection lost: {exc}"))


class Lookup(AsyncFunction):
    """(i, payload) -> [(i, answer)] from the service: a pool of persistent connections,
    opened on first use on the running loop (open() does not run on it)."""

    def __init__(self, port, connections=8, host=LOOPBACK):
        self.host, self.port, self.connections = host, port, connections
        self._loop = self._pool = self._opening = None
        self._turn = 0

    def __getstate__(self):  # shipped without any connection
        return {"host": self.host, "port": self.port, "connections": self.connections}

    def __setstate__(self, state):
        self.__init__(state["port"], state["connections"], state["host"])

    async def async_invoke(self, value):
        record_id, payload = value
        pool = self._pool
        if pool is None or self._loop is not asyncio.get_running_loop():
            pool = await self._connect()
        self._turn += 1
        return [(record_id, await pool[self._turn % len(pool)].request(payload))]

    async def _connect(self):
        loop = asyncio.get_running_loop()
        if self._opening is None or self._loop is not loop:
            self._loop, self._pool = loop, None
            self._opening = loop.create_task(self._open_all(loop))
        return await asyncio.shield(self._opening)

    async def _open_all(self, loop):
        opened = await asyncio.gather(
            *(
                loop.create_connection(lambda: Connection(loop), self.host, self.port)
                for _ in range(self.connections)
            )
        )
        self._pool = [protocol for _, protocol in opened]
        return self._pool

    def close(self):
        """Closes the connections. close() is not called on the loop, so it runs the
        loop once (it is stopped by then) for the transports to close their sockets."""
        loop, pool = self._loop, self._pool or []
        self._loop = self._pool = self._opening = None
        for connection in pool:
            connection.transport.close()
        if pool and not loop.is_closed() and not loop.is_running():
            loop.run_until_complete(asyncio.sleep(0))


# -- records and checks -------------------------------------------------------------------
def record(i):
    return i, i % 1000


class Tally:
    """Counts results and checks them: each record once, the right answer, the order."""

    def __init__(self, records):
        self.seen = bytearray(records)
        self.count = self.wrong = self.duplicates = self.out_of_order = 0
        self.last = -1

    def add(self, result, ctx=None):
        record_id, answer = result
        self.count += 1
        if self.seen[record_id]:
            self.duplicates += 1
        self.seen[record_id] = 1
        if answer != 2 * (record_id % 1000):
            self.wrong += 1
        if record_id < self.last:
            self.out_of_order += 1
        self.last = record_id

    def problems(self, ordered):
        missing = len(self.seen) - sum(self.seen)
        found = [
            f"{n:,} {what}"
            for n, what in (
                (missing, "records without a result"),
                (self.duplicates, "duplicate results"),
                (self.wrong, "wrong answers"),
                (self.out_of_order if ordered else 0, "results out of input order"),
            )
            if n
        ]
        return found


# -- the runs -----------------------------------------------------------------------------
def run_ceiling(port, args):
    """The bare client: --capacity coroutines over one iterator of records."""
    lookup, tally = Lookup(port, args.connections), Tally(args.records)
    pending = iter(range(args.records))

    async def worker():
        for i in pending:
            for result in await lookup.async_invoke(record(i)):
                tally.add(result)

    async def drive():
        await asyncio.gather(*(worker() for _ in range(args.capacity)))

    loop = asyncio.new_event_loop()
    try:
        started = time.perf_counter()
        loop.run_until_complete(drive())
        seconds = time.perf_counter() - started
    finally:
        lookup.close()
        loop.close()
    return seconds, tally


def run_operator(port, args):
    """weir's async operator (AsyncWaitStep, unordered) alone, over chunks of records."""
    from weir.datastream.async_retry_strategies import NO_RETRY_STRATEGY
    from weir.runtime.async_io import UNORDERED, AsyncWaitSpec, AsyncWaitStep
    from weir.runtime.context import RuntimeContext

    spec = AsyncWaitSpec(
        Lookup(port, args.connections), 30_000, args.capacity, NO_RETRY_STRATEGY, UNORDERED
    )
    step, tally = AsyncWaitStep(spec, "async"), Tally(args.records)
    started = time.perf_counter()
    step.open(RuntimeContext("async", None, 0, 1))
    try:
        for lo in range(0, args.records, CHUNK):
            values = [record(i) for i in range(lo, min(args.records, lo + CHUNK))]
            for result in step.run(values, [None] * len(values), [])[0]:
                tally.add(result)
    finally:
        step.close()
    return time.perf_counter() - started, tally


def run_job(port, args, records, mode, spark=None):
    """A weir job: datagen -> ordered/unordered wait -> a checking sink."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    if args.executor == "local":
        env.set_executor("local")
    else:
        env.set_spark_session(spark)
    tally = Tally(records)
    source = DataGeneratorSource(
        record, count=records, max_records_per_batch=args.records_per_batch
    )
    stream = env.from_source(source, WatermarkStrategy.no_watermarks(), "records")
    wait = AsyncDataStream.ordered_wait if mode == "ordered" else AsyncDataStream.unordered_wait
    wait(stream, Lookup(port, args.connections), Time.seconds(30), capacity=args.capacity).add_sink(
        tally.add
    )
    started = time.perf_counter()
    env.execute(f"bench-async-{mode}")
    return time.perf_counter() - started, tally


def make_spark():
    from keyed_state import make_session

    started = time.perf_counter()
    spark = make_session()
    return spark, time.perf_counter() - started


# -- driver -------------------------------------------------------------------------------
RUNS = ("ceiling", "operator", "unordered", "ordered")


def runner(name, args, port, spark):
    if name == "ceiling":
        return lambda: run_ceiling(port, args)
    if name == "operator":
        return lambda: run_operator(port, args)
    return lambda: run_job(port, args, args.records, name, spark)


def measure(args, port, spark):
    """{name: (median seconds, problems)} of the runs (taking turns, --repeat times each),
    after the warm-up job."""
    warm_s, warm = run_job(port, args, args.warmup_records, "unordered", spark)
    print(
        f"  warm-up job ({args.warmup_records:,} records, not counted): {warm_s:.2f} s", flush=True
    )
    fixed_s, fixed = run_job(port, args, 1, "unordered", spark)
    print(
        f"  job of 1 record (the engine's fixed cost of a job, which the job figures "
        f"include): {fixed_s:.2f} s",
        flush=True,
    )
    times, problems = (
        {name: [] for name in RUNS},
        {"warm-up": warm.problems(False), "1-record job": fixed.problems(False)},
    )
    cpu = {name: [] for name in RUNS}
    for _ in range(args.repeat):
        for name in RUNS:
            cpu_started = time.process_time()
            seconds, tally = runner(name, args, port, spark)()
            times[name].append(seconds)
            cpu[name].append(time.process_time() - cpu_started)
            problems[name] = problems.get(name, []) + tally.problems(name == "ordered")
            print(
                f"  {name:9s} {seconds:7.2f} s  {args.records / seconds:>10,.0f} results/s"
                f"  {'OK' if not problems[name] else 'MISMATCH'}",
                flush=True,
            )
    median = {name: (statistics.median(times[name]), statistics.median(cpu[name])) for name in RUNS}
    return median, problems


def print_service(service, args):
    print(
        f"service: {service['answered']:,} requests answered over "
        f"{service['connections']} connections (all runs), after "
        f"{service['latency_ms']:.2f} ms on average (its timers late by "
        f"{service['late_mean_ms']:.2f} ms on average, {service['late_max_ms']:.1f} ms at "
        f"most), {service['cpu_s']:.1f} s of CPU;\n  {args.capacity:,} in flight at that "
        f"latency: {args.capacity * 1000 / service['latency_ms']:,.0f} results/s at most"
    )


def report(seconds, problems, args, service):
    rate = {name: args.records / seconds[name][0] for name in RUNS}
    batches = (
        f"{args.records_per_batch:,} records per micro-batch"
        if args.records_per_batch
        else "one micro-batch"
    )
    print(
        f"\nresults/s, {args.records:,} records ({batches}), {args.capacity:,} in flight "
        f"over {args.connections} connections,\nservice latency {args.latency_ms:g} ms "
        f"(ticks of {args.bucket_ms:g} ms), executor {args.executor}, parallelism 1"
        + (f", median of {args.repeat} runs" if args.repeat > 1 else "")
    )
    for name in RUNS:
        in_process = name in ("ceiling", "operator") or args.executor == "local"
        cpu = (
            f"{seconds[name][1] * 1e6 / args.records:5.1f} us"
            if in_process
            else "(in Spark's Python worker)"
        )
        print(
            f"  {name:9s} {rate[name]:>10,.0f}  ({rate[name] / rate['ceiling']:.2f} of "
            f"the ceiling)  client CPU per record {cpu}"
        )
    if service:
        print_service(service, args)
    weakest = min(rate["unordered"], rate["ordered"])
    print(
        f"target {TARGET:,} results/s for the weir job: "
        f"{'met' if weakest >= TARGET else 'NOT met'} (unordered "
        f"{rate['unordered']:,.0f}, ordered {rate['ordered']:,.0f}; steady state: "
        "after a warm-up job in the same process)"
    )
    for name, found in problems.items():
        for problem in found:
            print(f"MISMATCH {name}: {problem}")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--capacity", type=int, default=1000, help="requests in flight")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--latency-ms", type=float, default=10)
    parser.add_argument(
        "--bucket-ms",
        type=float,
        default=1,
        help="answers are due on ticks of this width (rounded up)",
    )
    parser.add_argument(
        "--records-per-batch",
        type=int,
        default=200_000,
        help="the source's micro-batch size (0: one micro-batch)",
    )
    parser.add_argument("--warmup-records", type=int, default=5_000)
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs of each kind, taking turns; medians are reported",
    )
    parser.add_argument("--executor", choices=("spark", "local"), default="spark")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    process, control, port = start_service(args.latency_ms, args.bucket_ms)
    spark, service = None, None
    try:
        if args.executor == "spark":
            spark, session_s = make_spark()
            print(f"  Spark session start (local[2], not counted): {session_s:.2f} s", flush=True)
        seconds, problems = measure(args, port, spark)
    finally:
        service = stop_service(process, control)
        if spark is not None:
            spark.stop()
    report(seconds, problems, args, service)
    return 1 if any(problems.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
