"""UNNEST in SQL (`FROM t CROSS JOIN UNNEST(t.tags) AS u(tag)`, a comma or LEFT JOIN ...
ON TRUE): a built-in table function over a collection, one row per element, joined
laterally to the row it came from as a Python table function is (logical.Correlate).

Its columns, as Flink names them where the alias does not:
- an ARRAY of scalars: one column, `EXPR$0` (an alias without a column list names it);
- an ARRAY of ROWs: the rows' fields;
- a MAP: `KEY` and `VALUE`, one row per entry;
- WITH ORDINALITY: then `ORDINALITY`, the element's position from 1 (INT NOT NULL).
A NULL or empty collection gives no row (LEFT JOIN keeps its row, with NULLs).
"""

from weir.table.evaluate import not_supported
from weir.table.types import DataTypes
from weir.table.udf import udtf


def unnest_function(data_type, names=None, ordinality=False, table_alias=None):
    """The table function of UNNEST over a value of `data_type`, its columns named
    `names` (else Flink's names; a single column the `table_alias`, as `AS t` names
    it)."""
    types, defaults, rows = _shape(data_type)
    if ordinality:
        types, defaults = types + [DataTypes.INT(False)], defaults + ["ORDINALITY"]
    names = list(names or [])
    if not names and table_alias and len(types) == 1:
        names = [table_alias]
    if names and len(names) != len(types):
        raise ValueError(
            f"UNNEST gives {len(types)} columns ({', '.join(defaults)}); "
            f"its alias names {len(names)}"
        )
    elements = _numbered(rows) if ordinality else rows
    return udtf(elements, result_types=types, name="UNNEST").alias(*(names or defaults))


def _shape(data_type):
    """(column types, Flink's column names, the function of a value giving its rows)."""
    if data_type.name == "MAP":
        return [data_type.key, data_type.element], ["KEY", "VALUE"], _entries
    if data_type.name != "ARRAY":
        not_supported(f"UNNEST of a {data_type} (an ARRAY or a MAP unnests)")
    element = data_type.element
    if element.name == "ROW":
        width = len(element.fields)
        return (
            [f.data_type for f in element.fields],
            element.field_names(),
            lambda value: _rows(value, width),
        )
    return [element], ["EXPR$0"], _elements


def _elements(value):
    for element in value or ():
        yield (element,)


def _rows(value, width):
    for element in value or ():
        yield (None,) * width if element is None else tuple(element)


def _entries(value):
    for key, item in (value or {}).items():
        yield key, item


def _numbered(rows):
    def numbered(value):
        for position, row in enumerate(rows(value), 1):
            yield row + (position,)

    return numbered
