"""What a SESSION window aggregation by its PARTITION BY keys aggregates when
projections and filters stand between its window table function and its GROUP BY: as
Flink plans it, they apply to the table's rows before the rows are put in sessions (a
row filtered out does not extend or join a session). So the projections and filters are
moved below the sessions, window columns passed on by name (window_start, window_end,
window_time) left to the window, and the time attribute carried for it. (Grouped by
other keys, the sessions' rows come first and the filters apply to them, as in Flink:
nothing is moved.)"""

from weir.table import logical
from weir.table.evaluate import not_supported
from weir.table.expressions import col

WINDOW_NAMES = ("window_start", "window_end", "window_time")


def session_tvf(node):
    """The SESSION window table function under `node`'s projections and filters, or
    None where `node`'s window columns are not a SESSION's."""
    from weir.table.window_tvf import tvf_below

    below = tvf_below(node)
    return below if below is not None and below.kind == "session" else None


def session_of(node):
    """(the SESSION window table function under `node`, the rows it windows: `node`'s
    projections and filters moved below it, the name of the time attribute there), or
    None where `node`'s window columns are not a SESSION's."""
    below = session_tvf(node)
    if below is None:
        return None
    calcs, above = [], node
    while above is not below:
        calcs.append(above)
        above = above.input
    rows, time = below.input, below.time_column
    for calc in reversed(calcs):
        rows, time = _moved_below(calc, rows, time)
    return below, rows, time


def _moved_below(calc, rows, time):
    """`calc` over `rows` without the window columns it passes on; the time attribute
    carried (as `time`, or a hidden name where `calc` names another column so)."""
    kept = []
    for column, expr in zip(calc.columns, calc.projections):
        names = _columns_of(expr)
        if column.name in WINDOW_NAMES and logical.passed_column(expr) == column.name:
            continue  # (the window's, passed on: the session gives it)
        if names & set(WINDOW_NAMES):
            not_supported(
                f"'{column.name}' computed from a SESSION window's columns "
                "before its window aggregation"
            )
        kept.append(expr)
    if calc.condition is not None and _columns_of(calc.condition) & set(WINDOW_NAMES):
        not_supported("a WHERE on a SESSION window's columns before its window aggregation")
    outputs = {c.name: e for c, e in zip(calc.columns, calc.projections)}
    if time not in outputs:
        kept.append(col(time))
    elif logical.passed_column(outputs[time]) != time:
        kept.append(col(time).alias("$session_time"))
        time = "$session_time"
    return logical.project(rows, kept, calc.condition), time


def _columns_of(expr) -> set:
    if not hasattr(expr, "op"):
        return set()
    if expr.op == "col":
        return {expr.args[0]}
    found = set()
    for arg in expr.args:
        for part in arg if isinstance(arg, tuple) else (arg,):
            found |= _columns_of(part)
    return found
