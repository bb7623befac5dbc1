"""A savepoint written from a Spark DataFrame, to bootstrap a new job's keyed state (Flink's
State Processor API, writing side). The rows are read on the driver, as a savepoint's
state is (weir.runtime.state.bootstrap)."""

from weir.runtime.key_groups import DEFAULT_MAX_PARALLELISM
from weir.runtime.state.bootstrap import write_keyed_savepoint


def write_keyed_state(
    frame,
    target_directory: str,
    uid: str,
    key_column: str,
    state_columns: dict,
    max_parallelism: int = DEFAULT_MAX_PARALLELISM,
):
    """A savepoint (its path) giving operator `uid` one key per row of `frame`: the key
    from `key_column`, each state {state name: column} from its column (an array column
    makes a ListState's list, a map column a MapState's dict)."""
    missing = [c for c in [key_column, *state_columns.values()] if c not in frame.columns]
    if missing:
        raise ValueError(
            f"the DataFrame has no column {', '.join(missing)} (it has {', '.join(frame.columns)})"
        )
    columns = [key_column, *state_columns.values()]
    entries = (
        (row[0], {name: _python(value) for name, value in zip(state_columns, row[1:])})
        for row in frame.select(*columns).toLocalIterator()
    )
    return write_keyed_savepoint(target_directory, {uid: entries}, max_parallelism)


def _python(value):
    """A Spark value as the state keeps it: a Row as a tuple, lists and dicts inside."""
    if isinstance(value, dict):
        return {_python(k): _python(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_python(v) for v in value]
    if hasattr(value, "asDict"):
        return tuple(_python(v) for v in value)
    return value
