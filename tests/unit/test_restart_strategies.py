"""Restart strategies decide, from the failures so far, whether and when a job restarts
(Flink's fixed-delay, failure-rate and exponential-delay strategies and their keys)."""

import random

import pytest

from weir.common import Configuration, RestartStrategies
from weir.common.restart_strategy import (
    ExponentialDelayRestartStrategyConfiguration,
    parse_duration_ms,
    restart_strategy_of,
)


def test_fixed_delay_restarts_its_attempts_then_gives_up():
    strategy = RestartStrategies.fixed_delay_restart(2, 500)
    assert [strategy.next_delay_ms(list(range(n)), 10) for n in (1, 2, 3)] == [500, 500, None]
    assert strategy.get_restart_attempts() == 2
    assert strategy.get_delay_between_attempts().total_seconds() == 0.5


def test_failure_rate_counts_the_failures_within_its_interval():
    strategy = RestartStrategies.failure_rate_restart(2, 1000, 50)
    assert strategy.next_delay_ms([0], 0) == 50
    assert strategy.next_delay_ms([0, 400], 400) == 50
    assert strategy.next_delay_ms([0, 400, 900], 900) is None  # three within a second
    assert strategy.next_delay_ms([0, 400, 1500], 1500) == 50  # the first is too old


def test_exponential_delay_grows_caps_and_resets():
    strategy = ExponentialDelayRestartStrategyConfiguration(100, 500, 2.0, 10_000, 0.0)
    failures, delays = [], []
    for now in (0, 1, 2, 3, 4):
        failures.append(now)
        delays.append(strategy.next_delay_ms(failures, now))
    assert delays == [100, 200, 400, 500, 500]
    failures.append(20_000)  # ran longer than the reset threshold
    assert strategy.next_delay_ms(failures, 20_000) == 100


def test_exponential_delay_jitter_stays_within_its_factor():
    strategy = ExponentialDelayRestartStrategyConfiguration(
        1000, 60_000, 1.5, 3_600_000, 0.1, rng=random.Random(3)
    )
    delays = {strategy.next_delay_ms([0], 0) for _ in range(200)}
    assert min(delays) >= 900 and max(delays) <= 1100 and len(delays) > 50


def test_the_configuration_keys_set_a_strategy():
    def strategy(**keys):
        configuration = Configuration()
        for key, value in keys.items():
            configuration.set_string("restart-strategy." + key.replace("_", "."), value)
        return restart_strategy_of(configuration)

    fixed = strategy(
        type="fixed-delay", **{"fixed-delay_attempts": "4", "fixed-delay_delay": "2 s"}
    )
    assert (fixed.restart_attempts, fixed.delay_ms) == (4, 2000)
    rate = strategy(
        type="failure-rate",
        **{
            "failure-rate_max-failures-per-interval": "3",
            "failure-rate_failure-rate-interval": "5 min",
            "failure-rate_delay": "250ms",
        },
    )
    assert (rate.max_failure_rate, rate.failure_interval_ms, rate.delay_ms) == (3, 300_000, 250)
    exponential = strategy(type="exponential-delay")
    assert (exponential.initial_ms, exponential.max_ms, exponential.multiplier) == (
        1000,
        60_000,
        1.5,
    )
    assert strategy(type="none").next_delay_ms([0], 0) is None
    assert restart_strategy_of(Configuration()) is None
    with pytest.raises(ValueError, match="'restart-strategy.type': unknown strategy 'sometimes'"):
        strategy(type="sometimes")


def test_a_duration_setting_that_is_not_one_is_refused():
    assert parse_duration_ms("1 h", "k") == 3_600_000 and parse_duration_ms("15", "k") == 15
    with pytest.raises(ValueError, match="'k': cannot read 'soon' as a duration"):
        parse_duration_ms("soon", "k")
