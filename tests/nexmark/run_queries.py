"""Runs Nexmark queries (tests/nexmark/queries.py) over generated events and prints each
query's final rows (its changelog applied), sorted, one per line:
`python run_queries.py DIRECTORY EVENTS [QUERY...]` (the events are written first).
Written with weir's imports; PyFlink runs it with `weir` replaced by `pyflink`."""

import datetime
import decimal
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from generator import write_events  # noqa: E402
from queries import QUERIES, UPSERT_KEYS, ddl  # noqa: E402

from weir.table import DataTypes, EnvironmentSettings, TableEnvironment  # noqa: E402
from weir.table.udf import udf  # noqa: E402


@udf(result_type=DataTypes.BIGINT())
def count_char(text, char):
    return text.count(char)


def show(value):
    if value is None:
        return "NULL"
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ", timespec="milliseconds")
    if isinstance(value, decimal.Decimal):
        return str(value)
    return repr(value)


def final_rows(result, upsert_key=None):
    """The changelog applied: a multiset of rows, or with `upsert_key` (column indexes)
    one row per key (+I/+U set it, -U/-D remove it)."""
    rows, keyed = [], {}
    for row in result.collect():
        values = tuple(show(v) for v in row)
        accumulate = str(row.get_row_kind()) in ("+I", "+U")
        if upsert_key is not None:
            key = tuple(values[i] for i in upsert_key)
            if accumulate:
                keyed[key] = values
            elif keyed.get(key) == values:
                del keyed[key]
        elif accumulate:
            rows.append(values)
        else:
            rows.remove(values)
    return sorted(rows if upsert_key is None else keyed.values())


def main(directory, events, names):
    write_events(directory, events)
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    for table in ("person", "auction", "bid"):
        t_env.execute_sql(ddl(table, directory))
    t_env.create_temporary_function("count_char", count_char)
    for name in names or QUERIES:
        rows = final_rows(t_env.execute_sql(QUERIES[name]), UPSERT_KEYS.get(name))
        print(f"== {name}: {len(rows)} rows")
        for values in rows:
            print(", ".join(values))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
