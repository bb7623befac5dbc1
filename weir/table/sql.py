"""Flink SQL on weir: statements parsed by sqlglot with a dialect of weir's own (Flink's
backquoted identifiers on the RisingWave grammar, which reads `CREATE TABLE ... WITH
(...)` and `WATERMARK FOR`), turned into the Table API's logical plan.

What runs: CREATE TABLE (connector tables), INSERT INTO ... SELECT, and SELECT with
expressions, WHERE, joins, GROUP BY, HAVING, DISTINCT, LIMIT and LATERAL TABLE. Anything
else raises NotImplementedError naming it; a statement that does not parse raises one
ValueError naming its line and column.
"""

from typing import Any, Callable

import sqlglot
from sqlglot import exp
from sqlglot.dialects.risingwave import RisingWave
from sqlglot.errors import ParseError
from sqlglot.tokens import TokenType

from weir.table.descriptors import Schema, TableDescriptor
from weir.table.evaluate import not_supported
from weir.table.expressions import Expression, lit
from weir.table.result import TableResult
from weir.table.sql_expressions import SqlExpressions
from weir.table.sql_types import parse_type


WINDOW_FUNCTIONS = ("TUMBLE", "HOP", "CUMULATE", "SESSION")


def _parse_window_function(name):
    """A window table function's arguments: `TABLE t` (or a subquery), `DESCRIPTOR(ts)`,
    then intervals (sqlglot's grammars do not read the first two)."""

    def parse(self):
        args = []
        while True:
            if self._match(TokenType.TABLE):
                args.append(self._parse_table_parts())
                if self._match(TokenType.PARTITION_BY):  # SESSION's partition keys
                    # one key, or several in parentheses
                    if self._match(TokenType.L_PAREN):
                        columns = self._parse_csv(self._parse_column)
                        self._match(TokenType.R_PAREN)
                    else:
                        columns = [self._parse_column()]
                    args.append(exp.Anonymous(this="PARTITION BY", expressions=columns))
            elif self._match_text_seq("DESCRIPTOR"):
                self._match(TokenType.L_PAREN)
                columns = self._parse_csv(self._parse_column)
                self._match(TokenType.R_PAREN)
                args.append(exp.Anonymous(this="DESCRIPTOR", expressions=columns))
            else:
                args.append(self._parse_assignment())
            if not self._match(TokenType.COMMA):
                break
        return exp.Anonymous(this=name, expressions=args)

    return parse


def _parse_time_unit_function(name):
    """TIMESTAMPDIFF(unit, a, b) and TIMESTAMPADD(unit, n, t): the unit as a string."""

    def parse(self):
        unit = self._parse_var(any_token=True)
        args = [exp.Literal.string(unit.name.upper())]
        while self._match(TokenType.COMMA):
            args.append(self._parse_assignment())
        return exp.Anonymous(this=name, expressions=args)

    return parse


class FlinkSql(RisingWave):
    """weir's SQL dialect: Flink's identifiers in backquotes, and window table functions
    (`TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' MINUTES))`)."""

    class Tokenizer(RisingWave.Tokenizer):
        IDENTIFIERS = ["`"]
        QUOTES = ["'"]
        # SESSION is Flink's session window function, not a keyword
        KEYWORDS = {
            **{k: v for k, v in RisingWave.Tokenizer.KEYWORDS.items() if k != "SESSION"},
            "MATCH_RECOGNIZE": TokenType.MATCH_RECOGNIZE,
        }

    class Parser(RisingWave.Parser):  # type: ignore[valid-type,misc]  # (sqlglot's alias)
        # Flink's TO_TIMESTAMP(text[, Java pattern]): the pattern as written (sqlglot
        # would read it as its own time format)
        FUNCTIONS = {
            **RisingWave.Parser.FUNCTIONS,
            "TO_TIMESTAMP": lambda args: exp.Anonymous(this="TO_TIMESTAMP", expressions=args),
        }
        FUNCTION_PARSERS = {
            **RisingWave.Parser.FUNCTION_PARSERS,
            **{name: _parse_window_function(name) for name in WINDOW_FUNCTIONS},
            **{name: _parse_time_unit_function(name) for name in ("TIMESTAMPDIFF", "TIMESTAMPADD")},
        }
        _match_text_seq: Callable[..., Any]  # (sqlglot's, wrapped in _parse_match_recognize)

        def _parse_match_recognize(self):
            """sqlglot's MATCH_RECOGNIZE, with Flink's `WITHIN interval` after PATTERN
            (kept as the clause's `within`)."""
            if not self._match(TokenType.MATCH_RECOGNIZE, advance=False):
                return None
            within: list = []
            original = self._match_text_seq

            def match_text_seq(*texts, **kwargs):
                if texts == ("DEFINE",) and not within and original("WITHIN"):
                    within.append(self._parse_interval())
                return original(*texts, **kwargs)

            self._match_text_seq = match_text_seq
            try:
                clause = super()._parse_match_recognize()
            finally:
                del self._match_text_seq
            if within:
                clause.set("within", within[0])
            return clause


def parse(statement: str):
    try:
        parsed = sqlglot.parse(statement, read=FlinkSql)
    except ParseError as error:
        detail = error.errors[0] if error.errors else {}
        raise ValueError(
            f"SQL parse failed at line {detail.get('line')}, column "
            f"{detail.get('col')}: {detail.get('description', error)}"
        ) from None
    statements = [p for p in parsed if p is not None]
    if len(statements) != 1:
        raise ValueError(f"expected one SQL statement, got {len(statements)}")
    return statements[0]


_UNIT_MILLIS = {
    "MILLISECOND": 1,
    "SECOND": 1000,
    "MINUTE": 60_000,
    "HOUR": 3_600_000,
    "DAY": 86_400_000,
}


def interval_millis(interval) -> int:
    """INTERVAL '5' SECOND (or '5' SECONDS, or '5 SECOND') in milliseconds."""
    amount, unit = interval.this.name, interval.args.get("unit")
    unit = unit.name.upper() if unit is not None else ""
    if not unit and " " in amount:
        amount, unit = amount.split()[0], amount.split()[1].upper()
    unit = unit[:-1] if unit.endswith("S") else unit
    if unit not in _UNIT_MILLIS:
        not_supported(f"the interval unit '{unit}'")
    return int(float(amount) * _UNIT_MILLIS[unit])


class SqlPlanner:
    def __init__(self, t_env):
        self.t_env = t_env
        self.expressions = SqlExpressions(t_env)

    # -- statements -----------------------------------------------------------------
    def execute(self, statement: str) -> TableResult:
        tree = parse(statement)
        if isinstance(tree, exp.Create) and tree.kind == "VIEW":
            self.t_env.create_temporary_view(tree.this.name, self._select(tree.expression))
            return TableResult.ok()
        if isinstance(tree, exp.Create):
            return self._create(tree)
        if isinstance(tree, exp.Insert):
            path, table = self._insert(tree)
            return self.t_env.insert_into(path, table)
        if isinstance(tree, (exp.Select, exp.SetOperation, exp.Values)):
            return self.t_env.execute_table(self._select(tree))
        not_supported(f"the SQL statement {type(tree).__name__.upper()}")

    def query(self, statement: str):
        tree = parse(statement)
        if not isinstance(tree, (exp.Select, exp.SetOperation, exp.Values)):
            raise ValueError(
                f"sql_query() takes a SELECT; use execute_sql for {type(tree).__name__.upper()}"
            )
        return self._select(tree)

    def expression(self, text):
        """A SQL expression (a computed column's, as text or parsed) as an Expression."""
        if isinstance(text, exp.Expression):
            return self.expressions.convert(text)
        try:
            tree = sqlglot.parse_one(text, read=FlinkSql)
        except ParseError as error:
            raise ValueError(f"cannot parse the SQL expression '{text}': {error}") from None
        return self.expressions.convert(tree)

    def watermark_delay(self, text: str, column: str) -> int:
        """The delay of a watermark `ts` or `ts - INTERVAL 'n' UNIT`, in milliseconds."""
        tree = text if isinstance(text, exp.Expression) else sqlglot.parse_one(text, read=FlinkSql)
        text = tree.sql()
        if isinstance(tree, exp.Column) and tree.name == column:
            return 0
        if (
            isinstance(tree, exp.Sub)
            and isinstance(tree.this, exp.Column)
            and tree.this.name == column
            and isinstance(tree.expression, exp.Interval)
        ):
            return interval_millis(tree.expression)
        not_supported(
            f"the watermark expression '{text}' (weir takes `{column}` or "
            f"`{column} - INTERVAL ...`)"
        )

    def insert(self, statement: str):
        tree = parse(statement)
        if not isinstance(tree, exp.Insert):
            raise ValueError("add_insert_sql() takes an INSERT INTO statement")
        return self._insert(tree)

    def _select(self, tree):
        from weir.table.sql_query import QueryPlanner

        return QueryPlanner(self.t_env, self.expressions).select(tree)

    def _insert(self, tree):
        target = tree.this
        if isinstance(target, exp.Schema):
            not_supported("INSERT INTO with a column list")
        return target.name, self._select(tree.expression)

    def _create(self, tree) -> TableResult:
        if tree.kind != "TABLE":
            not_supported(f"CREATE {tree.kind}")
        schema_node = tree.this
        builder = Schema.new_builder()
        for column in schema_node.expressions:
            if isinstance(column, exp.Constraint) and len(column.expressions) == 1:
                column = column.expressions[0]  # (CONSTRAINT name PRIMARY KEY ...)
            if isinstance(column, exp.PrimaryKey):
                _not_enforced(column)
                builder.primary_key(*(key.name for key in column.expressions))
            elif isinstance(column, exp.ColumnDef):
                key = column.find(exp.PrimaryKeyColumnConstraint)
                if key is not None:
                    _not_enforced(key)
                    builder.primary_key(column.name)
                computed = column.find(exp.ComputedColumnConstraint)
                if column.args.get("kind") is None and computed is not None:
                    builder.column_by_expression(column.name, computed.this)
                elif column.args.get("kind") is None:
                    not_supported(f"the column '{column.sql()}'")
                else:
                    builder.column(column.name, parse_type(column.args["kind"].sql()))
            elif type(column).__name__ == "WatermarkColumnConstraint":
                builder.watermark(column.this.name, column.expression)
            else:
                not_supported(f"'{column.sql()}' in CREATE TABLE")
        options, partition_keys = {}, []
        for prop in (tree.args.get("properties") or exp.Properties()).expressions:
            if isinstance(prop, exp.TemporaryProperty):
                continue  # (CREATE TEMPORARY TABLE: weir's tables are temporary anyway)
            if isinstance(prop, exp.PartitionedByProperty):
                partition_keys = [key.name for key in prop.this.expressions]
                continue
            options[prop.name] = prop.args["value"].name
        if "connector" not in options:
            raise ValueError(
                f"CREATE TABLE {schema_node.this.name}: its WITH clause needs 'connector'"
            )
        connector = options.pop("connector")
        descriptor = TableDescriptor(connector, builder.build(), options, partition_keys)
        self.t_env.create_temporary_table(schema_node.this.name, descriptor)
        return TableResult.ok()


def _not_enforced(constraint):
    """Flink's primary keys are NOT ENFORCED (it does not check the data)."""
    if "NOT ENFORCED" not in [str(o).upper() for o in constraint.args.get("options") or []]:
        raise ValueError(
            "Flink doesn't support ENFORCED mode for PRIMARY KEY constraint: "
            "declare it as PRIMARY KEY (...) NOT ENFORCED"
        )


__all__ = ["SqlPlanner", "parse", "Expression", "lit"]
