"""Python functions in the Table API and SQL (PyFlink's `pyflink.table.udf`): scalar
functions (`udf`), table functions (`udtf`), aggregate functions (`udaf`) and table
aggregate functions (`udtaf`), as decorators or wrapping a function object.

A wrapped function is called on expressions to make an expression (`split(col('line'))`),
or given whole to `Table.map`, `flat_map`, `aggregate`, `flat_aggregate` and
`join_lateral`, which call it on a Row of the table's columns.
"""

import asyncio
import functools
import inspect

from weir.table.expressions import Expression, _expr


class UserDefinedFunction:
    """The base of PyFlink's function classes: open/close around the calls."""

    def open(self, function_context):
        pass

    def close(self):
        pass

    def is_deterministic(self) -> bool:
        return True


class ScalarFunction(UserDefinedFunction):
    def eval(self, *args):
        raise NotImplementedError("a ScalarFunction defines eval(...)")


class AsyncScalarFunction(UserDefinedFunction):
    """A scalar function whose eval is a coroutine (`async def eval`)."""

    async def eval(self, *args):
        raise NotImplementedError("an AsyncScalarFunction defines async eval(...)")


class FunctionContext:
    """What open() gets."""

    def get_job_parameter(self, key, default_value=None):
        return default_value


class TableFunction(UserDefinedFunction):
    def eval(self, *args):
        raise NotImplementedError("a TableFunction defines eval(...)")


class AggregateFunction(UserDefinedFunction):
    """Flink's AggregateFunction: create_accumulator, accumulate, get_value; retract and
    merge where the query needs them."""

    def get_accumulator_type(self):
        return None

    def get_result_type(self):
        return None


class TableAggregateFunction(AggregateFunction):
    """An aggregate that emits rows (emit_value yields them)."""


class PythonFunction:
    """A wrapped user function: `kind` is scalar, table, aggregate or table_aggregate."""

    def __init__(
        self,
        kind,
        function,
        result_type,
        names=None,
        accumulator_type=None,
        func_type="general",
        name=None,
    ):
        self.kind = kind
        self.function = function
        self.result_type = result_type
        self.names = names
        self.accumulator_type = accumulator_type
        self.func_type = func_type
        self.name = name or getattr(function, "__name__", type(function).__name__)

    def __call__(self, *args) -> Expression:
        return Expression("call", self, tuple(_expr(a) for a in args))

    def alias(self, *names) -> "PythonFunction":
        copy = PythonFunction(
            self.kind,
            self.function,
            self.result_type,
            list(names),
            self.accumulator_type,
            self.func_type,
            self.name,
        )
        return copy

    def evaluator(self):
        """A plain function of the arguments (scalar and table functions): a function
        object is opened first; a coroutine function runs to its result on an event loop
        of its own."""
        function = self.function
        if isinstance(function, UserDefinedFunction):
            function.open(FunctionContext())
            function = function.eval  # type: ignore[attr-defined]  # (Scalar/TableFunction's)
        if inspect.iscoroutinefunction(function):
            return _Awaiting(function)
        if self.func_type == "pandas":
            return _PandasScalar(function)
        return function


class _PandasScalar:
    """A pandas scalar function (udf(func_type='pandas')) called per row with a Series
    of one value per argument (PyFlink calls it per Arrow batch: the same results for a
    function whose rows' results are of their own values, as PyFlink requires)."""

    def __init__(self, function):
        self.function = function

    def __call__(self, *args):
        import pandas

        result = self.function(*(pandas.Series([a]) for a in args))
        if isinstance(result, (pandas.Series, pandas.Index)):
            if len(result) != 1:
                raise ValueError(
                    f"the pandas function {self.function.__name__} returned "
                    f"{len(result)} values for 1 row: it must return one "
                    "value per row of its arguments"
                )
            result = result.iloc[0] if isinstance(result, pandas.Series) else result[0]
        if isinstance(result, pandas.Timestamp):
            return result.to_pydatetime()
        if result is pandas.NaT or (isinstance(result, float) and result != result):
            return None  # (pandas' missing values are SQL's NULL)
        item = getattr(result, "item", None)
        return item() if callable(item) else result


class _Awaiting:
    def __init__(self, function):
        self.function = function
        self.loop = None

    def __call__(self, *args):
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
        return self.loop.run_until_complete(self.function(*args))

    def __getstate__(self):
        return {"function": self.function, "loop": None}


def _type(data_type):
    """A DataType, also from its SQL name ('string', 'BIGINT')."""
    if isinstance(data_type, str):
        from weir.table.sql_types import parse_type

        return parse_type(data_type)
    return data_type


def _wrap(kind, f, **kwargs):
    if "result_type" in kwargs:
        result = kwargs["result_type"]
        kwargs["result_type"] = (
            [_type(t) for t in result] if isinstance(result, list) else _type(result)
        )
    if f is None:
        return functools.partial(_wrap, kind, **kwargs)
    return PythonFunction(kind, f, **kwargs)


def udf(
    f=None,
    input_types=None,
    result_type=None,
    deterministic=None,
    name=None,
    func_type="general",
    udf_type=None,
):
    """A scalar Python function: `@udf(result_type=DataTypes.BIGINT())`."""
    if result_type is None:
        raise ValueError("udf() needs its result_type")
    return _wrap("scalar", f, result_type=result_type, func_type=udf_type or func_type, name=name)


def udtf(f=None, input_types=None, result_types=None, deterministic=None, name=None):
    """A table function yielding rows: `@udtf(result_types=[DataTypes.STRING()])`."""
    if result_types is None:
        raise ValueError("udtf() needs its result_types")
    types = result_types if isinstance(result_types, (list, tuple)) else [result_types]
    return _wrap("table", f, result_type=list(types), name=name)


def udaf(
    f=None,
    input_types=None,
    result_type=None,
    accumulator_type=None,
    deterministic=None,
    name=None,
    func_type="general",
):
    """An aggregate function: an AggregateFunction, or (func_type='pandas') a function
    of pandas Series."""
    if f is not None and not isinstance(f, AggregateFunction) and func_type != "pandas":
        raise TypeError("udaf() takes an AggregateFunction (or func_type='pandas')")
    result = result_type or (f.get_result_type() if isinstance(f, AggregateFunction) else None)
    accumulator = accumulator_type or (
        f.get_accumulator_type() if isinstance(f, AggregateFunction) else None
    )
    return _wrap(
        "aggregate",
        f,
        result_type=result,
        accumulator_type=accumulator,
        func_type=func_type,
        name=name,
    )


def udtaf(
    f=None,
    input_types=None,
    result_type=None,
    accumulator_type=None,
    deterministic=None,
    name=None,
    func_type="general",
):
    """A table aggregate function (a TableAggregateFunction)."""
    if f is not None and not isinstance(f, TableAggregateFunction):
        raise TypeError("udtaf() takes a TableAggregateFunction")
    result = result_type or (f.get_result_type() if f is not None else None)
    return _wrap("table_aggregate", f, result_type=result, name=name)
