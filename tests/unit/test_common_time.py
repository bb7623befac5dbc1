import pickle

import pytest

from weir.common import Duration, Time


@pytest.mark.parametrize(
    "time, millis",
    [
        (Time.milliseconds(250), 250),
        (Time.seconds(5), 5_000),
        (Time.minutes(2), 120_000),
        (Time.hours(1), 3_600_000),
        (Time.days(1), 86_400_000),
        (Time.milliseconds(0), 0),
    ],
)
def test_time_to_milliseconds(time, millis):
    assert time.to_milliseconds() == millis


def test_time_equality_hash_and_order():
    assert Time.seconds(60) == Time.minutes(1)
    assert hash(Time.seconds(60)) == hash(Time.minutes(1))
    assert Time.seconds(1) != Time.seconds(2)
    assert Time.seconds(1) < Time.seconds(2)
    assert Time.seconds(1) != Duration.of_seconds(1)


def test_time_repr_uses_largest_exact_unit():
    assert repr(Time.milliseconds(5000)) == "Time.seconds(5)"
    assert repr(Time.milliseconds(1500)) == "Time.milliseconds(1500)"
    assert repr(Time.minutes(120)) == "Time.hours(2)"
    assert repr(Time.days(3)) == "Time.days(3)"
    assert repr(Time.milliseconds(0)) == "Time.milliseconds(0)"


def test_time_may_be_negative_but_not_a_non_int():
    assert Time.seconds(-1).to_milliseconds() == -1000  # as PyFlink's
    with pytest.raises(TypeError, match="Time seconds must be an int, got float 1.5"):
        Time.seconds(1.5)
    with pytest.raises(TypeError, match="got bool True"):
        Time.milliseconds(True)


@pytest.mark.parametrize(
    "duration, millis",
    [
        (Duration.of_millis(250), 250),
        (Duration.of_seconds(5), 5_000),
        (Duration.of_minutes(2), 120_000),
        (Duration.of_hours(1), 3_600_000),
        (Duration.of_days(1), 86_400_000),
    ],
)
def test_duration_to_milliseconds(duration, millis):
    assert duration.to_milliseconds() == millis
    assert duration.to_nanos() == millis * 1_000_000


def test_duration_of_nanos_floors_milliseconds_but_keeps_nanos():
    d = Duration.of_nanos(1_999_999)
    assert d.to_milliseconds() == 1
    assert d.to_nanos() == 1_999_999
    assert d != Duration.of_millis(1)
    assert Duration.of_nanos(2_000_000) == Duration.of_millis(2)


def test_duration_equality_hash_order():
    assert Duration.of_seconds(60) == Duration.of_minutes(1)
    assert hash(Duration.of_seconds(60)) == hash(Duration.of_minutes(1))
    assert Duration.of_hours(24) == Duration.of_days(1)
    assert Duration.of_millis(1) < Duration.of_seconds(1)
    assert len({Duration.of_seconds(1), Duration.of_millis(1000)}) == 1


def test_duration_repr():
    assert repr(Duration.of_millis(5000)) == "Duration.of_seconds(5)"
    assert repr(Duration.of_millis(1)) == "Duration.of_millis(1)"
    assert repr(Duration.of_nanos(1500)) == "Duration.of_nanos(1500)"
    assert repr(Duration.of_minutes(90)) == "Duration.of_minutes(90)"
    assert repr(Duration.of_millis(0)) == "Duration.of_millis(0)"


def test_duration_may_be_negative():
    assert Duration.of_millis(-5).to_milliseconds() == -5  # as PyFlink's
    assert Duration.of_days(-1).to_milliseconds() == -86_400_000


def test_duration_rejects_non_int():
    with pytest.raises(TypeError, match="Duration seconds must be an int, got str '5'"):
        Duration.of_seconds("5")


def test_pickle_round_trip():
    assert pickle.loads(pickle.dumps(Duration.of_nanos(7))) == Duration.of_nanos(7)
    assert pickle.loads(pickle.dumps(Time.hours(3))) == Time.hours(3)
