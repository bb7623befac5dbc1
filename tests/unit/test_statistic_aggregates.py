"""The statistical and collecting aggregates' accumulators (weir.table.statistic_aggregates)
beyond what the PyFlink-checked programs reach: merging two accumulators (window slices)
gives the one accumulator of all values, retracting a value gives the accumulator
without it, and the collecting ones take back the latest equal value."""

import operator

import pytest

from weir.table.statistic_aggregates import ListAgg, StddevSamp, VarPop, VarSamp

VALUES = [73.709, 70.369, 79.327, 91.5, 35.183, 68.515]


def _over(accumulator, values):
    acc = accumulator.create()
    for value in values:
        acc = accumulator.accumulate(acc, (value,))
    return acc


@pytest.mark.parametrize("kind", [VarPop, VarSamp, StddevSamp])
def test_merged_and_retracted_accumulators_give_the_whole_ones_values(kind):
    accumulator = kind([operator.itemgetter(0)])
    whole = accumulator.value(_over(accumulator, VALUES))
    merged = accumulator.merge(_over(accumulator, VALUES[:2]), _over(accumulator, VALUES[2:]))
    assert accumulator.value(merged) == pytest.approx(whole, rel=1e-12)
    retracted = accumulator.retract(_over(accumulator, VALUES + [12.5]), (12.5,))
    assert accumulator.value(retracted) == pytest.approx(whole, rel=1e-12)
    assert accumulator.value(accumulator.retract(_over(accumulator, [4.0]), (4.0,))) is None


def test_variance_of_integers_is_truncated_and_of_one_value_sample_is_null():
    accumulator = VarSamp([operator.itemgetter(0)])
    accumulator.integral = True
    assert accumulator.value(_over(accumulator, [3, 4])) == 0  # (0.5 as an INT)
    assert accumulator.value(_over(accumulator, [3, 4, 8, 1])) == 8
    assert accumulator.value(_over(accumulator, [3])) is None


def test_listagg_takes_back_the_latest_equal_value_and_skips_nulls():
    accumulator = ListAgg([operator.itemgetter(0), lambda values: "|"])
    acc = _over(accumulator, ["a", None, "b", "a"])
    assert accumulator.value(acc) == "a|b|a"
    assert accumulator.value(accumulator.retract(acc, ("a",))) == "a|b"
    assert accumulator.value(ListAgg([operator.itemgetter(0)]).create()) is None
