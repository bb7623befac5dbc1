"""Built-in aggregations: Flink's rolling sum/min/max/min_by/max_by as reduce functions, and
count/sum/min/max/avg as aggregate functions.

As Flink's SumAggregator and ComparableAggregator: `sum`, `min` and `max` change one field
of the first record of the key; `min_by` and `max_by` return the whole record holding the
extreme value (the first one on ties).

The aggregate functions (weir.datastream.aggregations) give just the number: Count() the
number of elements, Sum/Min/Max/Avg(field) the sum, smallest, largest (the first of equal
values) and mean of one field (None: the element itself; a position; a Row field name).
The window operator aggregates them, and the reducers, a micro-batch at a time where it can
(weir.runtime.window.vectorized_aggregates), with the same results as element by element.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Union

from weir.common.row import Row

if TYPE_CHECKING:
    # A field of a record: a position, a Row field name, or None for the record itself
    Field = Optional[Union[int, str]]


def _get(value: Any, field: Field) -> Any:
    if field is None:
        return value
    if isinstance(field, str):
        if hasattr(value, "as_dict"):
            return value[field]
        if isinstance(value, dict):
            return value[field]
        raise TypeError(
            f"cannot aggregate field '{field}' of a {type(value).__name__}; "
            "name fields on Row values or use a position"
        )
    if isinstance(value, (int, float)) and field == 0:
        return value
    return value[field]


def _replace(value: Any, field: Field, new: Any) -> Any:
    if field is None or (isinstance(value, (int, float)) and field == 0):
        return new
    if isinstance(value, Row):
        names = value.get_field_names()
        items = list(value)
        # (a field name needs a row with names: else AttributeError, as ever)
        index = names.index(field) if isinstance(field, str) else field  # type: ignore[union-attr]
        items[index] = new
        return Row(**dict(zip(names, items))) if names else Row(*items)
    if isinstance(value, tuple):
        items = list(value)
        items[field] = new  # type: ignore[index]  # (a field name: TypeError, as ever)
        return type(value)(items) if type(value) is tuple else type(value)(*items)
    if isinstance(value, (list, dict)):
        copy = type(value)(value)
        copy[field] = new  # type: ignore[index]  # (a name on a list: TypeError, as ever)
        return copy
    raise TypeError(f"cannot set field {field!r} of a {type(value).__name__}")


class _Reducer:
    def __init__(self, field: Field) -> None:
        self.field = field


class SumReducer(_Reducer):
    def reduce(self, accumulated: Any, value: Any) -> Any:
        field = self.field
        return _replace(accumulated, field, _get(accumulated, field) + _get(value, field))


class MinReducer(_Reducer):
    def reduce(self, accumulated: Any, value: Any) -> Any:
        field = self.field
        a, b = _get(accumulated, field), _get(value, field)
        return accumulated if a <= b else _replace(accumulated, field, b)


class MaxReducer(_Reducer):
    def reduce(self, accumulated: Any, value: Any) -> Any:
        field = self.field
        a, b = _get(accumulated, field), _get(value, field)
        return accumulated if a >= b else _replace(accumulated, field, b)


class MinByReducer(_Reducer):
    def reduce(self, accumulated: Any, value: Any) -> Any:
        return accumulated if _get(accumulated, self.field) <= _get(value, self.field) else value


class MaxByReducer(_Reducer):
    def reduce(self, accumulated: Any, value: Any) -> Any:
        return accumulated if _get(accumulated, self.field) >= _get(value, self.field) else value


REDUCERS = {
    "sum": SumReducer,
    "min": MinReducer,
    "max": MaxReducer,
    "min_by": MinByReducer,
    "max_by": MaxByReducer,
}


def rolling_reducer(kind: str, field: Field) -> _Reducer:
    return REDUCERS[kind](field)


# -- aggregate functions (create_accumulator / add / get_result / merge) ------------------


class _FieldAggregate:
    def __init__(self, field: Field = None) -> None:
        if isinstance(field, bool) or not (field is None or isinstance(field, (int, str))):
            raise TypeError(
                f"{type(self).__name__}() takes a field position (int), a field "
                f"name (str) or None for the element itself, got {field!r}"
            )
        self.field = field

    def __repr__(self) -> str:
        return f"{type(self).__name__}({'' if self.field is None else repr(self.field)})"


class Count:
    """The number of elements."""

    def create_accumulator(self) -> int:
        return 0

    def add(self, value: Any, accumulator: int) -> int:
        return accumulator + 1

    def get_result(self, accumulator: int) -> int:
        return accumulator

    def merge(self, acc_a: int, acc_b: int) -> int:
        return acc_a + acc_b

    def __repr__(self) -> str:
        return "Count()"


class Sum(_FieldAggregate):
    """The sum of a field, added in arrival order."""

    def create_accumulator(self) -> int:
        return 0

    def add(self, value: Any, accumulator: Any) -> Any:
        return accumulator + _get(value, self.field)

    def get_result(self, accumulator: Any) -> Any:
        return accumulator

    def merge(self, acc_a: Any, acc_b: Any) -> Any:
        return acc_a + acc_b


class Min(_FieldAggregate):
    """The smallest value of a field (the first of equal ones); None for no elements."""

    def create_accumulator(self) -> None:
        return None

    def add(self, value: Any, accumulator: Any) -> Any:
        number = _get(value, self.field)
        return number if accumulator is None or number < accumulator else accumulator

    def get_result(self, accumulator: Any) -> Any:
        return accumulator

    def merge(self, acc_a: Any, acc_b: Any) -> Any:
        return acc_a if acc_b is None or (acc_a is not None and not acc_b < acc_a) else acc_b


class Max(Min):
    """The largest value of a field (the first of equal ones); None for no elements."""

    def add(self, value: Any, accumulator: Any) -> Any:
        number = _get(value, self.field)
        return number if accumulator is None or number > accumulator else accumulator

    def merge(self, acc_a: Any, acc_b: Any) -> Any:
        return acc_a if acc_b is None or (acc_a is not None and not acc_b > acc_a) else acc_b


class Avg(_FieldAggregate):
    """The mean of a field (sum / count); None for no elements."""

    def create_accumulator(self) -> tuple[int, int]:
        return (0, 0)

    def add(self, value: Any, accumulator: tuple[Any, int]) -> tuple[Any, int]:
        return (accumulator[0] + _get(value, self.field), accumulator[1] + 1)

    def get_result(self, accumulator: tuple[Any, int]) -> Any:
        return accumulator[0] / accumulator[1] if accumulator[1] else None

    def merge(self, acc_a: tuple[Any, int], acc_b: tuple[Any, int]) -> tuple[Any, int]:
        return (acc_a[0] + acc_b[0], acc_a[1] + acc_b[1])
