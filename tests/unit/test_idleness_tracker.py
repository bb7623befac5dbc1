"""The driver's tracking of idle watermark groups (weir.plan.idleness), without an engine."""

from weir.plan.idleness import IdlenessTracker
from weir.plan.physical import WatermarkGroup
from weir.runtime.wire import END, END_OF_INPUT_TS, IDLE, SEEN

GROUPS = [WatermarkGroup(["a"], 1, True), WatermarkGroup(["b"], 101, True, idleness_ms=300)]


def test_an_idle_group_is_announced_the_others_watermark_plus_its_delay():
    tracker = IdlenessTracker(GROUPS, now_ms=0)
    tracker.observe(0, SEEN, 500)
    tracker.observe(1, SEEN, 40)
    assert tracker.end_batch(100) is None  # b produced records 0 ms ago
    tracker.observe(0, SEEN, 900)
    assert tracker.end_batch(350) is None  # 250 ms without records: not idle yet
    tracker.observe(0, SEEN, 1200)
    assert tracker.end_batch(400) == {1: 1200 - 1 + 101}  # a's watermark, in b's terms
    tracker.observe(1, IDLE, 1300)  # the announcement, read back: not activity
    assert tracker.end_batch(500) is None  # a has not moved
    tracker.observe(0, SEEN, 1500)
    assert tracker.end_batch(600) == {1: 1500 - 1 + 101}


def test_a_group_producing_again_holds_the_watermark_again():
    tracker = IdlenessTracker(GROUPS, now_ms=0)
    tracker.observe(0, SEEN, 500)
    assert tracker.end_batch(400) == {1: 499 + 101}  # b never produced: idle from the start
    tracker.observe(1, IDLE, 600)
    tracker.observe(1, SEEN, 50)  # a late record: b is active again
    tracker.observe(0, SEEN, 900)
    assert tracker.end_batch(450) is None
    tracker.observe(0, SEEN, 1000)
    assert tracker.end_batch(700) is None  # active 250 ms ago
    assert tracker.end_batch(800) == {1: 999 + 101}


def test_ended_groups_and_all_idle_groups_announce_nothing():
    tracker = IdlenessTracker(GROUPS, now_ms=0)
    tracker.observe(0, END, END_OF_INPUT_TS)
    assert tracker.end_batch(1000) is None  # only an ended group: nothing to follow
    assert not IdlenessTracker.needed(GROUPS[:1])
    assert IdlenessTracker.needed(GROUPS)
