"""Flink SQL on weir: statements parsed by sqlglot with a dialect of weir's own (Flink's
backquoted identifiers on the RisingWave grammar, which reads `CREATE TABLE ... WITH
(...)` and `WATERMARK FOR`), turned into the Table API's logical plan.

What runs: CREATE TABLE (connector tables), INSERT INTO ... SELECT, and SELECT with
expressions, WHERE, joins, GROUP BY, HAVING, DISTINCT, LIMIT and LATERAL TABLE. Anything
else raises NotImplementedError naming it; a statement that does not parse raises one
ValueError naming its line and column.
"""

import sqlglot
from sqlglot import exp
from sqlglot.dialects.risingwave import RisingWave
from sqlglot.errors import ParseError
from sqlglot.tokens import TokenType

from weir.table.descriptors import Schema, TableDescriptor
from weir.table.evaluate import not_supported
from weir.table.expressions import Expression, col, lit
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


class FlinkSql(RisingWave):
    """weir's SQL dialect: Flink's identifiers in backquotes, and window table functions
    (`TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' MINUTES))`)."""

    class Tokenizer(RisingWave.Tokenizer):
        IDENTIFIERS = ["`"]
        QUOTES = ["'"]

    class Parser(RisingWave.Parser):
        FUNCTION_PARSERS = {**RisingWave.Parser.FUNCTION_PARSERS,
                            **{name: _parse_window_function(name)
                               for name in WINDOW_FUNCTIONS}}


def parse(statement: str):
    try:
        parsed = sqlglot.parse(statement, read=FlinkSql)
    except ParseError as error:
        detail = error.errors[0] if error.errors else {}
        raise ValueError(f"SQL parse failed at line {detail.get('line')}, column "
                         f"{detail.get('col')}: {detail.get('description', error)}") from None
    statements = [p for p in parsed if p is not None]
    if len(statements) != 1:
        raise ValueError(f"expected one SQL statement, got {len(statements)}")
    return statements[0]


_UNIT_MILLIS = {"MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60_000, "HOUR": 3_600_000,
                "DAY": 86_400_000}


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
        if isinstance(tree, exp.Create):
            return self._create(tree)
        if isinstance(tree, exp.Insert):
            path, table = self._insert(tree)
            return self.t_env.insert_into(path, table)
        if isinstance(tree, (exp.Select, exp.Union)):
            return self.t_env.execute_table(self._select(tree))
        not_supported(f"the SQL statement {type(tree).__name__.upper()}")

    def query(self, statement: str):
        tree = parse(statement)
        if not isinstance(tree, exp.Select):
            raise ValueError("sql_query() takes a SELECT; use execute_sql for "
                             f"{type(tree).__name__.upper()}")
        return self._select(tree)

    def expression(self, text: str):
        """A SQL expression (a computed column's) as an Expression."""
        try:
            tree = sqlglot.parse_one(text, read=FlinkSql)
        except ParseError as error:
            raise ValueError(f"cannot parse the SQL expression '{text}': {error}") from None
        return self.expressions.convert(tree)

    def watermark_delay(self, text: str, column: str) -> int:
        """The delay of a watermark `ts` or `ts - INTERVAL 'n' UNIT`, in milliseconds."""
        tree = sqlglot.parse_one(text, read=FlinkSql)
        if isinstance(tree, exp.Column) and tree.name == column:
            return 0
        if isinstance(tree, exp.Sub) and isinstance(tree.this, exp.Column) \
                and tree.this.name == column and isinstance(tree.expression, exp.Interval):
            return interval_millis(tree.expression)
        not_supported(f"the watermark expression '{text}' (weir takes `{column}` or "
                      f"`{column} - INTERVAL ...`)")

    def insert(self, statement: str):
        tree = parse(statement)
        if not isinstance(tree, exp.Insert):
            raise ValueError("add_insert_sql() takes an INSERT INTO statement")
        return self._insert(tree)

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
            if isinstance(column, exp.ColumnDef):
                if column.args.get("kind") is None:
                    not_supported(f"the computed column '{column.name}'")
                builder.column(column.name, parse_type(column.args["kind"].sql()))
            elif type(column).__name__ == "WatermarkColumnConstraint":
                builder.watermark(column.this.name, column.expression.sql())
            else:
                not_supported(f"'{column.sql()}' in CREATE TABLE")
        options = {}
        for prop in (tree.args.get("properties") or exp.Properties()).expressions:
            options[prop.name] = prop.args["value"].name
        if "connector" not in options:
            raise ValueError(f"CREATE TABLE {schema_node.this.name}: its WITH clause needs "
                             "'connector'")
        connector = options.pop("connector")
        descriptor = TableDescriptor(connector, builder.build(), options)
        self.t_env.create_temporary_table(schema_node.this.name, descriptor)
        return TableResult.ok()

    # -- queries --------------------------------------------------------------------
    def _from(self, source):
        if isinstance(source, exp.Table):
            if isinstance(source.this, exp.Anonymous):
                return self._table_function(source.this)
            return self.t_env.from_path(source.name)
        if isinstance(source, exp.Subquery):
            return self._select(source.this)
        not_supported(f"'{source.sql()}' in FROM")

    def _select(self, tree):
        if isinstance(tree, exp.Union):
            not_supported("UNION")
        if tree.args.get("with_"):
            not_supported("WITH")
        table = self._from(tree.args["from_"].this)
        for join in tree.args.get("joins") or []:
            table = self._join(table, join)
        where = tree.args.get("where")
        if where is not None:
            table = table.where(self.expressions.convert(where.this))
        table = self._project(table, tree)
        if tree.args.get("distinct"):
            table = table.distinct()
        if tree.args.get("order"):
            not_supported("ORDER BY in a streaming query")
        limit = tree.args.get("limit")
        if limit is not None:
            table = table.limit(int(limit.expression.name))
        return table

    def _table_function(self, call):
        """TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size)), HOP and CUMULATE."""
        from weir.table.window_tvf import window_tvf
        inner = call.expressions[0] if call.name.upper() == "TABLE" and call.expressions \
            else call
        name = inner.name.upper()
        if name not in ("TUMBLE", "HOP", "CUMULATE"):
            not_supported(f"the table function {inner.name} in FROM")
        source, descriptor, *sizes = inner.expressions
        table = self._from(source)
        time_column = descriptor.expressions[0].name
        millis = [interval_millis(s) for s in sizes]
        if name == "TUMBLE":
            node = window_tvf(table._node, "tumble", time_column, millis[0])
        else:  # HOP(slide, size), CUMULATE(step, size)
            node = window_tvf(table._node, name.lower(), time_column, millis[1], millis[0])
        return table._derive(node)

    def _join(self, table, join):
        source = join.this
        if isinstance(source, exp.Lateral) or (
                isinstance(source, exp.Table) and isinstance(source.this, exp.Anonymous)):
            return self._lateral(table, source, join)
        other = self._from(source)
        on = join.args.get("on")
        condition = None if on is None else self.expressions.convert(on)
        side = (join.args.get("side") or "").lower()
        method = {"": "join", "left": "left_outer_join", "right": "right_outer_join",
                  "full": "full_outer_join"}.get(side)
        if method is None:
            not_supported(f"{side.upper()} JOIN")
        return getattr(table, method)(other, condition)

    def _lateral(self, table, source, join):
        call = source.this
        while isinstance(call, (exp.Table, exp.Lateral)) or (
                isinstance(call, exp.Anonymous) and call.name.upper() == "TABLE"):
            call = call.expressions[0] if isinstance(call, exp.Anonymous) else call.this
        function = self.expressions.function(call.name)
        args = [self.expressions.convert(a) for a in call.expressions]
        alias = source.args.get("alias")
        names = [c.name for c in alias.columns] if alias is not None and alias.columns else None
        udtf = function.alias(*names) if names else function
        side = (join.args.get("side") or "").lower()
        if side == "left":
            return table.left_outer_join_lateral(udtf(*args))
        return table.join_lateral(udtf(*args))

    def _project(self, table, tree):
        items = []
        for position, item in enumerate(tree.expressions):
            if isinstance(item, exp.Star):
                items.extend(col(c.name) for c in table._node.columns)
                continue
            expr = self.expressions.convert(item)
            if expr.op not in ("alias", "col"):
                expr = expr.alias(f"EXPR${position}")
            items.append(expr)
        group = tree.args.get("group")
        having = tree.args.get("having")
        if group is not None:
            keys = [self.expressions.convert(k) for k in group.expressions]
            result = table.group_by(*keys).select(*items)
        else:
            result = table.select(*items)
        if having is not None:
            not_supported("HAVING")
        return result


__all__ = ["SqlPlanner", "parse", "Expression", "lit"]
