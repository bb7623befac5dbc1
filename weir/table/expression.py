"""PyFlink's `pyflink.table.expression`: the Expression class and the units its time
functions take (`col('ts').floor(TimeIntervalUnit.HOUR)`, `extract(...)`)."""

from enum import Enum

from weir.table.expressions import Expression


class TimeIntervalUnit(Enum):
    YEAR = 0
    YEAR_TO_MONTH = 1
    QUARTER = 2
    MONTH = 3
    WEEK = 4
    DAY = 5
    DAY_TO_HOUR = 6
    DAY_TO_MINUTE = 7
    DAY_TO_SECOND = 8
    HOUR = 9
    SECOND = 10
    HOUR_TO_MINUTE = 11
    HOUR_TO_SECOND = 12
    MINUTE = 13
    MINUTE_TO_SECOND = 14


__all__ = ["Expression", "TimeIntervalUnit"]
