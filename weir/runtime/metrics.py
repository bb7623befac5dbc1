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


class MetricsLog:
    """A job's metric counts per micro-batch: a batch run again (a replay after a failure)
    replaces its own counts, so the totals count every batch once."""

    def __init__(self):
        self._batches = {}

    def record(self, batch_id: int, counts: dict) -> None:
        self._batches[batch_id] = dict(counts)

    def totals(self) -> dict:
        totals = {}
        for counts in self._batches.values():
            for name, count in counts.items():
                totals[name] = totals.get(name, 0) + count
        return totals
