"""More of Flink's built-in aggregate functions, with retraction: STDDEV_POP,
STDDEV_SAMP, VAR_POP, VAR_SAMP (Welford's running mean and squared differences, of an
integer argument truncated to its type), FIRST_VALUE and LAST_VALUE (the
first and last non-NULL value to arrive), LISTAGG (non-NULL texts joined, ',' unless a
separator is given) and ARRAY_AGG (every value, NULLs too, in arrival order). Results
checked against PyFlink 2.3 (tests/table_programs/sql_aggregate_functions.py)."""

from weir.table.aggregates import Accumulator
from weir.table.types import DataTypes


class Variance(Accumulator):
    """(count, mean, sum of squared differences from the mean) of the non-NULL values,
    updated per value as Welford's algorithm does (Flink's results, to the last digit);
    of an integer type, computed as a DOUBLE and truncated."""

    sample = False
    root = False
    integral = False  # (set for an integer argument)

    def create(self):
        return (0, 0.0, 0.0)

    def accumulate(self, acc, values):
        (x,) = self._args(values)
        if x is None:
            return acc
        count, mean, squares = acc
        count += 1
        delta = x - mean
        mean += delta / count
        return count, mean, squares + delta * (x - mean)

    def retract(self, acc, values):
        (x,) = self._args(values)
        if x is None:
            return acc
        count, mean, squares = acc
        if count <= 1:
            return self.create()
        previous = (mean * count - x) / (count - 1)
        return count - 1, previous, squares - (x - previous) * (x - mean)

    def merge(self, acc, other):
        (n1, mean1, m1), (n2, mean2, m2) = acc, other
        if not n1 or not n2:
            return acc if n1 else other
        count = n1 + n2
        delta = mean2 - mean1
        return count, mean1 + delta * n2 / count, m1 + m2 + delta * delta * n1 * n2 / count

    def value(self, acc):
        count, _, squares = acc
        divisor = count - 1 if self.sample else count
        if count == 0 or divisor == 0:
            return None
        variance = squares / divisor
        result = variance**0.5 if self.root else variance
        return int(result) if self.integral else result


class VarPop(Variance):
    pass


class VarSamp(Variance):
    sample = True


class StddevPop(Variance):
    root = True


class StddevSamp(Variance):
    sample = root = True


class _Arrivals(Accumulator):
    """The values in arrival order (a retraction takes the latest equal one back)."""

    keeps_nulls = False

    def create(self):
        return []

    def accumulate(self, acc, values):
        x = self._args(values)[0]
        if x is not None or self.keeps_nulls:
            acc.append(x)
        return acc

    def retract(self, acc, values):
        x = self._args(values)[0]
        for index in range(len(acc) - 1, -1, -1):
            if acc[index] == x:
                del acc[index]
                break
        return acc

    def merge(self, acc, other):
        return acc + other


class FirstValue(_Arrivals):
    def value(self, acc):
        return acc[0] if acc else None


class LastValue(_Arrivals):
    def value(self, acc):
        return acc[-1] if acc else None


class ListAgg(_Arrivals):
    def value(self, acc):
        if not acc:
            return None
        separator = self.arguments[1](()) if len(self.arguments) > 1 else ","
        return separator.join(acc)


class ArrayAgg(_Arrivals):
    keeps_nulls = True

    def value(self, acc):
        return list(acc) if acc else None


BUILT_INS = {
    "var_pop": VarPop,
    "var_samp": VarSamp,
    "stddev_pop": StddevPop,
    "stddev_samp": StddevSamp,
    "first_value": FirstValue,
    "last_value": LastValue,
    "list_agg": ListAgg,
    "array_agg": ArrayAgg,
}


def result_type(name, argument_types):
    data_type = argument_types[0]
    if name == "list_agg":
        return DataTypes.STRING()
    if name == "array_agg":
        return DataTypes.ARRAY(data_type)
    return data_type.nullable()
