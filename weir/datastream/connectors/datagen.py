"""Generated sources: a rate-limited data generator and a number sequence."""

from weir.runtime.sources import DataGeneratorReader


class DataGeneratorSource:
    """Record i is `generator_function(i)` (a callable or an object with `map`).

    `count` None makes it unbounded; `records_per_second` limits its rate, for demos and
    benchmarks. Splits: how many parallel readers share each batch.
    """

    def __init__(
        self,
        generator_function,
        count=None,
        records_per_second=None,
        type_info=None,
        num_splits: int = 1,
        max_records_per_batch=None,
    ):
        function = getattr(generator_function, "map", generator_function)
        if not callable(function):
            raise TypeError("DataGeneratorSource needs a callable generator function")
        if count is not None and (not isinstance(count, int) or count < 0):
            raise ValueError(f"count must be a non-negative int or None, got {count!r}")
        if records_per_second is not None and records_per_second <= 0:
            raise ValueError("records_per_second must be positive")
        self.type_info = type_info
        self._reader = DataGeneratorReader(
            function, count, records_per_second, num_splits, max_records_per_batch
        )

    def create_reader(self):
        return self._reader


def _identity_plus(start):
    return lambda index: start + index


class NumberSequenceSource:
    """The numbers start..end (inclusive), as PyFlink's NumberSequenceSource."""

    def __init__(self, start: int, end: int, num_splits: int = 1):
        if end < start:
            raise ValueError(f"end ({end}) must not be smaller than start ({start})")
        self.type_info = None
        self._reader = DataGeneratorReader(
            _identity_plus(start), end - start + 1, num_splits=num_splits
        )

    def create_reader(self):
        return self._reader
