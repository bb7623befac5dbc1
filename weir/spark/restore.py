"""What a restarted job restores beside Spark's state: the union list states of its
non-keyed instances (weir.runtime.state.operator_state), which every instance gets back.

Spark keeps each instance's own operator state with its key group; a union needs every
instance's lists, so the driver keeps them too: after each micro-batch that changed them,
a file named after the batch in the checkpoint directory. A restore reads the newest file
of a batch Spark committed (a later one belongs to a batch Spark will run again).
"""

import os
import pickle

from weir.runtime.sink_writers import atomic_write

DIRECTORY = "weir-union-state"
KEEP = 2


def _batch_ids(directory: str) -> list:
    if not os.path.isdir(directory):
        return []
    return sorted(int(name) for name in os.listdir(directory) if name.isdigit())


def last_committed_batch(checkpoint_dir: str):
    """The id of the last micro-batch Spark committed, or None."""
    committed = _batch_ids(os.path.join(checkpoint_dir, "commits"))
    return committed[-1] if committed else None


def load_union_states(checkpoint_dir: str) -> dict:
    """{(operator uid, key group): {name: list}} as of the last committed micro-batch."""
    committed = last_committed_batch(checkpoint_dir)
    directory = os.path.join(checkpoint_dir, DIRECTORY)
    kept = [b for b in _batch_ids(directory) if committed is not None and b <= committed]
    if not kept:
        return {}
    with open(os.path.join(directory, str(kept[-1])), "rb") as handle:
        return pickle.load(handle)


def save_union_states(checkpoint_dir: str, batch_id: int, latest: dict) -> None:
    """Keeps `latest` as of `batch_id`, and the newest files before it only."""
    directory = os.path.join(checkpoint_dir, DIRECTORY)
    atomic_write(os.path.join(directory, str(batch_id)), pickle.dumps(latest))
    for old in [b for b in _batch_ids(directory) if b < batch_id][:-(KEEP - 1) or None]:
        os.remove(os.path.join(directory, str(old)))
