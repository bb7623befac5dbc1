"""Built-in window aggregations computed a micro-batch at a time (numpy) give exactly what
element-by-element adding gives: same values, same types, same floats bit for bit."""

import math
import random

import pytest

from tests.transcripts.runner import window_spec
from tests.transcripts.windows import LATE, Transcript
from weir.common import Row
from weir.datastream.aggregations import Avg, Count, Max, Min, Sum
from weir.datastream.window import SlidingEventTimeWindows, TumblingEventTimeWindows
from weir.runtime.wire import MAX_WATERMARK
from weir.testing.harness import KeyedOperatorHarness

ASSIGNERS = [
    lambda: TumblingEventTimeWindows.of(10),
    lambda: TumblingEventTimeWindows.of(7, 3),
    lambda: SlidingEventTimeWindows.of(20, 5),
    lambda: SlidingEventTimeWindows.of(10, 3, 1),
    lambda: SlidingEventTimeWindows.of(4, 6),  # gaps: some elements are in no window
]
AGGREGATIONS = {
    "count": lambda ws, field: ws.aggregate(Count()),
    "sum": lambda ws, field: ws.aggregate(Sum(field)),
    "min": lambda ws, field: ws.aggregate(Min(field)),
    "max": lambda ws, field: ws.aggregate(Max(field)),
    "avg": lambda ws, field: ws.aggregate(Avg(field)),
    "reduce_sum": lambda ws, field: ws.sum(field),
    "reduce_min": lambda ws, field: ws.min(field),
    "reduce_max": lambda ws, field: ws.max(field),
    "min_by": lambda ws, field: ws.min_by(field),
    "max_by": lambda ws, field: ws.max_by(field),
}
KEYS = "abcdefg"


def number(rng, kind):
    if kind == "ints":
        return rng.randint(-50, 50)
    if kind == "big_ints":
        return rng.choice([rng.randint(-5, 5), 2**62 + rng.randint(0, 9), -(2**70)])
    floats = [rng.uniform(-1e3, 1e3), 0.1, -0.0, 0.0, 1e16, rng.randint(-9, 9) / 10]
    if kind == "floats":
        return rng.choice(floats)
    if kind == "nan":
        return rng.choice(floats + [math.nan])
    return rng.choice([rng.randint(-5, 5), rng.choice(floats), True])  # mixed


def element(rng, shape, kind):
    key, amount = rng.choice(KEYS), number(rng, kind)
    if shape == "row":
        return Row(key=key, amount=amount, note=rng.randint(0, 3))
    if shape == "tuple":
        return (key, amount, rng.randint(0, 3))
    return amount  # a stream of numbers, keyed by their sign


def key_of(value):
    return value[0] if isinstance(value, (Row, tuple)) else math.copysign(1, value) > 0


def batches(rng, shape, kind):
    """30 micro-batches of out-of-order elements (some late), each with a watermark."""
    result, now = [], rng.randint(-80, 0)
    for _ in range(30):
        now += rng.randint(0, 12)
        elements = [
            (element(rng, shape, kind), now - rng.randint(0, 25)) for _ in range(rng.randint(0, 18))
        ]
        result.append((elements, now - 4))
    return result


def run(pipeline, steps, mode, numpy_cuts):
    """Outputs per step, through the harness's micro-batch path, in `mode`: one_by_one (the
    general path), per_window (cut into (key, window) groups in Python) or at_once (cut
    with numpy; `at_once` tells for each key group's batch whether it was)."""
    function = window_spec(Transcript("t", pipeline, []))
    if mode == "one_by_one":
        function.batches_by_window = False
    elif mode == "per_window":
        function.batches_at_once = False
    else:
        assert function.batches_at_once and function.batch_aggregation is not None
    at_once = numpy_cuts()
    harness = KeyedOperatorHarness(function, key_of, max_parallelism=4)
    outputs = []
    for elements, watermark in steps + [([], MAX_WATERMARK)]:
        harness.process_micro_batch(elements, watermark)
        outputs.append(
            [
                (tag, type(value).__name__, repr(value), ts)
                for tag, produced in (
                    ("", harness.extract_outputs()),
                    (LATE.tag_id, harness.side_output(LATE)),
                )
                for value, ts in produced
            ]
        )
        harness.side_outputs.clear()
    return outputs, at_once


CASES = [
    (seed, kind) for seed in range(12) for kind in ("ints", "floats", "big_ints", "nan", "mixed")
]


@pytest.mark.parametrize("aggregation", sorted(AGGREGATIONS))
@pytest.mark.parametrize("seed,kind", CASES)
def test_batch_aggregation_equals_element_by_element(aggregation, seed, kind, numpy_cuts):
    rng = random.Random(f"{aggregation}-{seed}-{kind}")
    shape = rng.choice(["row", "tuple", "number"])
    field = {"row": rng.choice(["amount", 1]), "tuple": 1, "number": 0}[shape]
    if shape == "number" and aggregation.startswith(("count", "sum", "min", "max", "avg")):
        field = rng.choice([0, None])
    assigner, lateness = rng.choice(ASSIGNERS)(), rng.choice([0, 0, 5])

    def pipeline(keyed):
        windowed = keyed.window(assigner).allowed_lateness(lateness).side_output_late_data(LATE)
        return AGGREGATIONS[aggregation](windowed, field)

    steps = batches(rng, shape, kind)
    expected, _ = run(pipeline, steps, "one_by_one", numpy_cuts)
    assert sum(len(step) for step in expected) > 5  # windows fired
    per_window, _ = run(pipeline, steps, "per_window", numpy_cuts)
    at_once, used = run(pipeline, steps, "at_once", numpy_cuts)
    assert at_once == per_window
    assert [sorted(step) for step in at_once] == [sorted(step) for step in expected]
    comparable = (
        kind in ("ints", "floats")
        or (kind == "big_ints" and "sum" in aggregation)
        or aggregation == "count"
    )
    if comparable:  # numpy took (nearly) every batch: only a batch with a late key's
        assert used.count(True) >= len(used) - 2, used  # NaN or mix may not


def test_built_in_aggregates_on_the_harness():
    def pipeline(aggregate):
        def build(keyed):
            return keyed.window(TumblingEventTimeWindows.of(10)).aggregate(aggregate)

        return build

    elements = [
        (("a", 3), 1),
        (("b", 2.5), 2),
        (("a", 7), 4),
        (("a", -1), 12),
        (("b", 0.5), 9),
        (("a", 7), 8),
    ]
    expected = {
        "count": [3, 2, 1],
        "sum": [17, 3.0, -1],
        "min": [3, 0.5, -1],
        "max": [7, 2.5, -1],
        "avg": [17 / 3, 1.5, -1.0],
    }
    for name, aggregate in [
        ("count", Count()),
        ("sum", Sum(1)),
        ("min", Min(1)),
        ("max", Max(1)),
        ("avg", Avg(1)),
    ]:
        harness = KeyedOperatorHarness(
            window_spec(Transcript("t", pipeline(aggregate), [])), key_of
        )
        for value, ts in elements:
            harness.process_element(value, ts)
        harness.process_watermark(MAX_WATERMARK)
        outputs = sorted(harness.extract_outputs(), key=lambda output: output[1])  # by time
        assert outputs == [
            (expected[name][0], 9),
            (expected[name][1], 9),
            (expected[name][2], 19),
        ], name
        assert [type(value) for value, _ in outputs] == [type(value) for value in expected[name]], (
            name
        )


@pytest.mark.parametrize("field", [True, 1.5, ["a"]])
def test_built_in_aggregates_reject_a_bad_field(field):
    with pytest.raises(TypeError, match="field position"):
        Sum(field)
