"""Rolling aggregations (sum, min, max, min_by, max_by) as reduce functions, as in Flink.

As Flink's SumAggregator and ComparableAggregator: `sum`, `min` and `max` change one field
of the first record of the key; `min_by` and `max_by` return the whole record holding the
extreme value (the first one on ties).
"""

from weir.common.row import Row


def _get(value, field):
    if field is None:
        return value
    if isinstance(field, str):
        if hasattr(value, "as_dict"):
            return value[field]
        if isinstance(value, dict):
            return value[field]
        raise TypeError(f"cannot aggregate field '{field}' of a {type(value).__name__}; "
                        "name fields on Row values or use a position")
    if isinstance(value, (int, float)) and field == 0:
        return value
    return value[field]


def _replace(value, field, new):
    if field is None or (isinstance(value, (int, float)) and field == 0):
        return new
    if isinstance(value, Row):
        names = value.get_field_names()
        items = list(value)
        index = names.index(field) if isinstance(field, str) else field
        items[index] = new
        return Row(**dict(zip(names, items))) if names else Row(*items)
    if isinstance(value, tuple):
        items = list(value)
        items[field] = new
        return type(value)(items) if type(value) is tuple else type(value)(*items)
    if isinstance(value, (list, dict)):
        copy = type(value)(value)
        copy[field] = new
        return copy
    raise TypeError(f"cannot set field {field!r} of a {type(value).__name__}")


class _Reducer:
    def __init__(self, field):
        self.field = field


class Sum(_Reducer):
    def reduce(self, accumulated, value):
        field = self.field
        return _replace(accumulated, field, _get(accumulated, field) + _get(value, field))


class Min(_Reducer):
    def reduce(self, accumulated, value):
        field = self.field
        a, b = _get(accumulated, field), _get(value, field)
        return accumulated if a <= b else _replace(accumulated, field, b)


class Max(_Reducer):
    def reduce(self, accumulated, value):
        field = self.field
        a, b = _get(accumulated, field), _get(value, field)
        return accumulated if a >= b else _replace(accumulated, field, b)


class MinBy(_Reducer):
    def reduce(self, accumulated, value):
        return accumulated if _get(accumulated, self.field) <= _get(value, self.field) else value


class MaxBy(_Reducer):
    def reduce(self, accumulated, value):
        return accumulated if _get(accumulated, self.field) >= _get(value, self.field) else value


REDUCERS = {"sum": Sum, "min": Min, "max": Max, "min_by": MinBy, "max_by": MaxBy}


def rolling_reducer(kind: str, field):
    return REDUCERS[kind](field)
