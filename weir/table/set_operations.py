"""INTERSECT and EXCEPT (the Table API's `intersect`, `intersect_all`, `minus`,
`minus_all`), as Calcite rewrites them: both tables' rows counted per distinct row, each
side apart (a group aggregation, where NULLs are equal as set operations want), then
the rows both sides have (INTERSECT) or only the left has (EXCEPT); the ALL forms repeat
a row min(left, right) or left - right times. The result is a changelog: a row's count
moving emits its updates."""

from weir.table.expressions import col, if_then_else, lit
from weir.table.types import DataTypes
from weir.table.udf import udtf

_LEFT, _RIGHT, _COPIES = "$set_left", "$set_right", "$set_copies"


def _copies(count):
    for _ in range(count):
        yield (0,)


_REPEAT = udtf(_copies, result_types=[DataTypes.INT()]).alias("$set_copy")


def set_operation(left, right, kind: str, keep_all: bool):
    """`kind` 'intersect' or 'minus' of two tables of the same column types; `keep_all`:
    the ALL form (duplicates kept)."""
    left.union_all(right)  # (the same check of the columns' types)
    names = [c.name for c in left._node.columns]
    columns = [col(n) for n in names]
    theirs = [col(c.name).alias(n) for c, n in zip(right._node.columns, names)]
    both = left.select(*columns, lit(1).alias(_LEFT), lit(0).alias(_RIGHT)).union_all(
        right.select(*theirs, lit(0).alias(_LEFT), lit(1).alias(_RIGHT))
    )
    counted = both.group_by(*columns).select(
        *columns, col(_LEFT).sum.alias(_LEFT), col(_RIGHT).sum.alias(_RIGHT)
    )
    mine, others = col(_LEFT), col(_RIGHT)
    if not keep_all:
        kept = (mine > 0) & (others > 0) if kind == "intersect" else (mine > 0) & (others == 0)
        return counted.where(kept).select(*columns)
    copies = if_then_else(mine < others, mine, others) if kind == "intersect" else mine - others
    repeated = counted.select(*columns, copies.alias(_COPIES)).where(col(_COPIES) > 0)
    return repeated.join_lateral(_REPEAT(col(_COPIES))).select(*columns)
