"""Operator metrics named as Flink's Prometheus reporter names them: the operator found by
its uid (the longest that prefixes the metric), a user metric's groups and any character
Prometheus does not allow in a name joined by '_'."""

from weir.rest.prometheus import _operator_metric

NAMES = {"rates": "Rates", "rates.v2": "Rates v2", "sink-0": "Sink"}


def test_user_metric_groups_join_with_underscores():
    assert _operator_metric("rates.values.ts.mean", NAMES) == ("rates", "values_ts_mean", None)
    assert _operator_metric("rates.v2.numRecordsIn", NAMES) == ("rates.v2", "numRecordsIn", None)
    assert _operator_metric("sink-0.records-in/s", NAMES) == ("sink-0", "records_in_s", None)


def test_one_subtasks_count_has_its_index():
    assert _operator_metric("rates.v2.subtask.3.numRecordsIn", NAMES) == (
        "rates.v2",
        "numRecordsIn",
        "3",
    )
    assert _operator_metric("rates.keyGroup.7.numRecordsIn", NAMES) == (None, None, None)


def test_a_metric_of_no_operator_is_none():
    assert _operator_metric("uptime", NAMES) == (None, None, None)
    assert _operator_metric("other.numRecordsIn", NAMES) == (None, None, None)
