"""A micro-batch of elements processed per window, in Python or cut into (key, window)
groups at once with numpy, gives what one-by-one processing gives."""

import random

import pytest

from tests.transcripts import functions as f
from tests.transcripts.runner import window_spec
from tests.transcripts.windows import LATE, Transcript
from weir.datastream.window import SlidingEventTimeWindows, TumblingEventTimeWindows
from weir.runtime.wire import MAX_WATERMARK
from weir.testing.harness import KeyedOperatorHarness

PIPELINES = {
    "tumbling_reduce": lambda ks: (
        ks.window(TumblingEventTimeWindows.of(10))
        .allowed_lateness(5)
        .side_output_late_data(LATE)
        .reduce(f.add_values)
    ),
    "sliding_process": lambda ks: (
        ks.window(SlidingEventTimeWindows.of(20, 5)).allowed_lateness(3).process(f.WindowList())
    ),
    "tumbling_aggregate": lambda ks: ks.window(TumblingEventTimeWindows.of(7)).aggregate(
        f.Average(), window_function=f.WithWindow()
    ),
    "sliding_in_arrival_order": lambda ks: ks.window(SlidingEventTimeWindows.of(10, 5)).reduce(
        lambda a, b: (a[0], a[1] * 10 + b[1])
    ),  # the digits in the order they came
}


def batches(seed):
    """Batches of out-of-order elements (some late) over 5 keys, each with a watermark."""
    rng = random.Random(seed)
    result, now = [], 0
    for _ in range(30):
        now += rng.randint(0, 12)
        elements = [
            ((rng.choice("abcde"), rng.randint(1, 9)), max(0, now - rng.randint(0, 25)))
            for _ in range(rng.randint(0, 15))
        ]
        result.append((elements, now - 4))
    return result


def one_by_one(pipeline, seed):
    """The general path: elements one by one, timers through the trigger object."""
    function = window_spec(Transcript("t", pipeline, []))
    function.batches_by_window = False
    harness = KeyedOperatorHarness(function, f.key_of)
    out = []
    for elements, watermark in batches(seed):
        harness.process_watermark(watermark)
        for value, ts in elements:
            harness.process_element(value, ts)
        out.append(sorted(map(repr, harness.extract_outputs() + harness.side_output(LATE))))
        harness.side_outputs.clear()
    harness.process_watermark(MAX_WATERMARK)
    out.append(sorted(map(repr, harness.extract_outputs())))
    return out


def per_window(pipeline, seed, at_once, numpy_cuts):
    """The micro-batch path, key group by key group: each batch cut into (key, window)
    groups in Python, or at once with numpy (`grouped`: whether each cut was)."""
    spec = window_spec(Transcript("t", pipeline, []))
    spec.batches_at_once = at_once
    grouped = numpy_cuts()
    harness = KeyedOperatorHarness(spec, f.key_of, max_parallelism=4)
    out = []
    for elements, watermark in batches(seed) + [([], MAX_WATERMARK)]:
        harness.process_micro_batch(elements, watermark)
        out.append(sorted(map(repr, harness.extract_outputs() + harness.side_output(LATE))))
        harness.side_outputs.clear()
    return out, grouped


@pytest.mark.parametrize("name", sorted(PIPELINES))
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("at_once", [False, True])
def test_per_window_batches_equal_one_by_one(name, seed, at_once, numpy_cuts):
    expected = one_by_one(PIPELINES[name], seed)
    assert sum(len(step) for step in expected) > 10  # the case exercises firings
    out, grouped = per_window(PIPELINES[name], seed, at_once, numpy_cuts)
    assert out == expected
    assert (grouped.count(True) > len(grouped) // 2) if at_once else grouped == []
