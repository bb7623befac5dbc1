"""MATCH_RECOGNIZE: row pattern recognition in SQL, run by weir's CEP (weir.cep) as
Flink's planner runs it on FlinkCEP.

- PARTITION BY keys the pattern's operator (none: one operator for the whole table);
  ORDER BY names the time attribute first, ascending (event time: rows are matched in
  time order once the watermark passes them, late rows dropped; processing time: as they
  arrive), then other columns to order rows of one time;
- PATTERN: variables in sequence with strict contiguity (`next`), each with an optional
  quantifier (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`), greedy unless followed by `?`;
  loops are consecutive. WITHIN bounds a match's time from its first row to its last;
- DEFINE: each variable's condition (a variable without one takes any row); MEASURES:
  the output's columns (weir.table.match_expressions); ONE ROW PER MATCH;
- AFTER MATCH SKIP TO NEXT ROW (the default), PAST LAST ROW, TO FIRST / TO LAST var.

The output is insert-only: the partition columns, then the measures.
Flink's limits are kept, with its errors: no pattern groups, alternation, PERMUTE,
exclusion or anchors, no greedy quantifier last, no reluctant optional, no pattern
that can match nothing, no ALL ROWS PER MATCH, no PREV/NEXT.
"""

import re

from sqlglot import exp

from weir.cep import CEP, AfterMatchSkipStrategy, Duration, IterativeCondition, Pattern
from weir.cep import PatternProcessFunction
from weir.table import logical
from weir.table.changelog import INSERT
from weir.table.evaluate import Column, not_supported
from weir.table.match_expressions import MatchExpressions
from weir.table.sort import compare


class MatchRecognize(logical.UnaryNode):
    """The partition columns and the measures of each match of `input`; `pattern` the
    CEP pattern of its PATTERN, DEFINE, AFTER MATCH SKIP and WITHIN."""

    def __init__(
        self, columns, input, partition, variables, pattern, measures, processing_time, order
    ):
        super().__init__(columns, input)
        self.partition, self.variables, self.pattern = partition, variables, pattern
        self.measures, self.processing_time, self.order = measures, processing_time, order

    def describe(self):
        keys = ", ".join(c.name for c in self.columns[: len(self.partition)])
        measures = ", ".join(c.name for c in self.columns[len(self.partition) :])
        pattern = " ".join(f"{name}{text}" for name, text, *_ in self.variables)
        return f"Match(partitionBy=[{keys}], pattern=[{pattern}], measures=[{measures}])"


# -- PATTERN ------------------------------------------------------------------------------
_TOKEN = re.compile(
    r"\s*(?:(?P<name>[A-Za-z_][A-Za-z_0-9]*|`[^`]+`)"
    r"(?P<quantifier>\*|\+|\?|\{\s*\d*\s*(?:,\s*\d*\s*)?\})?(?P<reluctant>\?)?"
    r"|(?P<other>\S))"
)


def parse_pattern(text):
    """[(name, quantifier text, low, high (-1: no bound), greedy)] of a PATTERN."""
    variables = []
    for match in _TOKEN.finditer(text.strip()):
        if match.group("other"):
            _unsupported_pattern(match.group("other"), text)
        name = match.group("name").strip("`")
        if name.upper() == "PERMUTE":
            raise NotImplementedError(
                f"Expression not supported: {text}. Currently, CEP "
                "doesn't support PERMUTE patterns."
            )
        low, high = _bounds(match.group("quantifier"))
        variables.append(
            (
                name,
                (match.group("quantifier") or "") + (match.group("reluctant") or ""),
                low,
                high,
                not match.group("reluctant"),
            )
        )
    return variables


def _unsupported_pattern(symbol, text):
    what = {
        "(": "Group patterns are not supported yet.",
        "|": "Currently, CEP doesn't support branching patterns.",
        "{": "Currently, CEP doesn't support '{-' '-}' patterns.",
        "^": "Anchors (^, $) are not supported.",
        "$": "Anchors (^, $) are not supported.",
    }
    raise NotImplementedError(
        f"Expression not supported: {text}. "
        f"{what.get(symbol, f'Unexpected {symbol!r} in the pattern.')}"
    )


def _bounds(quantifier):
    if not quantifier:
        return 1, 1
    if quantifier in ("*", "+", "?"):
        return {"*": (0, -1), "+": (1, -1), "?": (0, 1)}[quantifier]
    inner = quantifier[1:-1].replace(" ", "")
    if "," not in inner:
        return int(inner), int(inner)
    low, high = inner.split(",")
    return int(low) if low else -1, int(high) if high else -1


def build_pattern(variables, conditions, skip, within_ms) -> Pattern:
    """Flink's translation of a PATTERN to CEP: `next` between variables, quantifiers
    as consecutive loops, greedy where the quantifier is and it has a choice."""
    pattern = None
    for name, _, low, high, greedy in variables:
        pattern = Pattern.begin(name, skip) if pattern is None else pattern.next(name)
        pattern = pattern.where(conditions.get(name, _any_row))
        if (low, high) != (1, 1):
            pattern = _quantified(pattern, low, high, greedy)
    if all(low == 0 for _, _, low, _, _ in variables):
        raise NotImplementedError(
            "Patterns that can produce empty matches are not "
            "supported. There must be at least one non-optional state."
        )
    _, _, low, high, greedy = variables[-1]
    if greedy and high != low and not (low == 0 and high == 1):
        raise NotImplementedError(
            "Greedy quantifiers are not allowed as the last element "
            "of a Pattern yet. Finish your pattern with either a "
            "simple variable or reluctant quantifier."
        )
    assert pattern is not None  # (there are variables: variables[-1])
    return pattern if within_ms is None else pattern.within(Duration.of_millis(within_ms))


def _quantified(pattern, low, high, greedy):
    optional = low == 0 and high == 1
    if low < 0 or (low == 0 and high not in (-1, 1)):
        raise ValueError("The from should be a positive number greater than 0.")
    if (low, high) == (0, -1):
        pattern = pattern.one_or_more().optional().consecutive()
    elif high == -1:
        pattern = pattern.times_or_more(low).consecutive()
    elif optional:
        pattern = pattern.optional()
    else:
        pattern = pattern.times(low, high).consecutive()
    if greedy and not optional and low != high:
        return pattern.greedy()
    if not greedy and optional:
        raise NotImplementedError("Reluctant optional variables are not supported yet.")
    return pattern


def _any_row(value, ctx) -> bool:  # noqa: ARG001
    return True


def skip_strategy(after, variables):
    text = " ".join((after.name if after is not None else "").upper().split())
    if text in ("", "AFTER MATCH SKIP TO NEXT ROW"):
        return AfterMatchSkipStrategy.skip_to_next()
    if text == "AFTER MATCH SKIP PAST LAST ROW":
        return AfterMatchSkipStrategy.skip_past_last_event()
    for kind, build in (
        ("FIRST", AfterMatchSkipStrategy.skip_to_first),
        ("LAST", AfterMatchSkipStrategy.skip_to_last),
    ):
        prefix = f"AFTER MATCH SKIP TO {kind} "
        if text.startswith(prefix):
            name = variables.get(text[len(prefix) :].strip("`"))
            if name is None:
                raise ValueError(f"Unknown pattern variable in '{after.name}'")
            # (skip_to_first/last's strategies have it, as Java's SkipToFirstStrategy)
            return build(name).throw_exception_on_miss()  # type: ignore[attr-defined]
    not_supported(f"'{after.name}'")


# -- the operator's functions ----------------------------------------------------------------
def _values(events_of, names, variable) -> list:
    """The values of the rows mapped to `variable` (None: to any, in pattern order), of
    records (kind, values) that `events_of(name)` gives."""
    return [
        record[1]
        for name in (names if variable is None else (variable,))
        for record in events_of(name)
    ]


class DefineCondition(IterativeCondition):
    """A variable's DEFINE: its expression over the partial match and the row tried."""

    def __init__(self, variable, names, expression):
        self.variable, self.names, self.expression = variable, names, expression

    def filter(self, value, ctx) -> bool:
        def rows_of(variable):
            rows = _values(ctx.get_events_for_pattern, self.names, variable)
            if variable is None or variable == self.variable:
                rows.append(value[1])
            return rows

        return self.expression.evaluate(rows_of) is True


class MatchRows(PatternProcessFunction):
    """A match's row: its partition values, then its measures."""

    def __init__(self, partition, names, measures):
        self.partition, self.names, self.measures = partition, names, measures

    def process_match(self, match, ctx):
        def rows_of(variable):
            return _values(lambda name: match.get(name, ()), self.names, variable)

        first = rows_of(None)[0]
        keys = tuple(first[i] for i in self.partition)
        yield INSERT, keys + tuple(m.evaluate(rows_of) for m in self.measures)


class _Comparator:
    """Orders rows of one time by ORDER BY's other keys (NULLs as weir.table.sort
    orders them)."""

    def __init__(self, keys):
        self.indexes = [index for index, _ in keys]  # (keys: [(index, descending)])
        self.directions = [descending for _, descending in keys]

    def compare(self, a, b) -> int:
        return compare(
            [a[1][i] for i in self.indexes], [b[1][i] for i in self.indexes], self.directions
        )

    __call__ = compare


def plan_match_recognize(planner, node: MatchRecognize):
    from weir.table.planner import KeyOf

    stream = planner.stream(node.input)
    keyed = stream.key_by(KeyOf.at(node.partition)) if node.partition else stream
    names = [name for name, *_ in node.variables]
    comparator = _Comparator(node.order) if node.order else None
    matches = CEP.pattern(keyed, node.pattern, comparator)
    if node.processing_time:
        matches = matches.in_processing_time()
    return matches.process(MatchRows(node.partition, names, node.measures)).name("Match")


# -- from SQL -----------------------------------------------------------------------------------
def match_recognize(planner, table, clause):
    """The Table of `table` MATCH_RECOGNIZE (`clause`, sqlglot's MatchRecognize)."""
    from weir.table.sql import interval_millis

    columns = table._node.columns
    rows = clause.args.get("rows")
    if rows is not None and rows.name.upper() != "ONE ROW PER MATCH":
        not_supported(f"{rows.name} (Flink: All rows per match mode is not supported yet)")
    variables = parse_pattern(clause.args["pattern"].name)
    by_name = {}
    for name, *_ in variables:
        if name.upper() in by_name:
            raise ValueError("Pattern variables must be unique. That might change in the future.")
        by_name[name.upper()] = name
    time_column, processing_time, order = _order(clause.args.get("order"), columns)
    expressions = MatchExpressions(planner, table, by_name, time_column)
    conditions = {}
    for item in clause.args.get("define") or ():
        name = by_name.get(item.alias.upper())
        if name is not None:  # (Flink ignores the DEFINE of a name not in the PATTERN)
            conditions[name] = DefineCondition(
                name, [n for n, *_ in variables], expressions.compile(item.this)
            )
    partition = [_index(columns, c) for c in clause.args.get("partition_by") or ()]
    measures, out = [], [Column(columns[i].name, columns[i].data_type) for i in partition]
    for item in clause.args.get("measures") or ():
        item = item.this
        if not isinstance(item, exp.Alias):
            raise ValueError(f"a measure needs a name: '{item.sql()} AS name'")
        measures.append(expressions.compile(item.this))
        function = item.this.name.upper() if isinstance(item.this, exp.Anonymous) else ""
        out.append(
            Column(
                item.alias,
                measures[-1].data_type,
                time_attribute=function == "MATCH_ROWTIME",
                proctime=function == "MATCH_PROCTIME",
            )
        )
    within = clause.args.get("within")
    pattern = build_pattern(
        variables,
        conditions,  # (its errors when the query is built)
        skip_strategy(clause.args.get("after"), by_name),
        interval_millis(within) if within is not None else None,
    )
    return table._derive(
        MatchRecognize(
            out, table._node, partition, variables, pattern, measures, processing_time, order
        )
    )


def _index(columns, column):
    names = [c.name.lower() for c in columns]
    if column.name.lower() not in names:
        raise ValueError(f"Column '{column.name}' not found in the table of MATCH_RECOGNIZE")
    return names.index(column.name.lower())


def _order(order, columns):
    """(time column's name, processing time?, [(index, descending)] of the other keys)."""
    if order is None or not order.expressions:
        raise ValueError("MATCH_RECOGNIZE needs ORDER BY a time attribute")
    first, *others = order.expressions
    index = _index(columns, first.this) if isinstance(first.this, exp.Column) else None
    if index is None or not (columns[index].time_attribute or columns[index].proctime):
        raise ValueError(
            "You must specify either rowtime or proctime for order by as the first one."
        )
    if first.args.get("desc"):
        raise ValueError("Primary sort order of a streaming table must be ascending on time.")
    keys = [(_index(columns, o.this), bool(o.args.get("desc"))) for o in others]
    return columns[index].name, columns[index].proctime, keys
