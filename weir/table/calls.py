"""Calls in expressions, compiled (weir.table.evaluate's handlers): a built-in function
(weir.table.builtins, weir.table.scalar_builtins), FLOOR/CEIL of a time TO a unit, and
a Python scalar function, whose result is made what PyFlink's coders make of it."""

import decimal

from weir.table import evaluate


def builtin_call(expr, columns):
    from weir.table.builtins import FUNCTIONS
    from weir.table.scalar_builtins import NULL_TAKING

    name, args = expr.args
    function, data_type = FUNCTIONS[name]
    parts = [evaluate.compile_expression(a, columns) for a in args]
    if getattr(data_type, "takes_literals", False):
        data_type = data_type(
            [p.data_type for p in parts], [a.args[0] if a.op == "lit" else None for a in args]
        )
    elif callable(data_type):
        data_type = data_type([p.data_type for p in parts])
    functions = [p.function for p in parts]
    run = (
        (lambda values: function(*(f(values) for f in functions)))
        if name in NULL_TAKING
        else evaluate._null_safe(function, *functions)
    )
    data_type = data_type or parts[0].data_type
    if data_type.name == "DECIMAL" and name != "ROUND":  # (at its type's scale: 1.000)
        run = evaluate._null_safe(_at_scale(data_type.scale), run)
    return evaluate.Compiled(run, data_type, None)


def _at_scale(scale):
    exponent = decimal.Decimal(1).scaleb(-scale)
    return lambda value: (
        value.quantize(exponent, decimal.ROUND_DOWN)
        if isinstance(value, decimal.Decimal)
        else value
    )


def floor_to_call(expr, columns):
    """FLOOR/CEIL(a timestamp or a date TO a unit), of the argument's type."""
    from weir.table.scalar_builtins import floor_to

    inner = evaluate.compile_expression(expr.args[0], columns)
    function = floor_to(expr.args[1], expr.op == "ceil_to")
    return evaluate.Compiled(evaluate._null_safe(function, inner.function), inner.data_type, None)


def function_call(expr, columns):
    function, args = expr.args
    if isinstance(function, str):
        evaluate.not_supported(f"calling the function '{function}' by name")
    if function.kind != "scalar":
        raise ValueError(
            f"'{function.name}' is a {function.kind} function; only scalar "
            "functions are called in expressions"
        )
    parts = [evaluate.compile_expression(a, columns).function for a in args]
    run = function.evaluator()
    result_type = function.result_type
    coerce = _coercer(result_type)
    if coerce is not None:
        return evaluate.Compiled(
            lambda values: coerce(run(*(p(values) for p in parts))), result_type, None
        )
    return evaluate.Compiled(lambda values: run(*(p(values) for p in parts)), result_type, None)


def _coercer(data_type):
    """What makes a Python function's result of `data_type` what PyFlink's coders make
    of it (an integer result of a DOUBLE as a float, in a ROW's fields too), or None."""
    name = getattr(data_type, "name", None)
    if name in ("DOUBLE", "FLOAT"):
        return _floating
    if name == "ROW" and data_type.fields:
        inner = [_coercer(f.data_type) for f in data_type.fields]
        if any(inner):
            return lambda value: _row_coerced(value, inner)
    return None


def _floating(value):
    return float(value) if type(value) is int else value


def _row_coerced(value, coercers):
    from weir.common.row import Row

    if value is None:
        return None
    items = [c(x) if c is not None and x is not None else x for c, x in zip(coercers, value)]
    if isinstance(value, Row):
        fields = value._fields
        row = Row(**dict(zip(fields, items))) if fields else Row(*items)
        row.set_row_kind(value.get_row_kind())
        return row
    return tuple(items) if isinstance(value, tuple) else items
