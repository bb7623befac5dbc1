"""A new savepoint made from data (Flink's State Processor API, writing side: a savepoint
written from a DataSet to bootstrap a new job's state).

`write_keyed_savepoint(path, {uid: [(key, {state name: value})]})` places each key in its
key group (weir.runtime.key_groups, as a job's key_by does) and writes the pages a job's
keyed state backend would hold; a job restored from it (`execution.savepoint.path`) starts
with that state, its sources from their start. Values are stored as the states keep them:
a ValueState's value, a ListState's list, a MapState's dict (no TTL wrapping).
"""

import uuid
from typing import Any, Dict, Iterable, List, Mapping, Tuple

from weir.runtime.key_groups import DEFAULT_MAX_PARALLELISM, stable_key_hash
from weir.runtime.state.backend import DEFAULT_PAGES_PER_KEY_GROUP, dumps
from weir.runtime.state.savepoint import SavepointWriter, savepoint_path


def keyed_pages(
    entries: Iterable[Tuple[Any, Any]], max_parallelism: int
) -> List[Tuple[int, int, bytes]]:
    """(key group, page id, page bytes) holding `entries`: (key, {state name: value})."""
    # (key group, page id) -> {key: states}
    pages: Dict[Tuple[int, int], Dict[Any, Dict[str, Any]]] = {}
    for key, states in entries:
        if not isinstance(states, dict) or not all(isinstance(n, str) for n in states):
            raise TypeError(
                f"key {key!r}: its state must be a {{state name: value}} dict, got {states!r}"
            )
        key_hash = stable_key_hash(key)
        where = (
            key_hash % max_parallelism,
            (key_hash // max_parallelism) % DEFAULT_PAGES_PER_KEY_GROUP,
        )
        page = pages.setdefault(where, {})
        if key in page:
            raise ValueError(f"key {key!r} is given twice")
        page[key] = dict(states)
    return [(group, page_id, dumps(page)) for (group, page_id), page in sorted(pages.items())]


def write_keyed_savepoint(
    target_directory: str,
    operators: Mapping[str, Iterable[Tuple[Any, Any]]],
    max_parallelism: int = DEFAULT_MAX_PARALLELISM,
    job_name: str = "bootstrap",
) -> str:
    """A savepoint in a new directory inside `target_directory` holding the keyed state
    of each operator `uid` of `operators` ({uid: iterable of (key, {state: value})});
    returns its path."""
    job_id = uuid.uuid4().hex
    writer = SavepointWriter(savepoint_path(target_directory, job_id))
    for uid, entries in operators.items():
        writer.write_keyed(uid, keyed_pages(entries, max_parallelism))
    return writer.finish(job_name, job_id, -1, max_parallelism, 1, {})
