"""Accumulators of the aggregate functions: Flink's built-ins (COUNT, SUM, SUM0, MIN,
MAX, AVG) with retraction, and Python AggregateFunctions. An accumulator is a plain
picklable value kept in keyed state; `accumulate`/`retract` return the new one (they may
change the one given in place)."""

from typing import Optional

from weir.table.casts import float32, java_wrap
from weir.table.evaluate import Column, compile_expression
from weir.table.types import DataTypes


class Accumulator:
    def __init__(self, arguments):
        self.arguments = arguments  # functions of the row's values

    def create(self):
        raise NotImplementedError

    def _args(self, values):
        return [a(values) for a in self.arguments]


class Count(Accumulator):
    """COUNT(x): rows where x is not NULL (COUNT(*) and COUNT(1): every row)."""

    def create(self):
        return 0

    def accumulate(self, acc, values):
        return acc + (all(v is not None for v in self._args(values)))

    def retract(self, acc, values):
        return acc - (all(v is not None for v in self._args(values)))

    def merge(self, acc, other):
        return acc + other

    def value(self, acc):
        return acc


class Sum(Accumulator):
    """SUM(x): NULL over no non-NULL value (SUM0: 0)."""

    zero_if_empty = False
    single = False  # a FLOAT sum: each addition rounds to single precision, as Java's
    bits: Optional[int] = None  # an integer sum: wraps around at this width, as Java's

    def _wrapped(self, total):
        return total if self.bits is None else java_wrap(total, self.bits)

    def create(self):
        return (0, 0)

    def _add(self, a, b):
        return float32(a + b) if self.single else a + b

    def accumulate(self, acc, values):
        (x,) = self._args(values)
        return acc if x is None else (self._add(acc[0], x), acc[1] + 1)

    def retract(self, acc, values):
        (x,) = self._args(values)
        return acc if x is None else (self._add(acc[0], -x), acc[1] - 1)

    def merge(self, acc, other):
        return (self._add(acc[0], other[0]), acc[1] + other[1])

    def value(self, acc):
        return self._wrapped(acc[0]) if acc[1] or self.zero_if_empty else None


class Sum0(Sum):
    zero_if_empty = True


class Avg(Sum):
    """AVG(x): of an integer type, the quotient truncated of a BIGINT sum (Flink's)."""

    def value(self, acc):
        total, count = acc
        if not count:
            return None
        if isinstance(total, int):
            total = self._wrapped(total)
            quotient = abs(total) // count
            return quotient if total >= 0 else -quotient
        return total / count


class Extreme(Accumulator):
    """MIN(x) / MAX(x) with retraction: the values seen and how often."""

    pick = max

    def create(self):
        return {}

    def accumulate(self, acc, values):
        (x,) = self._args(values)
        if x is not None:
            acc[x] = acc.get(x, 0) + 1  # (in place: a copy per row made COUNT DISTINCT
        return acc  # quadratic in a group's distinct values)

    def retract(self, acc, values):
        (x,) = self._args(values)
        if x is not None and x in acc:
            acc[x] -= 1
            if not acc[x]:
                del acc[x]
        return acc

    def merge(self, acc, other):
        merged = dict(acc)
        for value, count in other.items():
            merged[value] = merged.get(value, 0) + count
        return merged

    def value(self, acc):
        return type(self).pick(acc) if acc else None


class Max(Extreme):
    pick = max


class Min(Extreme):
    pick = min


class PythonAggregate(Accumulator):
    """A Python AggregateFunction: create_accumulator, accumulate, retract, get_value."""

    def __init__(self, arguments, function):
        super().__init__(arguments)
        self.function = function

    def create(self):
        return self.function.create_accumulator()

    def accumulate(self, acc, values):
        self.function.accumulate(acc, *self._args(values))
        return acc

    def retract(self, acc, values):
        if not hasattr(self.function, "retract"):
            raise NotImplementedError(
                f"{type(self.function).__name__} gets a retraction (its input is a "
                "changelog) and has no retract(accumulator, ...) method"
            )
        self.function.retract(acc, *self._args(values))
        return acc

    def merge(self, acc, other):
        self.function.merge(acc, [other])
        return acc

    def value(self, acc):
        return self.function.get_value(acc)


class PandasAggregate(Accumulator):
    """A pandas aggregate function (udaf(func_type='pandas')): called once with a pandas
    Series per argument of the group's (or window's) values; FLOAT arguments are
    single-precision Series, as PyFlink's."""

    def __init__(self, arguments, function, argument_types, result_type):
        super().__init__(arguments)
        self.function, self.result_type = function, result_type
        self.dtypes = ["float32" if t.name == "FLOAT" else None for t in argument_types]

    def create(self):
        return []

    def accumulate(self, acc, values):
        return acc + [tuple(self._args(values))]

    def retract(self, acc, values):
        acc = list(acc)
        acc.remove(tuple(self._args(values)))
        return acc

    def merge(self, acc, other):
        return acc + other

    def value(self, acc):
        import pandas

        columns = list(zip(*acc)) if acc else [() for _ in self.dtypes]
        series = [pandas.Series(list(c), dtype=d) for c, d in zip(columns, self.dtypes)]
        result = self.function(*series)
        item = getattr(result, "item", None)
        result = item() if callable(item) else result
        return float32(result) if self.result_type.name == "FLOAT" else result


class CountDistinct(Extreme):
    """COUNT(DISTINCT x): the distinct non-NULL values (kept with their counts, for
    retraction)."""

    def value(self, acc):
        return len(acc)


class Filtered(Accumulator):
    """agg FILTER (WHERE condition): `inner` over the rows where the condition holds."""

    def __init__(self, inner, condition):
        super().__init__([])
        self.inner, self.condition = inner, condition

    def create(self):
        return self.inner.create()

    def accumulate(self, acc, values):
        return self.inner.accumulate(acc, values) if self.condition(values) is True else acc

    def retract(self, acc, values):
        return self.inner.retract(acc, values) if self.condition(values) is True else acc

    def merge(self, acc, other):
        return self.inner.merge(acc, other)

    def value(self, acc):
        return self.inner.value(acc)


BUILT_INS = {
    "count_distinct": CountDistinct,
    "count": Count,
    "count_star": Count,
    "sum": Sum,
    "sum0": Sum0,
    "avg": Avg,
    "max": Max,
    "min": Min,
}


def result_type(name: str, argument_types):
    from weir.table import statistic_aggregates

    if name in statistic_aggregates.BUILT_INS:
        return statistic_aggregates.result_type(name, argument_types)
    if name in ("count", "count_star", "count_distinct"):
        return DataTypes.BIGINT(False)
    data_type = argument_types[0]
    if name in ("sum", "sum0") and data_type.name == "DECIMAL":  # Flink's: DECIMAL(38, s)
        data_type = DataTypes.DECIMAL(38, data_type.scale)
    return data_type.not_null() if name == "sum0" else data_type.nullable()


class _OncePerRow:
    """A FILTER condition that several aggregate calls share, evaluated once per row."""

    def __init__(self, function):
        self.function, self.row, self.result = function, None, None

    def __call__(self, values):
        if values is not self.row:
            self.row, self.result = values, self.function(values)
        return self.result

    def __getstate__(self):
        return {"function": self.function, "row": None, "result": None}


def accumulators_of(calls, columns) -> list:
    """The Accumulators of an aggregation's calls over `columns`."""
    conditions: dict = {}
    return [accumulator_of(call, columns, conditions)[0] for call in calls]


def accumulator_of(call, columns, conditions=None):
    """(Accumulator, result type) of an aggregate call over `columns`; `conditions`
    shares the FILTER conditions of one aggregation's calls."""
    name, args = call
    if name == "agg_filter":
        inner_call, condition = args
        inner, data_type = accumulator_of(inner_call, columns)
        shared = {} if conditions is None else conditions
        if repr(condition) not in shared:
            shared[repr(condition)] = _OncePerRow(compile_expression(condition, columns).function)
        return Filtered(inner, shared[repr(condition)]), data_type
    compiled = [compile_expression(a, columns) for a in args]
    functions = [c.function for c in compiled]
    if isinstance(name, str):
        from weir.table.statistic_aggregates import BUILT_INS as MORE

        accumulator = {**BUILT_INS, **MORE}[name](functions)
        if hasattr(accumulator, "integral"):  # (a variance of an integer type)
            accumulator.integral = compiled[0].data_type.name in (
                "TINYINT",
                "SMALLINT",
                "INT",
                "BIGINT",
            )
        if isinstance(accumulator, Sum) and compiled[0].data_type.name == "FLOAT":
            accumulator.single = True
        if isinstance(accumulator, Sum) and compiled[0].data_type.bits:
            accumulator.bits = 64 if isinstance(accumulator, Avg) else compiled[0].data_type.bits
        return accumulator, result_type(name, [c.data_type for c in compiled])
    if name.func_type == "pandas":
        return PandasAggregate(
            functions, name.function, [c.data_type for c in compiled], name.result_type
        ), name.result_type
    return PythonAggregate(functions, name.function), name.result_type


__all__ = ["accumulator_of", "accumulators_of", "Column"]
