"""Operator metrics (PyFlink's MetricGroup and Counter), kept beside the records, not in them.

An operator counts into its metric group; after each key group of a micro-batch the engine
takes the increments (`take_increments`) and reports them once for that micro-batch, so a
replayed micro-batch replaces its own counts instead of adding to them.
"""


class Counter:
    def __init__(self):
        self._count = 0
        self._taken = 0

    def inc(self, n: int = 1) -> None:
        self._count += n

    def dec(self, n: int = 1) -> None:
        self._count -= n

    def get_count(self) -> int:
        return self._count


class MetricGroup:
    """`runtime_context.get_metrics_group()`: counters by name."""

    def __init__(self):
        self._counters = {}

    def counter(self, name: str) -> Counter:
        if not isinstance(name, str) or not name:
            raise ValueError("a metric needs a non-empty name")
        counter = self._counters.get(name)
        if counter is None:
            counter = self._counters[name] = Counter()
        return counter

    def take_increments(self) -> dict:
        """{name: change since the last call} of the counters that changed."""
        increments = {}
        for name, counter in self._counters.items():
            change = counter._count - counter._taken
            if change:
                increments[name] = change
                counter._taken = counter._count
        return increments


RECORDS_IN = "numRecordsIn"
RECORDS_OUT = "numRecordsOut"
KEY_GROUP = "keyGroup"  # '<uid>.keyGroup.<key group>.numRecordsIn': one key group's input


def task_io(uid: str, key_group: int, records_in: int, records_out: int) -> dict:
    """What a keyed operator's task counts of one key group's micro-batch: the operator's
    records in and out (Flink's names) and the key group's records in (for skew)."""
    counts = {f"{uid}.{RECORDS_OUT}": records_out} if records_out else {}
    if records_in:
        counts[f"{uid}.{RECORDS_IN}"] = records_in
        counts[f"{uid}.{KEY_GROUP}.{key_group}.{RECORDS_IN}"] = records_in
    return counts


class MetricsLog:
    """A job's metric counts per micro-batch: a batch run again (a replay after a failure)
    replaces its own counts, so the totals count every batch once. Only the last REPLAYABLE
    batches are kept apart (a replay is of the last batches); older ones are folded into
    one total, so a long-running job's log does not grow."""

    REPLAYABLE = 16

    def __init__(self):
        self._batches = {}
        self._folded = {}

    def record(self, batch_id: int, counts: dict) -> None:
        self._batches[batch_id] = dict(counts)
        if len(self._batches) > 2 * self.REPLAYABLE:
            for old in sorted(self._batches)[:-self.REPLAYABLE]:
                _add(self._folded, self._batches.pop(old))

    def totals(self) -> dict:
        totals = dict(self._folded)
        for counts in self._batches.values():
            _add(totals, counts)
        return totals


def _add(totals: dict, counts: dict) -> None:
    for name, count in counts.items():
        totals[name] = totals.get(name, 0) + count
