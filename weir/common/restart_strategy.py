"""Restart strategies, mirroring ``pyflink.common.restart_strategy`` and Flink's
``restart-strategy.*`` configuration keys: whether, and after how long, a failed job
restarts from its last checkpoint.

Each configuration answers ``next_delay_ms(failures, now_ms)``: the wait before the next
restart given the times of the failures so far (the last one just now), or None: the job
fails for good.
"""

import random
import re
from datetime import timedelta
from typing import List, Optional, Union

from weir.common.configuration import Configuration

__all__ = ["RestartStrategies", "RestartStrategyConfiguration", "restart_strategy_of"]


# a duration: milliseconds, or a timedelta
_Millis = Union[int, float, timedelta]


def _ms(value: _Millis, what: str) -> int:
    if isinstance(value, timedelta):
        return int(value.total_seconds() * 1000)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(
            f"{what} must be a non-negative number of milliseconds or a timedelta, got {value!r}"
        )
    return int(value)


class RestartStrategyConfiguration:
    def next_delay_ms(self, failures: List[int], now_ms: int) -> Optional[int]:
        raise NotImplementedError

    def get_description(self) -> str:
        raise NotImplementedError


class NoRestartStrategyConfiguration(RestartStrategyConfiguration):
    def next_delay_ms(self, failures: List[int], now_ms: int) -> Optional[int]:
        return None

    def get_description(self) -> str:
        return "Restart deactivated."


class FixedDelayRestartStrategyConfiguration(RestartStrategyConfiguration):
    def __init__(self, restart_attempts: int, delay_between_attempts: _Millis) -> None:
        if not isinstance(restart_attempts, int) or restart_attempts < 0:
            raise ValueError(
                f"restart attempts must be a non-negative int, got {restart_attempts!r}"
            )
        self.restart_attempts = restart_attempts
        self.delay_ms = _ms(delay_between_attempts, "the delay between attempts")

    def get_restart_attempts(self) -> int:
        return self.restart_attempts

    def get_delay_between_attempts(self) -> timedelta:
        return timedelta(milliseconds=self.delay_ms)

    def next_delay_ms(self, failures: List[int], now_ms: int) -> Optional[int]:
        return self.delay_ms if len(failures) <= self.restart_attempts else None

    def get_description(self) -> str:
        return (
            f"Restart with fixed delay ({self.delay_ms} ms). #{self.restart_attempts} "
            "restart attempts."
        )


class FailureRateRestartStrategyConfiguration(RestartStrategyConfiguration):
    def __init__(
        self,
        max_failure_rate: int,
        failure_interval: _Millis,
        delay_between_attempts_interval: _Millis,
    ) -> None:
        if not isinstance(max_failure_rate, int) or max_failure_rate < 1:
            raise ValueError(f"the failure rate must be a positive int, got {max_failure_rate!r}")
        self.max_failure_rate = max_failure_rate
        self.failure_interval_ms = _ms(failure_interval, "the failure interval")
        self.delay_ms = _ms(delay_between_attempts_interval, "the delay between attempts")

    def get_max_failure_rate(self) -> int:
        return self.max_failure_rate

    def get_failure_interval(self) -> timedelta:
        return timedelta(milliseconds=self.failure_interval_ms)

    def get_delay_between_attempts_interval(self) -> timedelta:
        return timedelta(milliseconds=self.delay_ms)

    def next_delay_ms(self, failures: List[int], now_ms: int) -> Optional[int]:
        recent = [t for t in failures if now_ms - t <= self.failure_interval_ms]
        return self.delay_ms if len(recent) <= self.max_failure_rate else None

    def get_description(self) -> str:
        return (
            f"Failure rate restart with maximum of {self.max_failure_rate} failures "
            f"within interval {self.failure_interval_ms} ms and fixed delay "
            f"{self.delay_ms} ms."
        )


class ExponentialDelayRestartStrategyConfiguration(RestartStrategyConfiguration):
    """Waits initial_backoff, then multiplier times longer after each failure (at most
    max_backoff, give or take jitter_factor of it); a job that ran reset_backoff_threshold
    without failing starts again from initial_backoff. It restarts without limit."""

    def __init__(
        self,
        initial_backoff: _Millis = 1000,
        max_backoff: _Millis = 60_000,
        backoff_multiplier: float = 1.5,
        reset_backoff_threshold: _Millis = 3_600_000,
        jitter_factor: float = 0.1,
        rng: Optional[random.Random] = None,
    ) -> None:
        self.initial_ms = _ms(initial_backoff, "the initial backoff")
        self.max_ms = _ms(max_backoff, "the max backoff")
        if backoff_multiplier < 1 or not 0 <= jitter_factor <= 1:
            raise ValueError("the backoff multiplier must be >= 1 and the jitter factor in [0, 1]")
        self.multiplier = float(backoff_multiplier)
        self.reset_ms = _ms(reset_backoff_threshold, "the reset backoff threshold")
        self.jitter = float(jitter_factor)
        self.rng = rng or random.Random()

    def next_delay_ms(self, failures: List[int], now_ms: int) -> Optional[int]:
        streak = 1
        for earlier, later in zip(reversed(failures[:-1]), reversed(failures)):
            if later - earlier >= self.reset_ms:
                break
            streak += 1
        backoff = min(self.initial_ms * self.multiplier ** (streak - 1), self.max_ms)
        spread = backoff * self.jitter
        return max(0, int(backoff + self.rng.uniform(-spread, spread)))

    def get_description(self) -> str:
        return (
            f"Restart with exponential delay: initial {self.initial_ms} ms, max "
            f"{self.max_ms} ms, multiplier {self.multiplier}."
        )


class FallbackRestartStrategyConfiguration(RestartStrategyConfiguration):
    """The strategy of the job's configuration (restart-strategy.*), else no restart."""

    def next_delay_ms(self, failures: List[int], now_ms: int) -> Optional[int]:
        return None

    def get_description(self) -> str:
        return "Cluster level default restart strategy"


class RestartStrategies:
    @staticmethod
    def no_restart() -> RestartStrategyConfiguration:
        return NoRestartStrategyConfiguration()

    @staticmethod
    def fall_back_restart() -> RestartStrategyConfiguration:
        return FallbackRestartStrategyConfiguration()

    @staticmethod
    def fixed_delay_restart(
        restart_attempts: int, delay_between_attempts: _Millis
    ) -> FixedDelayRestartStrategyConfiguration:
        return FixedDelayRestartStrategyConfiguration(restart_attempts, delay_between_attempts)

    @staticmethod
    def failure_rate_restart(
        failure_rate: int, failure_interval: _Millis, delay_interval: _Millis
    ) -> FailureRateRestartStrategyConfiguration:
        return FailureRateRestartStrategyConfiguration(
            failure_rate, failure_interval, delay_interval
        )

    @staticmethod
    def exponential_delay_restart(
        initial_backoff: _Millis,
        max_backoff: _Millis,
        backoff_multiplier: float,
        reset_backoff_threshold: _Millis,
        jitter_factor: float,
    ) -> ExponentialDelayRestartStrategyConfiguration:
        return ExponentialDelayRestartStrategyConfiguration(
            initial_backoff, max_backoff, backoff_multiplier, reset_backoff_threshold, jitter_factor
        )


_UNITS = {
    "ms": 1,
    "milli": 1,
    "millis": 1,
    "s": 1000,
    "sec": 1000,
    "second": 1000,
    "seconds": 1000,
    "min": 60_000,
    "minute": 60_000,
    "minutes": 60_000,
    "h": 3_600_000,
    "hour": 3_600_000,
    "hours": 3_600_000,
    "d": 86_400_000,
    "day": 86_400_000,
    "days": 86_400_000,
}


def parse_duration_ms(text: str, key: str) -> int:
    """A Flink duration setting ('10 s', '500ms', '1 min', a bare number: ms) in ms."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", text.lower())
    if not match or match.group(2) not in ("", *_UNITS):
        raise ValueError(f"'{key}': cannot read {text!r} as a duration (e.g. '10 s')")
    return int(float(match.group(1)) * _UNITS.get(match.group(2), 1))


def restart_strategy_of(
    configuration: Optional[Configuration],
) -> Optional[RestartStrategyConfiguration]:
    """The strategy the `restart-strategy.*` keys of `configuration` set (None: none)."""
    if configuration is None:
        return None
    kind = (
        configuration.get_string("restart-strategy.type")
        or configuration.get_string("restart-strategy")
        or ""
    ).lower()
    if not kind:
        return None

    def value(name: str, default: Union[str, int, float]) -> tuple[Union[str, int, float], str]:
        key = f"restart-strategy.{name}"
        text = configuration.get_string(key)
        return default if text is None else text, key

    def duration(name: str, default: str) -> int:
        text, key = value(name, default)
        return parse_duration_ms(str(text), key)

    if kind in ("none", "off", "disable", "no_restart", "norestart"):
        return RestartStrategies.no_restart()
    if kind in ("fixed-delay", "fixeddelay", "fixed_delay"):
        return RestartStrategies.fixed_delay_restart(
            int(value("fixed-delay.attempts", 1)[0]), duration("fixed-delay.delay", "1 s")
        )
    if kind in ("failure-rate", "failurerate", "failure_rate"):
        return RestartStrategies.failure_rate_restart(
            int(value("failure-rate.max-failures-per-interval", 1)[0]),
            duration("failure-rate.failure-rate-interval", "1 min"),
            duration("failure-rate.delay", "1 s"),
        )
    if kind in ("exponential-delay", "exponentialdelay", "exponential_delay"):
        return RestartStrategies.exponential_delay_restart(
            duration("exponential-delay.initial-backoff", "1 s"),
            duration("exponential-delay.max-backoff", "1 min"),
            float(value("exponential-delay.backoff-multiplier", 1.5)[0]),
            duration("exponential-delay.reset-backoff-threshold", "1 h"),
            float(value("exponential-delay.jitter-factor", 0.1)[0]),
        )
    raise ValueError(
        f"'restart-strategy.type': unknown strategy {kind!r} (none, "
        "fixed-delay, failure-rate or exponential-delay)"
    )
