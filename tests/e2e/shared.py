"""Pieces several end-to-end test modules use: a checkpointed environment on the shared
Spark session, a keyed running count, reading finished JSON-lines part files, and waiting
for an event with a deadline that fails the test (never a sleep as the proof)."""

import json
import os
import threading
import time

from weir.common import Types
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from weir.datastream.state import ValueStateDescriptor


def checkpointed_env(spark, checkpoint, interval_ms: int = 200):
    """An environment on `spark` (parallelism 2) checkpointing to `checkpoint`."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    env.enable_checkpointing(interval_ms)
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(checkpoint))
    return env


class RunningCount(KeyedProcessFunction):
    """(key, index, count so far) per record, and (key, -1, final count) at the end."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.INT()))

    def process_element(self, value, ctx):
        count = (self.count.value() or 0) + 1
        self.count.update(count)
        if count == 1:
            ctx.timer_service().register_event_time_timer(10**12)
        yield value[0], value[1], count

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), -1, self.count.value()


def read_part_files(directory: str) -> list:
    """The records of the finished JSON-lines part files in `directory`, in name order
    (in-progress files are hidden, so not read)."""
    records = []
    for name in sorted(os.listdir(directory)):
        if name.startswith("part-"):
            with open(os.path.join(directory, name)) as handle:
                records += [json.loads(line) for line in handle]
    return records


def wait_until(condition, what: str, timeout: float = 240, state=None, interval: float = 0.2):
    """Polls `condition()` every `interval` seconds until it is true, and returns its value;
    raises AssertionError naming `what` (and `state()`, the last state observed, if given)
    once `timeout` seconds have passed without it."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            seen = "" if state is None else f"; last observed: {state()!r}"
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}{seen}")
        time.sleep(interval)


def wait_until_at_rest(query, what: str, timeout: float = 120) -> None:
    """Waits until Spark's streaming `query` has processed and committed everything its
    sources have, and a trigger after that found nothing new to run, no micro-batch for a
    watermark nor for a due processing-time timer either (Spark's processAllAvailable,
    given a deadline): then without new input (and with no processing-time timer pending)
    no micro-batch follows, so a sink has all it will ever get. Raises AssertionError
    naming `what` after `timeout` seconds."""
    outcome = []

    def process_all_available():
        try:
            query.processAllAvailable()
            outcome.append(None)
        except BaseException as error:  # noqa: BLE001 (raised in the test's thread)
            outcome.append(error)

    waiter = threading.Thread(target=process_all_available, daemon=True, name="wait-until-at-rest")
    waiter.start()
    waiter.join(timeout)
    if not outcome:  # (the thread ends once the test stops the query)
        raise AssertionError(
            f"timed out after {timeout:g} s waiting for {what}: the query "
            f"still runs micro-batches ({query.status})"
        )
    if outcome[0] is not None:
        raise outcome[0]
