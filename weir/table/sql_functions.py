"""Flink SQL's built-in function calls as sqlglot reads them (typed nodes such as
`exp.Floor`, `exp.StrPosition`, `exp.Pad`) turned into weir's built-in calls
(weir.table.scalar_builtins). `function_call(expressions, node)` is the call, or None
where the node is no function of this table."""

from sqlglot import exp

from weir.table import expressions as e

# sqlglot's node name: (Flink's function, the node's arguments in the function's order)
_CALLS = {
    "Pow": ("POWER", ("this", "expression")),
    "Sqrt": ("SQRT", ("this",)),
    "Ln": ("LN", ("this",)),
    "Exp": ("EXP", ("this",)),
    "Sign": ("SIGN", ("this",)),
    "Trunc": ("TRUNCATE", ("this", "decimals")),
    "Truncate": ("TRUNCATE", ("this", "decimals")),
    "Pi": ("PI", ()),
    "Initcap": ("INITCAP", ("this",)),
    "Repeat": ("REPEAT", ("this", "times")),
    "Reverse": ("REVERSE", ("this",)),
    "Left": ("LEFT", ("this", "expression")),
    "Right": ("RIGHT", ("this", "expression")),
    "RegexpReplace": ("REGEXP_REPLACE", ("this", "expression", "replacement")),
    "RegexpLike": ("REGEXP", ("this", "expression")),
    "MD5": ("MD5", ("this",)),
    "SHA": ("SHA1", ("this",)),
    "SHA2": ("SHA2", ("this", "length")),
    "SHA2Digest": ("SHA256", ("this",)),
    "ToBase64": ("TO_BASE64", ("this",)),
    "FromBase64": ("FROM_BASE64", ("this",)),
    "Ascii": ("ASCII", ("this",)),
    "StartsWith": ("STARTS_WITH", ("this", "expression")),
    "EndsWith": ("ENDS_WITH", ("this", "expression")),
    "Overlay": ("OVERLAY", ("this", "expression", "from_", "for_")),
    "StrToDate": ("TO_DATE", ("this", "format")),
    "DayOfWeek": ("DAYOFWEEK", ("this",)),
    "DayOfYear": ("DAYOFYEAR", ("this",)),
    "Week": ("WEEK", ("this",)),
    "Quarter": ("QUARTER", ("this",)),
    "Nullif": ("NULLIF", ("this", "expression")),
    "CurrentDate": ("CURRENT_DATE", ()),
    "CurrentTimestamp": ("CURRENT_TIMESTAMP", ()),
    "Localtimestamp": ("LOCALTIMESTAMP", ()),
}


def function_call(expressions, node):
    """`node` as a built-in call (converting its arguments with `expressions`), or None."""
    name = type(node).__name__
    special = _SPECIAL.get(name)
    if special is not None:
        return special(expressions, node)
    if name not in _CALLS:
        return None
    function, keys = _CALLS[name]
    args = [node.args.get(key) for key in keys]
    while args and args[-1] is None:
        args.pop()
    return _call(function, expressions, args)


def _call(function, expressions, args):
    return e.Expression("builtin", function, tuple(expressions.convert(a) for a in args))


def _rounding(function):
    def convert(expressions, node):
        unit = node.args.get("to")
        if unit is None:
            return _call(function, expressions, [node.this])
        return e.Expression(
            f"{function.lower()}_to", expressions.convert(node.this), unit.name.upper()
        )

    return convert


def _pad(expressions, node):
    function = "LPAD" if node.args.get("is_left") else "RPAD"
    return _call(function, expressions, [node.this, node.expression, node.args.get("fill_pattern")])


def _trim(expressions, node):
    where = str(node.args.get("position") or "BOTH").upper()
    function = {"LEADING": "LTRIM", "TRAILING": "RTRIM"}.get(where, "BTRIM")
    characters = node.args.get("expression")
    return _call(
        function, expressions, [node.this] + ([characters] if characters is not None else [])
    )


def _position(expressions, node):
    args = [node.args["substr"], node.this]
    if node.args.get("position") is not None:
        args.append(node.args["position"])
    return _call("POSITION", expressions, args)


def _listed(function):
    def convert(expressions, node):
        first = [node.this] if node.this is not None and not isinstance(node.this, str) else []
        return _call(function, expressions, first + list(node.expressions))

    return convert


def _log(expressions, node):
    """LOG(x), LOG(b, x); sqlglot reads LOG10(x) and LOG2(x) as LOG(10, x), LOG(2, x)."""
    base, value = node.this, node.args.get("expression")
    if value is None:
        return _call("LN", expressions, [base])
    if isinstance(base, exp.Literal) and base.name in ("10", "2"):
        return _call(f"LOG{base.name}", expressions, [value])
    return _call("LOG", expressions, [base, value])


def _regexp(expressions, node):
    """REGEXP(text, pattern), which sqlglot reads as ~ of a pair."""
    if isinstance(node.this, exp.Tuple) and len(node.this.expressions) == 2:
        return _call("REGEXP", expressions, node.this.expressions)
    return None


def _extract(expressions, node):
    unit = node.this.name.upper()
    return e.Expression("builtin", "EXTRACT", (e.lit(unit), expressions.convert(node.expression)))


_SPECIAL = {
    "Floor": _rounding("FLOOR"),
    "Ceil": _rounding("CEIL"),
    "Pad": _pad,
    "Trim": _trim,
    "StrPosition": _position,
    "ConcatWs": _listed("CONCAT_WS"),
    "Chr": _listed("CHR"),
    "Greatest": _listed("GREATEST"),
    "Least": _listed("LEAST"),
    "Extract": _extract,
    "Log": _log,
    "BitwiseNot": _regexp,
}

__all__ = ["function_call", "exp"]
