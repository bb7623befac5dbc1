"""Operator metrics (PyFlink's MetricGroup: counters, gauges, meters, distributions), kept
beside the records, not in them.

An operator updates its metric group; after each key group (or routed chunk) of a
micro-batch the engine takes what changed (`take_increments`) and reports it once for that
micro-batch, so a replayed micro-batch replaces its own reports instead of adding to them.
A report is a counter's increment (an int), or a tuple: (GAUGE, value), (METER, time
span in seconds, events marked), (DISTRIBUTION, count, sum, min, max).

A job's totals (MetricsLog.totals) give a counter's count, a gauge's latest value, a
meter's rate (events per second over its time span, as Flink's MeterView), and a
distribution's '<name>.count', '.sum', '.min', '.max' and '.mean'.
"""

import time
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeGuard, TypeVar, Union

GAUGE, METER, DISTRIBUTION = "gauge", "meter", "distribution"
# A metric's report: a counter's increment, or (GAUGE, value), (METER, time span, events),
# (DISTRIBUTION, count, sum, min, max).
Report = Union[int, Tuple[Any, ...]]


class Counter:
    def __init__(self) -> None:
        self._count = 0
        self._taken = 0

    def inc(self, n: int = 1) -> None:
        self._count += n

    def dec(self, n: int = 1) -> None:
        self._count -= n

    def get_count(self) -> int:
        return self._count

    def _take(self) -> Optional[Report]:
        change, self._taken = self._count - self._taken, self._count
        return change or None


class Meter(Counter):
    """Events marked; reported as their rate per second over `time_span_in_seconds`."""

    def __init__(self, time_span_in_seconds: int) -> None:
        super().__init__()
        self.time_span = time_span_in_seconds

    def mark_event(self, value: int = 1) -> None:
        self.inc(value)

    def _take(self) -> Optional[Report]:
        change = super()._take()
        return None if change is None else (METER, self.time_span, change)


class Distribution:
    """The count, sum, minimum and maximum of the values it was updated with."""

    def __init__(self) -> None:
        self._pending: Optional[List[Any]] = None  # [count, sum, min, max]

    def update(self, value: Any) -> None:
        pending = self._pending
        if pending is None:
            self._pending = [1, value, value, value]
            return
        pending[0] += 1
        pending[1] += value
        pending[2] = min(pending[2], value)
        pending[3] = max(pending[3], value)

    def _take(self) -> Optional[Report]:
        pending, self._pending = self._pending, None
        return None if pending is None else (DISTRIBUTION, *pending)


class _Gauge:
    def __init__(self, function: Callable[[], Any]) -> None:
        self.function = function

    def _take(self) -> Optional[Report]:
        return (GAUGE, self.function())


_Metric = Union[Counter, Distribution, _Gauge]
M = TypeVar("M", bound=_Metric)


class MetricGroup:
    """`runtime_context.get_metrics_group()`: metrics by name; `add_group` names a sub
    group ('<group>.<metric>', with `extra`: '<group>.<extra>.<metric>')."""

    def __init__(self, prefix: str = "", metrics: Optional[Dict[str, _Metric]] = None) -> None:
        self._prefix = prefix
        self._metrics: Dict[str, _Metric] = (
            {} if metrics is None else metrics
        )  # shared with its sub groups

    def add_group(self, name: str, extra: Optional[str] = None) -> "MetricGroup":
        scope = self._name(name) + ("" if extra is None else "." + _checked(extra))
        return MetricGroup(scope + ".", self._metrics)

    def counter(self, name: str) -> Counter:
        return self._metric(name, Counter, Counter)

    def gauge(self, name: str, obj: Callable[[], Any]) -> None:
        if not callable(obj):
            raise TypeError(f"gauge '{name}' needs a function giving its value")
        self._metrics[self._name(name)] = _Gauge(obj)

    def meter(self, name: str, time_span_in_seconds: int = 60) -> Meter:
        if time_span_in_seconds <= 0:
            raise ValueError(f"meter '{name}': the time span must be positive")
        return self._metric(name, Meter, lambda: Meter(time_span_in_seconds))

    def distribution(self, name: str) -> Distribution:
        return self._metric(name, Distribution, Distribution)

    def _name(self, name: str) -> str:
        return self._prefix + _checked(name)

    def _metric(self, name: str, kind: type[M], make: Callable[[], M]) -> M:
        full = self._name(name)
        metric = self._metrics.get(full)
        if metric is None:
            metric = self._metrics[full] = make()
        elif not isinstance(metric, kind):
            raise ValueError(f"metric '{full}' is already a {type(metric).__name__}")
        return metric

    def take_increments(self) -> Dict[str, Report]:
        """{name: report} of the metrics that changed since the last call (a gauge
        always reports its value)."""
        reports = {}
        for name, metric in self._metrics.items():
            report = metric._take()
            if report is not None:
                reports[name] = report
        return reports


def _checked(name: object) -> str:
    if not isinstance(name, str) or not name:
        raise ValueError("a metric needs a non-empty name")
    return name


def merge_report(reports: Dict[str, Report], name: str, report: Report) -> None:
    """Adds `report` to `reports[name]` (the reports of one micro-batch)."""
    before: Any = reports.get(name)  # (None, or of `report`'s kind: a name's reports are)
    if before is None:
        reports[name] = report
    elif isinstance(report, int):
        reports[name] = before + report
    elif report[0] == METER:
        reports[name] = (METER, report[1], before[2] + report[2])
    elif report[0] == DISTRIBUTION:
        reports[name] = _merged_distribution(before, report)
    else:  # a gauge: the value reported last
        reports[name] = report


def _merged_distribution(one: Tuple[Any, ...], other: Tuple[Any, ...]) -> Tuple[Any, ...]:
    return (
        DISTRIBUTION,
        one[1] + other[1],
        one[2] + other[2],
        min(one[3], other[3]),
        max(one[4], other[4]),
    )


RECORDS_IN = "numRecordsIn"
RECORDS_OUT = "numRecordsOut"
KEY_GROUP = "keyGroup"  # '<uid>.keyGroup.<key group>.numRecordsIn': one key group's input
STATE_SIZE = "stateSize"  # '<uid>.keyGroup.<key group>.stateSize': its state's bytes
SUBTASK = "subtask"  # '<uid>.subtask.<index>.numRecordsIn': one parallel instance's count


def records_io(uid: str, subtask: int, records_in: int, records_out: int) -> Dict[str, int]:
    """An operator's records in and out (Flink's names; zero counts left out), in all and
    of its parallel instance `subtask` ('<uid>.subtask.<i>.<name>', Flink's per-subtask
    metrics)."""
    counts = {}
    for name, count in ((RECORDS_IN, records_in), (RECORDS_OUT, records_out)):
        if count:
            counts[f"{uid}.{name}"] = count
            counts[f"{uid}.{SUBTASK}.{subtask}.{name}"] = count
    return counts


def is_breakdown(name: str) -> bool:
    """Whether metric `name` is one key group's or one subtask's share of an operator's."""
    return f".{KEY_GROUP}." in name or f".{SUBTASK}." in name


def records_received(received: Dict[Tuple[str, int], int]) -> Dict[str, int]:
    """Sinks' records in, in all and per subtask, of {(sink uid, subtask): records}."""
    counts: Dict[str, int] = {}
    for (uid, subtask), count in received.items():
        for name, n in records_io(uid, subtask, count, 0).items():
            counts[name] = counts.get(name, 0) + n
    return counts


def task_io(
    uid: str, key_group: int, subtask: int, records_in: int, records_out: int
) -> Dict[str, int]:
    """What a keyed operator's task counts of one key group's micro-batch: the operator's
    records in and out (in all and per subtask) and the key group's records in (skew)."""
    counts = records_io(uid, subtask, records_in, records_out)
    if records_in:
        counts[f"{uid}.{KEY_GROUP}.{key_group}.{RECORDS_IN}"] = records_in
    return counts


def key_group_state_size(uid: str, key_group: int, size: int) -> Dict[str, Report]:
    """The size in bytes of one key group's state as its task last wrote it (a gauge)."""
    return {f"{uid}.{KEY_GROUP}.{key_group}.{STATE_SIZE}": (GAUGE, size)}


class MetricsLog:
    """A job's metric reports per micro-batch: a batch run again (a replay after a
    failure) replaces its own reports, so the totals count every batch once. Only the
    last REPLAYABLE batches are kept apart (a replay is of the last batches); older ones
    are folded into one total (and their meters' events kept with their times), so a
    long-running job's log does not grow."""

    REPLAYABLE = 16

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._batches: Dict[int, Tuple[float, Dict[str, Report]]] = {}
        self._folded: Dict[str, Report] = {}
        # (time, name, time span, events) of folded batches
        self._meter_events: List[Tuple[float, str, int, int]] = []
        self.clock = clock

    def record(self, batch_id: int, reports: Dict[str, Report]) -> None:
        self._batches[batch_id] = (self.clock(), dict(reports))
        if len(self._batches) > 2 * self.REPLAYABLE:
            for old in sorted(self._batches)[: -self.REPLAYABLE]:
                self._fold(*self._batches.pop(old))

    def _fold(self, at: float, reports: Dict[str, Report]) -> None:
        for name, report in reports.items():
            if _is_meter(report):
                self._meter_events.append((at, name, report[1], report[2]))
            else:
                merge_report(self._folded, name, report)
        now = self.clock()  # (events older than any time span are of no rate any more)
        self._meter_events = [event for event in self._meter_events if event[0] >= now - event[2]]

    def totals(self) -> Dict[str, Any]:
        totals: Dict[str, Any] = dict(self._folded)
        meters: Dict[str, Tuple[int, int]] = {}
        now = self.clock()
        batches = [self._batches[batch_id] for batch_id in sorted(self._batches)]
        events = self._meter_events + [
            (at, name, report[1], report[2])
            for at, reports in batches
            for name, report in reports.items()
            if _is_meter(report)
        ]
        for at, name, span, count in events:
            within = count if at >= now - span else 0
            meters[name] = (span, meters.get(name, (0, 0))[1] + within)
        for _, reports in batches:
            for name, report in reports.items():
                if not _is_meter(report):
                    merge_report(totals, name, report)
        for name, (span, count) in meters.items():
            totals[name] = count / span
        for name in [name for name, value in totals.items() if isinstance(value, tuple)]:
            totals.update(_flattened(name, totals.pop(name)))
        return totals


def _is_meter(report: Report) -> TypeGuard[Tuple[Any, ...]]:
    return isinstance(report, tuple) and report[0] == METER


def _flattened(name: str, report: Tuple[Any, ...]) -> Dict[str, Any]:
    if report[0] == GAUGE:
        return {name: report[1]}
    _, count, total, low, high = report
    return {
        f"{name}.count": count,
        f"{name}.sum": total,
        f"{name}.min": low,
        f"{name}.max": high,
        f"{name}.mean": total / count,
    }
