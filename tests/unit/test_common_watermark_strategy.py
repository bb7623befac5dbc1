import pytest

from weir.common import Duration, Row, TimestampAssigner, WatermarkStrategy


class FieldAssigner(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value["ts"]


def test_bounded_out_of_orderness_properties():
    s = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(5))
    assert s.out_of_orderness_ms == 5000
    assert s.emits_watermarks is True
    assert s.timestamp_assigner is None
    assert s.idleness_ms is None


def test_monotonous_and_no_watermarks():
    mono = WatermarkStrategy.for_monotonous_timestamps()
    assert mono.out_of_orderness_ms == 0
    assert mono.emits_watermarks is True
    none = WatermarkStrategy.no_watermarks()
    assert none.out_of_orderness_ms is None
    assert none.emits_watermarks is False


def test_watermark_formula_is_max_minus_bound_minus_one():
    s = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(300))
    assert s.watermark_for(1000) == 699
    assert WatermarkStrategy.for_monotonous_timestamps().watermark_for(1000) == 999
    assert WatermarkStrategy.no_watermarks().watermark_for(1000) is None


def test_with_timestamp_assigner_instance_returns_new_strategy():
    base = WatermarkStrategy.for_monotonous_timestamps()
    assigner = FieldAssigner()
    s = base.with_timestamp_assigner(assigner)
    assert s is not base
    assert base.timestamp_assigner is None
    assert s.timestamp_assigner is assigner
    assert s.out_of_orderness_ms == 0
    assert s.extract_timestamp(Row(ts=42), -1) == 42


def test_with_timestamp_assigner_callable_is_wrapped():
    s = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(10)
    ).with_timestamp_assigner(lambda value, ts: value[1] * 10 + ts)
    assert isinstance(s.timestamp_assigner, TimestampAssigner)
    assert s.timestamp_assigner.extract_timestamp(("a", 3), 1) == 31
    assert s.extract_timestamp(("a", 3), 2) == 32


def test_extract_timestamp_without_assigner_returns_record_timestamp():
    s = WatermarkStrategy.for_monotonous_timestamps()
    assert s.extract_timestamp("x", 123) == 123
    assert s.extract_timestamp("x", None) is None


def test_extract_timestamp_rejects_non_int_result():
    s = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda value, ts: 1.5)
    with pytest.raises(
        TypeError, match="returned float 1.5 for record 'x'; timestamps must be int"
    ):
        s.extract_timestamp("x", 0)


def test_with_timestamp_assigner_rejects_bad_arguments():
    s = WatermarkStrategy.for_monotonous_timestamps()
    with pytest.raises(TypeError, match="must be a TimestampAssigner or a callable"):
        s.with_timestamp_assigner(5)
    with pytest.raises(
        TypeError,
        match=r"needs an instance, got the class FieldAssigner; "
        r"use FieldAssigner\(\) instead",
    ):
        s.with_timestamp_assigner(FieldAssigner)
    with pytest.raises(TypeError, match=r"must accept two arguments \(value, record_timestamp\)"):
        s.with_timestamp_assigner(lambda value: 1)


def test_timestamp_assigner_is_abstract():
    with pytest.raises(TypeError):
        TimestampAssigner()


def test_with_idleness_returns_new_strategy():
    base = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_seconds(1)
    ).with_timestamp_assigner(FieldAssigner())
    s = base.with_idleness(Duration.of_minutes(1))
    assert s is not base
    assert base.idleness_ms is None
    assert s.idleness_ms == 60_000
    assert s.out_of_orderness_ms == 1000
    assert isinstance(s.timestamp_assigner, FieldAssigner)


def test_with_idleness_rejects_bad_arguments():
    s = WatermarkStrategy.for_monotonous_timestamps()
    with pytest.raises(
        TypeError,
        match=r"idle_timeout must be a Duration, got int 1000 "
        r"\(for milliseconds use Duration.of_millis\(1000\)\)",
    ):
        s.with_idleness(1000)
    with pytest.raises(ValueError, match="idle_timeout must be greater than zero"):
        s.with_idleness(Duration.of_millis(0))


def test_bounded_out_of_orderness_rejects_non_duration():
    with pytest.raises(TypeError, match=r"max_out_of_orderness must be a Duration, got int 5 "):
        WatermarkStrategy.for_bounded_out_of_orderness(5)
    with pytest.raises(ValueError, match="must not be negative"):
        WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(-1))


def test_repr():
    assert repr(WatermarkStrategy.no_watermarks()) == "WatermarkStrategy.no_watermarks()"
    assert repr(
        WatermarkStrategy.for_monotonous_timestamps().with_idleness(Duration.of_seconds(30))
    ) == ("WatermarkStrategy.for_monotonous_timestamps().with_idleness(Duration.of_seconds(30))")
    assert repr(WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(1500))) == (
        "WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(1500))"
    )


def test_extract_timestamps_of_a_batch_equals_one_by_one():
    items = [(Row(ts=5), None), (Row(ts=7), 3)]
    for assigner in (lambda value, ts: value.ts, FieldAssigner()):
        s = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(assigner)
        assert s.extract_timestamps(items) == [(items[0][0], 5), (items[1][0], 7)]
    assert WatermarkStrategy.no_watermarks().extract_timestamps(items) == items


def test_extract_timestamps_converts_integral_and_rejects_other_results():
    import numpy as np

    s = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda value, ts: np.int64(value)
    )
    result = s.extract_timestamps([(4, None)])
    assert result == [(4, 4)] and type(result[0][1]) is int
    bad = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda value, ts: "x" if value else 1
    )
    with pytest.raises(TypeError, match="returned str 'x' for record 2"):
        bad.extract_timestamps([(0, None), (2, None)])
