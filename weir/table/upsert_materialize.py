"""Flink's sink upsert materializer: a changelog written into an upsert sink (a `jdbc`
table with a PRIMARY KEY, `upsert-kafka`) by the sink's primary key, where the query's
own unique keys (its upsert keys) are not within that primary key.

The sink writes each change as an upsert or a delete of the primary key's row. When
several of the query's rows share one primary key (a GROUP BY of other columns, a join),
a delete of one of them would delete the key's row although the others remain, and
updates of different rows would overwrite each other in arrival order. So, as Flink does
with `table.exec.sink.upsert-materialize` AUTO (its default), the rows of each primary key
are kept in keyed state in arrival order; an insert or update writes its row (an insert
where the key had none), a retraction removes its row and writes the key's last row left,
or deletes the key's row where none is left. FORCE materializes always, NONE never.

The upsert keys are derived conservatively (weir cannot always know, and then
materializes, as Flink does without one): a group aggregation's keys, a Top-1's or a
deduplication's partition keys, a changelog source's primary key, through projections
that pass them on.
"""

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table import logical
from weir.table.changelog import DELETE, INSERT, UPDATE_AFTER, is_accumulate

OPTION = "table.exec.sink.upsert-materialize"
MODES = ("AUTO", "FORCE", "NONE")


def needs_materializer(node, primary_key, mode: str = "AUTO") -> bool:
    """Whether `node`'s changelog written by `primary_key` (names of `node`'s columns)
    needs the materializer."""
    mode = (mode or "AUTO").upper()
    if mode not in MODES:
        raise ValueError(f"{OPTION} is one of {', '.join(MODES)}, got {mode!r}")
    if not node.changelog or not primary_key or mode == "NONE":
        return False
    if mode == "FORCE":
        return True
    key = set(primary_key)
    return not any(upsert_key <= key for upsert_key in upsert_keys(node))


def upsert_keys(node) -> list:
    """Sets of `node`'s column names that identify a row of its changelog (empty where
    weir cannot tell)."""
    if isinstance(node, logical.Calc):
        return _through_projection(node, upsert_keys(node.input))
    if isinstance(node, logical.Aggregate):
        if node.table_aggregate is not None:
            return []
        return [frozenset(c.name for c in node.columns[: len(node.keys)])]
    from weir.table.rank import Rank

    if isinstance(node, Rank):
        return _rank_keys(node)
    if isinstance(node, logical.Scan) and node.changelog:
        key = getattr(node.connector, "primary_key", None)
        return [frozenset(key)] if key else []
    return []


def _through_projection(calc, keys) -> list:
    passed: dict = {}  # input column -> the first output column passing it on unchanged
    # (a cast to the sink's type keeps a key)
    for name, source in logical.passed_columns(calc, ("alias", "cast")).items():
        if source is not None:
            passed.setdefault(source, name)
    return [
        frozenset(passed[name] for name in key)
        for key in keys
        if all(name in passed for name in key)
    ]


def _rank_keys(rank) -> list:
    if rank.rank_start != 1 or any(p.op != "col" for p in rank.partition):
        return []
    partition = frozenset(p.args[0] for p in rank.partition)
    if rank.output_rank:
        return [partition | {rank.columns[-1].name}]
    return [partition] if rank.rank_end == 1 else []


class SinkUpsertMaterializer(KeyedProcessFunction):
    """One primary key's rows, in arrival order; the changes the sink writes for it."""

    def open(self, runtime_context):
        self.rows = runtime_context.get_state(
            ValueStateDescriptor("upsert-rows", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element(self, record, ctx):
        kind, values = record
        rows = self.rows.value() or []
        if is_accumulate(kind):
            yield (UPDATE_AFTER if rows else INSERT), values
            rows.append(values)
        else:
            try:
                index = rows.index(values)
            except ValueError:
                return  # (a retraction of a row the state no longer has)
            del rows[index]
            if not rows:
                yield DELETE, values
            elif index == len(rows):  # (the last row went: the one before is the key's)
                yield UPDATE_AFTER, rows[-1]
        if rows:
            self.rows.update(rows)
        else:
            self.rows.clear()
