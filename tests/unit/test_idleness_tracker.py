"""The driver's tracking of idle watermark groups (weir.control.idleness), without an engine."""

from weir.control.idleness import WatermarkGroupTracker
from weir.plan.physical import WatermarkGroup
from weir.runtime.wire import END_OF_INPUT_TS, Control

GROUPS = [WatermarkGroup(["a"], 1, True), WatermarkGroup(["b"], 101, True, idleness_ms=300)]


def test_an_idle_group_is_announced_the_others_watermark_plus_its_delay():
    tracker = WatermarkGroupTracker(GROUPS, now_ms=0)
    tracker.observe(0, Control.SEEN, 500)
    tracker.observe(1, Control.SEEN, 40)
    assert tracker.end_batch(100) is None  # b produced records 0 ms ago
    tracker.observe(0, Control.SEEN, 900)
    assert tracker.end_batch(350) is None  # 250 ms without records: not idle yet
    tracker.observe(0, Control.SEEN, 1200)
    assert tracker.end_batch(400) == {1: 1200 - 1 + 101}  # a's watermark, in b's terms
    tracker.observe(1, Control.IDLE, 1300)  # the announcement, read back: not activity
    assert tracker.end_batch(500) is None  # a has not moved
    tracker.observe(0, Control.SEEN, 1500)
    assert tracker.end_batch(600) == {1: 1500 - 1 + 101}


def test_a_group_producing_again_holds_the_watermark_again():
    tracker = WatermarkGroupTracker(GROUPS, now_ms=0)
    tracker.observe(0, Control.SEEN, 500)
    assert tracker.end_batch(400) == {1: 499 + 101}  # b never produced: idle from the start
    tracker.observe(1, Control.IDLE, 600)
    tracker.observe(1, Control.SEEN, 50)  # a late record: b is active again
    tracker.observe(0, Control.SEEN, 900)
    assert tracker.end_batch(450) is None
    tracker.observe(0, Control.SEEN, 1000)
    assert tracker.end_batch(700) is None  # active 250 ms ago
    assert tracker.end_batch(800) == {1: 999 + 101}


def test_when_every_group_holding_the_watermark_is_idle_the_largest_counts():
    """Flink's watermark valve: once its last active input is idle, the largest watermark
    of all inputs, ended ones included."""
    tracker = WatermarkGroupTracker(GROUPS, now_ms=0)
    tracker.observe(1, Control.SEEN, 700)
    tracker.observe(0, Control.SEEN, 500)
    assert tracker.end_batch(100) is None
    tracker.observe(0, Control.END, END_OF_INPUT_TS)
    assert tracker.end_batch(200) is None  # b is not idle yet
    assert tracker.announcements(450) == {1: END_OF_INPUT_TS}  # between micro-batches


def test_idle_groups_follow_the_largest_idle_one():
    groups = GROUPS + [WatermarkGroup(["c"], 1, True, idleness_ms=300)]
    tracker = WatermarkGroupTracker(groups, now_ms=0)
    tracker.observe(1, Control.SEEN, 700)
    tracker.observe(2, Control.SEEN, 900)
    assert tracker.end_batch(0) is None
    assert tracker.announcements(400) == {1: 899 + 101}  # c's 899; c needs no move
    assert not WatermarkGroupTracker.needed(groups[:1])
    assert WatermarkGroupTracker.needed(groups)
