"""Top-N and deduplication as Spark SQL (for weir.table.lowering), where their changelog
is their final rows (BATCH mode, or mini-batch over bounded tables read in one
micro-batch): per partition, the rows weir's operators keep at the end of the input.

Which of the rows with equal sort keys those are is decided by their arrival: a Top-N
keeps the first to arrive, deduplication keeping the last row the last. A table of one
file is read by one split in line order on weir (and by one reader on Flink), so the
arrival order is the file's: Spark numbers the rows by `monotonically_increasing_id`,
which increases with the position in the file (a file's splits are partitions in their
order), and breaks ties by it. Over an inner join of such tables, the arrival order of
the join's rows is its inputs' timing's, on Flink as on weir: ties are broken as they
are when each input is read after the one on its left (a right row arriving pairs with
the left rows before it): by the right row's position, then the left's. So only a Top-N
over projections, filters and inner joins of tables of one file is lowered, and only
with sort keys that Spark orders as weir does (integers, DECIMALs, text, timestamps,
dates, booleans; NULLs first ascending and last descending, Flink's defaults)."""

import os

from weir.table.deduplicate import deduplication
from weir.table.spark_sql import column_name, select, to_spark_sql

_ORDERED = (
    "TINYINT",
    "SMALLINT",
    "INT",
    "BIGINT",
    "DECIMAL",
    "STRING",
    "VARCHAR",
    "CHAR",
    "TIMESTAMP",
    "DATE",
    "BOOLEAN",
)


def position(source: int) -> str:
    """The column numbering a source's rows in their order (of a file's lines)."""
    return f"_weir_pos{source}"


class RankOf:
    """The rows of tables of one file (`scan`: their _Steps, projections, filters and
    inner joins of sources by index) ranked per partition: the input's columns, then the
    rank (`output_rank`)."""

    def __init__(self, scan, width, partition, order, rank_end, output_rank, rank_start=1):
        self.scan, self.width, self.partition, self.order = scan, width, partition, order
        self.rank_end, self.output_rank = rank_end, output_rank
        self.rank_start = rank_start

    def sql(self, views) -> str:
        numbered = [
            f"(SELECT *, monotonically_increasing_id() AS {position(i)} FROM {view}) AS _n"
            for i, view in enumerate(views)
        ]  # (increasing with a file's lines)
        text = self.scan.sql(numbered, carry=True)
        over = (
            f"PARTITION BY {', '.join(self.partition)} " if self.partition else ""
        ) + f"ORDER BY {', '.join(self.order)}"
        columns = [column_name(i) for i in range(self.width)]
        ranked = select(
            ["*"],
            select([*columns, f"row_number() OVER ({over}) AS _weir_rank"], text),
            f"_weir_rank BETWEEN {self.rank_start} AND {self.rank_end}",
        )
        rank = [f"_weir_rank AS {column_name(self.width)}"] if self.output_rank else []
        return select([*columns, *rank], ranked)


def rank_of(node, sources, lowered, steps):
    """`node` (a weir.table.rank.Rank) as a `steps(RankOf)`, or None."""
    from weir.table.evaluate import compile_expression

    scan = lowered(node.input, sources)
    reads = None if scan is None else scan.reads()
    if reads is None or not all(os.path.isfile(sources[i][0]) for i in reads):
        return None
    columns = node.input.columns
    partition = [to_spark_sql(p, columns) for p in node.partition]
    order = []
    for expression, descending in node.order:
        sql = to_spark_sql(expression, columns)
        if sql is None or compile_expression(expression, columns).data_type.name not in _ORDERED:
            return None
        order.append(f"{sql} DESC NULLS LAST" if descending else f"{sql} ASC NULLS FIRST")
    if None in partition:
        return None
    keep = deduplication(node)
    if keep is not None:  # (the time attribute: no NULL; ties to the last row kept)
        time = to_spark_sql(node.order[0][0], columns)
        order = [
            f"coalesce({time}, raise_error('a row has a NULL time attribute')) "
            + ("DESC" if keep == "last" else "ASC")
        ]
    order += [f"{position(i)} {'DESC' if keep == 'last' else 'ASC'}" for i in reversed(reads)]
    return steps(
        RankOf(
            scan, len(columns), partition, order, node.rank_end, node.output_rank, node.rank_start
        ),
        [],
    )
