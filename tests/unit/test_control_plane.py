"""The control plane (weir.control.plane) on a driven clock: what micro-batches report in,
what the next micro-batch needs out, with no executor."""

import pickle

from weir.common import Duration, WatermarkStrategy
from weir.control.plane import ControlPlane
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from weir.plan.physical import compile_plan
from weir.runtime.wire import REPORT_SEPARATOR, Channel, Control, DueTimer


class Echo(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield value

    def on_timer(self, timestamp, ctx):
        yield timestamp


class Clock:
    def __init__(self, now_ms=0):
        self.now_ms = now_ms

    def __call__(self):
        return self.now_ms


def _plan(build):
    env = StreamExecutionEnvironment.get_execution_environment()
    build(env)
    return compile_plan(env._graph.upstream_of(env._graph.sinks()), env)


def _two_groups(env, idleness_ms=None):
    """Sources a (10 ms out of order: a delay of 11 ms) and b (100 ms: 101 ms, idle after
    `idleness_ms`); a keyed into an operator of its own, both into another."""
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(10))
    slow = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(100))
    if idleness_ms is not None:
        slow = slow.with_idleness(Duration.of_millis(idleness_ms))
    a = env.from_collection([1]).assign_timestamps_and_watermarks(strategy)
    b = env.from_collection([2]).assign_timestamps_and_watermarks(slow)
    a.key_by(lambda x: x).process(Echo()).uid("a-only").print()
    a.union(b).key_by(lambda x: x).process(Echo()).uid("both").print()


def _report(control: str, timestamp: int) -> bytes:
    return f"{control}{REPORT_SEPARATOR}{timestamp}".encode()


def _group_of(plan, source_index: int) -> int:
    uid = plan.sources[source_index].uid
    return next(i for i, group in enumerate(plan.watermark_groups) if uid in group.sources)


def test_the_job_watermark_is_the_least_group_watermark_and_never_goes_back():
    plan = _plan(_two_groups)
    control = ControlPlane(plan, Clock())
    a, b = _group_of(plan, 0), _group_of(plan, 1)
    assert control.job_watermark() == 0  # no timestamp yet
    control.see(a, Control.SEEN, 1000)
    assert control.job_watermark() == 989  # b has no timestamp: it does not count
    control.see(b, Control.SEEN, 700)
    assert control.job_watermark() == 989  # b's 599 is behind: the watermark stays
    control.see(b, Control.SEEN, 1200)
    assert control.job_watermark() == 989  # a's holds it
    control.see(a, Control.SEEN, 1500)
    assert control.job_watermark() == 1099  # b's 1200 - 101


def test_an_operator_some_group_does_not_reach_follows_its_own_groups():
    plan = _plan(_two_groups)
    control = ControlPlane(plan, Clock())
    a, b = _group_of(plan, 0), _group_of(plan, 1)
    control.observe(Channel.WATERMARK, b, _report(Control.SEEN, 300))
    assert control.advance_own_watermarks() == {}  # a has no timestamp yet
    control.observe(Channel.WATERMARK, a, _report(Control.SEEN, 2000))
    assert control.advance_own_watermarks() == {"a-only": 1989}
    assert control.watermark_of("a-only", 5) == 1989 and control.watermark_of("both", 5) == 5
    assert control.advance_own_watermarks() == {}  # nothing moved
    assert control.own_watermarks_so_far() == {"a-only": 1989}  # what the executor announces


def test_an_idle_group_is_announced_on_the_clock_during_and_between_batches():
    plan = _plan(lambda env: _two_groups(env, idleness_ms=300))
    clock = Clock(0)
    control = ControlPlane(plan, clock)
    a, b = _group_of(plan, 0), _group_of(plan, 1)
    control.see(a, Control.SEEN, 500)
    control.see(b, Control.SEEN, 40)
    clock.now_ms = 100
    assert control.end_batch() is None  # b produced 0 ms ago
    clock.now_ms = 399
    assert control.idle_between_batches() is None  # 299 ms: not yet
    clock.now_ms = 400
    assert control.idle_between_batches() == {b: 500 - 11 + 101}  # a's watermark, in b's
    control.see(b, Control.IDLE, 590)  # read back in the next batch: not activity
    assert control.job_watermark() == 489
    clock.now_ms = 500
    assert control.end_batch() is None  # a has not moved
    assert control.idleness_check_s() == 0.075


def test_processing_time_ticks_follow_the_reported_timers_and_a_restart_ticks_at_once():
    def timers(env):
        env.from_collection([1]).key_by(lambda x: x).process(Echo()).uid("t").print()

    plan = _plan(timers)
    clock = Clock(1000)
    fresh = ControlPlane(plan, clock)
    restored = ControlPlane(plan, clock, restoring=True)
    assert fresh.next_tick() is None and restored.next_tick() == 1000
    for control in (fresh, restored):
        for key_group in range(plan.max_parallelism):
            earliest = 5000 if key_group == 7 else None
            due = pickle.dumps(DueTimer("t", key_group, earliest))
            assert control.observe(Channel.TIMERS, 0, due)
    assert fresh.next_tick() == 5000 and restored.next_tick() == 5000  # all reported
    assert not fresh.processing_timer_due()
    clock.now_ms = 5000
    assert fresh.processing_timer_due()


def test_ends_of_input_are_counted_and_other_rows_are_not_taken():
    plan = _plan(_two_groups)
    control = ControlPlane(plan, Clock())
    assert control.observe(Channel.FINISHED, 1, None) and not control.input_ended()
    assert control.observe(Channel.FINISHED, 0, None) and control.input_ended()
    assert not control.observe(Channel.METRICS, 0, pickle.dumps({}))
    assert not control.observe("sink-0", 0, b"")
