"""FlinkCEP in Python: complex event processing on weir's keyed state and timers.

    from weir.cep import CEP, Pattern, PatternProcessFunction, Duration

    pattern = Pattern.begin("small").where(lambda t: t.amount < 1.0) \\
        .followed_by("large").where(lambda t: t.amount > 500.0) \\
        .within(Duration.of_minutes(1))

    class Alert(PatternProcessFunction):
        def process_match(self, match, ctx):
            yield (match["small"][0].card, match["large"][0].amount)

    alerts = CEP.pattern(transactions.key_by(lambda t: t.card), pattern).process(Alert())

Flink's API (org.apache.flink.cep) in snake_case: Pattern (weir.cep.pattern),
AfterMatchSkipStrategy (weir.cep.skip), CEP.pattern(stream, pattern[, comparator]) and
its PatternStream. A match is a dict of each pattern name to the events it took, in
order. PyFlink has no CEP; this is weir's (docs/cep.md).
"""

from weir.cep.operator import CepOperator, PatternContext
from weir.cep.pattern import (
    Duration,
    GroupPattern,
    IterativeCondition,
    MalformedPatternException,
    Pattern,
    SimpleCondition,
    WithinType,
)
from weir.cep.skip import AfterMatchSkipStrategy
from weir.datastream.data_stream import KeyedStream


class PatternProcessFunction:
    """process_match(match, ctx): yields the match's outputs (ctx.output(tag, value)
    for side outputs; ctx.timestamp() the match's)."""

    def open(self, runtime_context):
        pass

    def close(self):
        pass

    def process_match(self, match: dict, ctx):
        raise NotImplementedError(f"{type(self).__name__} must define process_match")


class TimedOutPartialMatchHandler:
    """Mixed into a PatternProcessFunction: process_timed_out_match(match, ctx) gets each
    partial match whose window passed (ctx.timestamp(): the window's end)."""

    def process_timed_out_match(self, match: dict, ctx):
        raise NotImplementedError(f"{type(self).__name__} must define process_timed_out_match")


class PatternSelectFunction:
    def select(self, match: dict):
        raise NotImplementedError


class PatternFlatSelectFunction:
    def flat_select(self, match: dict):
        raise NotImplementedError


class PatternTimeoutFunction:
    def timeout(self, match: dict, timeout_timestamp: int):
        raise NotImplementedError


class PatternFlatTimeoutFunction:
    def timeout(self, match: dict, timeout_timestamp: int):
        raise NotImplementedError


class CEP:
    @staticmethod
    def pattern(stream, pattern: Pattern, comparator=None) -> "PatternStream":
        """The matches of `pattern` in `stream`, per key where it is keyed (else over
        the whole stream, as one key); `comparator` orders events of one timestamp."""
        if not isinstance(pattern, Pattern):
            raise TypeError(f"CEP.pattern expects a Pattern, got {pattern!r}")
        return PatternStream(stream, pattern, comparator)


class PatternStream:
    def __init__(self, stream, pattern, comparator=None, late_tag=None, processing_time=False):
        self._stream, self._pattern, self._comparator = stream, pattern, comparator
        self._late_tag, self._processing_time = late_tag, processing_time

    def _with(self, **changes) -> "PatternStream":
        settings = dict(late_tag=self._late_tag, processing_time=self._processing_time)
        settings.update(changes)
        return PatternStream(self._stream, self._pattern, self._comparator, **settings)

    def in_processing_time(self) -> "PatternStream":
        return self._with(processing_time=True)

    def in_event_time(self) -> "PatternStream":
        return self._with(processing_time=False)

    def side_output_late_data(self, output_tag) -> "PatternStream":
        return self._with(late_tag=output_tag)

    def process(self, function, output_type=None):
        if not callable(getattr(function, "process_match", None)):
            raise TypeError(
                "process expects a PatternProcessFunction (with "
                f"process_match(match, ctx)), got {function!r}"
            )
        operator = CepOperator(
            self._pattern, function, self._comparator, self._late_tag, self._processing_time
        )
        keyed = (
            self._stream
            if isinstance(self._stream, KeyedStream)
            else self._stream.key_by(_whole_stream)
        )
        return keyed.process(operator, output_type).name("CepOperator")

    def select(self, *args, output_type=None):
        """select(select_function) or select(timed_out_tag, timeout_function,
        select_function)."""
        tag, timeout, function = _split(args, "select")
        return self.process(_Selecting(function, tag, timeout, flat=False), output_type)

    def flat_select(self, *args, output_type=None):
        """flat_select(function) or flat_select(timed_out_tag, timeout_function,
        function): the functions yield their outputs."""
        tag, timeout, function = _split(args, "flat_select")
        return self.process(_Selecting(function, tag, timeout, flat=True), output_type)


def _whole_stream(value) -> int:
    return 0


def _split(args, name):
    if len(args) == 1:
        return None, None, args[0]
    if len(args) == 3:
        return args
    raise TypeError(
        f"{name} takes (function) or (timed_out_tag, timeout_function, "
        f"function), got {len(args)} arguments"
    )


class _Selecting(PatternProcessFunction, TimedOutPartialMatchHandler):
    """select / flat_select as a PatternProcessFunction: the function's results out,
    the timeout function's to the timed-out tag."""

    def __init__(self, function, tag, timeout, flat: bool):
        self.function, self.tag, self.timeout, self.flat = function, tag, timeout, flat

    def process_match(self, match, ctx):
        method = getattr(self.function, "flat_select" if self.flat else "select", self.function)
        if self.flat:
            yield from method(match) or ()
        else:
            yield method(match)

    def process_timed_out_match(self, match, ctx):
        if self.tag is None:
            return
        method = getattr(self.timeout, "timeout", self.timeout)
        outputs = method(match, ctx.timestamp())
        for value in (outputs or ()) if self.flat else (outputs,):
            ctx.output(self.tag, value)


__all__ = [
    "AfterMatchSkipStrategy",
    "CEP",
    "Duration",
    "GroupPattern",
    "IterativeCondition",
    "MalformedPatternException",
    "Pattern",
    "PatternContext",
    "PatternFlatSelectFunction",
    "PatternFlatTimeoutFunction",
    "PatternProcessFunction",
    "PatternSelectFunction",
    "PatternStream",
    "PatternTimeoutFunction",
    "SimpleCondition",
    "TimedOutPartialMatchHandler",
    "WithinType",
]
