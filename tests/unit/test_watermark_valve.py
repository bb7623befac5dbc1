"""The one watermark valve (weir.runtime.watermark_valve): the minimum over the inputs
that hold the watermark, idle ones left out, an input without a mark ignored or waited
for."""

from weir.runtime.watermark_valve import WAITS, holding, valve


def test_the_minimum_over_the_inputs_not_idle():
    marks = {"a": 10, "b": 4, "c": 7}
    assert valve(marks) == 4
    assert valve(marks, idle={"b"}) == 7
    assert valve(marks, ["a", "c"]) == 7
    assert valve(marks, idle={"a", "b", "c"}) is None
    assert holding(["a", "b", "c"], {"b"}) == ["a", "c"]


def test_an_input_without_a_mark_is_ignored_or_waited_for():
    marks = {"a": 10}
    assert valve(marks, ["a", "b"]) == 10  # (an engine's group that produced nothing)
    assert valve(marks, ["a", "b"], without_mark=WAITS) is None  # (a partition)
    assert valve(marks, ["a", "b"], idle={"b"}, without_mark=WAITS) == 10
    assert valve({}, ["a"]) is None
