"""Built-in window aggregations over a micro-batch's (key, window) groups at once.

For every group, `partials` computes in numpy what the group's elements add to a window
(a count, an integer total, the first smallest or largest value and its element), and
`combine(stored, partial)` folds that into the window's stored reduction or accumulator:
one Python step per window, none per element. Results are the ones element-by-element
adding gives, bit for bit: integer sums are summed in numpy only where int64 cannot
overflow, and other sums (floats, mixed numbers) are folded in arrival order by
functools.reduce in C, since a float sum depends on its order. Where numpy would change a
result (NaN, mixed int and float values to compare, values that are not numbers),
`partials` returns None and the operator adds the batch element by element.
"""

from __future__ import annotations

from functools import reduce
from operator import add, itemgetter
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

import numpy as np

from weir.common.row import Row
from weir.runtime import aggregations as a
from weir.runtime.window.contents import AggregateContents, ReduceContents

if TYPE_CHECKING:
    from weir.runtime.aggregations import Field
    from weir.runtime.window.contents import ElementContents
    from weir.runtime.window.vectorized_windows import WindowGroups

    # A group's (exact integer total or None, its numbers in arrival order)
    SumPartial = tuple[Optional[int], list[Any]]

_INT_LIMIT = 1 << 62


def field_values(values: Sequence[Any], field: Field) -> Optional[Sequence[Any]]:
    """The field of every value, as aggregations._get reads it; None where it would not."""
    if field is None:
        return values
    kinds = set(map(type, values))
    if isinstance(field, str):
        if not all(issubclass(kind, (Row, dict)) for kind in kinds):
            return None
    elif field == 0 and kinds <= {int, float}:
        return values
    try:
        return list(map(itemgetter(field), values))
    except (TypeError, LookupError, ValueError):
        return None


def number_array(numbers: Sequence[Any]) -> Optional[np.ndarray]:
    """numbers as an int64 or float64 array, if they are all ints (of int64's range) or all
    floats without NaN: where numpy's order is Python's."""
    kinds = set(map(type, numbers))
    if kinds == {int}:
        try:
            array = np.array(numbers, dtype=np.int64)
        except OverflowError:
            return None
        if len(array) and (array.min() <= -_INT_LIMIT or array.max() >= _INT_LIMIT):
            return None
        return array
    if kinds == {float}:
        array = np.array(numbers, dtype=np.float64)
        return None if np.isnan(array).any() else array
    return None


def _in_group_order(numbers: Sequence[Any], groups: WindowGroups) -> list[list[Any]]:
    ordered = list(map(numbers.__getitem__, groups.rows.tolist()))
    ends = (groups.bounds + groups.sizes).tolist()
    return [ordered[start:end] for start, end in zip(groups.bounds.tolist(), ends)]


def _sum_partials(numbers: Sequence[Any], groups: WindowGroups) -> list[SumPartial]:
    """Per group (exact integer total or None, the group's numbers in arrival order)."""
    sequences = _in_group_order(numbers, groups)
    array = number_array(numbers)
    if (
        array is None
        or array.dtype != np.int64
        or not len(array)
        or int(np.abs(array).max()) * len(groups.rows) >= 1 << 63
    ):
        return [(None, sequence) for sequence in sequences]
    totals = np.add.reduceat(array[groups.rows], groups.bounds).tolist()
    return list(zip(totals, sequences))


def _plus(start: Any, partial: SumPartial) -> Any:
    total, sequence = partial
    if total is not None and type(start) is int:
        return start + total
    return reduce(add, sequence, start)


def _first_extremes(
    numbers: Sequence[Any], groups: WindowGroups, largest: bool
) -> Optional[list[int]]:
    """Per group, the entry holding its first smallest (or largest) number; None where
    numpy cannot compare them as Python does."""
    array = number_array(numbers)
    if array is None:
        return None
    entries = array[groups.rows]
    order = np.lexsort((-entries if largest else entries, groups.group_ids()))
    return order[groups.bounds].tolist()  # type: ignore[no-any-return]  # (numpy's tolist)


class _Count:
    def partials(self, values: Sequence[Any], groups: WindowGroups) -> list[int]:
        return groups.sizes.tolist()  # type: ignore[no-any-return]  # (numpy's tolist)

    def combine(self, stored: Optional[int], partial: int) -> int:
        return (0 if stored is None else stored) + partial


class _Sum:
    def __init__(self, field: Field) -> None:
        self.field = field

    def partials(
        self, values: Sequence[Any], groups: WindowGroups
    ) -> Optional[list[Any]]:  # (each subclass's own partials)
        numbers = field_values(values, self.field)
        return None if numbers is None else _sum_partials(numbers, groups)

    def combine(self, stored: Any, partial: Any) -> Any:
        return _plus(0 if stored is None else stored, partial)


class _Avg(_Sum):
    def partials(
        self, values: Sequence[Any], groups: WindowGroups
    ) -> Optional[list[tuple[SumPartial, int]]]:
        sums = super().partials(values, groups)
        return None if sums is None else list(zip(sums, groups.sizes.tolist()))

    def combine(
        self, stored: Optional[tuple[Any, int]], partial: tuple[SumPartial, int]
    ) -> tuple[Any, int]:
        total, count = (0, 0) if stored is None else stored
        return (_plus(total, partial[0]), count + partial[1])


class _Extreme:
    """The Min/Max aggregates; _ReduceExtreme reuses its partials for the reducers."""

    def __init__(self, field: Field, largest: bool) -> None:
        self.field, self.largest = field, largest

    def partials(
        self, values: Sequence[Any], groups: WindowGroups
    ) -> Optional[list[tuple[Any, Any, Any]]]:
        numbers = field_values(values, self.field)
        if numbers is None:
            return None
        entries = _first_extremes(numbers, groups, self.largest)
        if entries is None:
            return None
        rows = groups.rows.tolist()
        firsts = [rows[start] for start in groups.bounds.tolist()]
        return [
            (numbers[rows[entry]], values[rows[entry]], values[first])
            for entry, first in zip(entries, firsts)
        ]

    def beats(self, number: float, current: float) -> bool:
        return number > current if self.largest else number < current

    def combine(self, stored: Any, partial: tuple[Any, Any, Any]) -> Any:
        number = partial[0]
        return number if stored is None or self.beats(number, stored) else stored


class _RecordSum(_Sum):
    """WindowedStream.sum: the window's first record, its field the sum of the fields."""

    def partials(
        self, values: Sequence[Any], groups: WindowGroups
    ) -> Optional[list[tuple[SumPartial, Any]]]:
        sums = super().partials(values, groups)
        if sums is None:
            return None
        rows = groups.rows.tolist()
        firsts = [values[rows[start]] for start in groups.bounds.tolist()]
        return list(zip(sums, firsts))

    def combine(self, stored: Any, partial: tuple[SumPartial, Any]) -> Any:
        (total, sequence), first = partial
        if stored is not None:
            number = _plus(a._get(stored, self.field), (total, sequence))
            return a._replace(stored, self.field, number)
        if len(sequence) == 1:
            return first
        if total is None:  # a total exists only when every number is an int
            total = reduce(add, sequence[1:], sequence[0])
        return a._replace(first, self.field, total)


class _ReduceExtreme(_Extreme):
    """WindowedStream.min/max (`by`: False): the first record with its field the extreme;
    min_by/max_by (`by`: True): the first record holding the extreme."""

    def __init__(self, field: Field, largest: bool, by: bool) -> None:
        super().__init__(field, largest)
        self.by = by

    def combine(self, stored: Any, partial: tuple[Any, Any, Any]) -> Any:
        number, holder, first = partial
        base = first if stored is None else stored
        current = a._get(base, self.field)
        if (current >= number) if self.largest else (current <= number):  # as the reducers
            return base
        return holder if self.by else a._replace(base, self.field, number)


def batch_aggregation(contents: ElementContents) -> Optional[BatchAggregation]:
    """The batch form of a window's built-in reduction or aggregate, or None."""
    if type(contents) is ReduceContents:
        function = contents.user_function
        kind = type(function)
        if kind is a.SumReducer:
            return _RecordSum(function.field)
        if kind in (a.MinReducer, a.MaxReducer, a.MinByReducer, a.MaxByReducer):
            return _ReduceExtreme(
                function.field,
                kind in (a.MaxReducer, a.MaxByReducer),
                kind in (a.MinByReducer, a.MaxByReducer),
            )
        return None
    if type(contents) is AggregateContents:
        function = contents.function
        kind = type(function)
        if kind is a.Count:
            return _Count()
        if kind in (a.Sum, a.Avg):
            return (_Sum if kind is a.Sum else _Avg)(function.field)
        if kind in (a.Min, a.Max):
            return _Extreme(function.field, kind is a.Max)
    return None


if TYPE_CHECKING:
    # A window's built-in reduction or aggregate, a batch at a time
    BatchAggregation = Union[_Count, _Sum, _Extreme]
