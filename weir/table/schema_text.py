"""A table's schema as Flink prints it (`print_schema()`, `str(get_schema())`): each column's
name and type, a time attribute marked `*ROWTIME*` (event time) or `*PROCTIME*`; for a
table as declared (`from_path` of a table made by DDL or a TableDescriptor) also its
computed columns' expressions, the `WATERMARK FOR` line and the primary key, in the SQL
text Flink writes for them (identifiers in backquotes, `INTERVAL '5' MINUTE`)."""

import re

from sqlglot import exp

_QUOTED_FUNCTIONS = ("TO_TIMESTAMP_LTZ",)  # (Flink writes these names in backquotes)
_TEXT_PARTS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|[^'\"]+")


def schema_text(columns, declared=None, legacy=False) -> str:
    """The printed schema of `columns` (weir.table.evaluate.Column); `declared`: the
    table's Schema where the table is as declared. As a resolved schema prints
    (`print_schema()`, `get_resolved_schema()`), or `legacy`: as `get_schema()`'s
    TableSchema prints (`root` and a ` |-- ` line each, names without backquotes)."""
    quote = (lambda name: name) if legacy else (lambda name: f"`{name}`")
    computed = {}
    watermark = primary_key = None
    if declared is not None:
        from weir.table.descriptors import ComputedColumn

        computed = {n: t for n, t in declared.columns if isinstance(t, ComputedColumn)}
        watermark, primary_key = declared.watermark, declared.primary_key
    lines = []
    for column in columns:
        line = f"{quote(column.name)}{':' if legacy else ''} {column.data_type}"
        expression = computed.get(column.name)
        marker = _marker(column, expression)
        if marker:
            line += f" {marker}"
        if expression is not None:
            line += f" AS {sql_text(expression.expression)}"
        lines.append(line)
    if watermark is not None:
        column = next(c for c in columns if c.name == watermark[0])
        lines.append(
            f"WATERMARK FOR {quote(column.name)}: {column.data_type} AS {sql_text(watermark[1])}"
        )
    if primary_key:
        keys = ", ".join(quote(k) for k in primary_key)
        name = quote(f"PK_{'_'.join(primary_key)}")
        lines.append(
            f"CONSTRAINT {name} PRIMARY KEY ({keys})" + ("" if legacy else " NOT ENFORCED")
        )
    if legacy:
        return "root\n" + "".join(f" |-- {line}\n" for line in lines)
    return "(\n" + ",\n".join(f"  {line}" for line in lines) + "\n)"


def _marker(column, expression):
    if column.time_attribute:
        return "*ROWTIME*"
    if getattr(column, "proctime", False) or (
        expression is not None and _is_proctime(expression.expression)
    ):
        return "*PROCTIME*"
    return None


def _is_proctime(expression) -> bool:
    tree = _tree(expression)
    return isinstance(tree, exp.Anonymous) and tree.name.upper() == "PROCTIME"


def _tree(expression):
    if isinstance(expression, exp.Expression):
        return expression
    import sqlglot
    from weir.table.sql import FlinkSql

    return sqlglot.parse_one(str(expression), read=FlinkSql)


def sql_text(expression) -> str:
    """An expression (a sqlglot tree or SQL text) as Flink writes it back."""
    from weir.table.sql import FlinkSql

    tree = _tree(expression).copy().transform(_as_calcite_writes)
    text = tree.sql(dialect=FlinkSql, identify=True)
    parts = []
    for part in _TEXT_PARTS.findall(text):
        if part.startswith('"'):
            part = "`" + part[1:-1].replace('""', '"') + "`"
        parts.append(part)
    text = "".join(parts)
    for name in _QUOTED_FUNCTIONS:
        text = re.sub(rf"\b{name}\(", f"`{name}`(", text)
    return text


def _as_calcite_writes(node):
    """The nodes sqlglot writes otherwise than Calcite: MOD, CHAR_LENGTH, SUBSTRING and
    INTERVAL literals."""
    if isinstance(node, exp.Mod):
        return exp.Anonymous(this="MOD", expressions=[node.this, node.expression])
    if isinstance(node, exp.Length):
        return exp.Anonymous(this="CHAR_LENGTH", expressions=[node.this])
    if isinstance(node, exp.Substring):
        args = [node.this, node.args.get("start"), node.args.get("length")]
        return exp.Anonymous(this="SUBSTRING", expressions=[a for a in args if a])
    if isinstance(node, exp.Interval):
        unit = node.args.get("unit")
        value = node.this.name if isinstance(node.this, exp.Literal) else node.this.sql()
        if unit is None:  # ('5 MINUTE' in one string)
            value, _, unit_text = value.partition(" ")
        else:
            unit_text = unit.name if hasattr(unit, "name") else str(unit)
        return exp.Var(this=f"INTERVAL '{value}' {unit_text.upper()}")
    return node
