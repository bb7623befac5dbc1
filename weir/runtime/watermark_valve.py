"""The one rule weir combines watermarks by, as Flink's StatusWatermarkValve: the minimum
over the inputs that hold the watermark, the idle ones (and ended ones, which the caller
names idle) left out. An input without a mark yet is either not counted (an engine's
watermark group that has produced nothing: the engine ignores it) or holds the
watermark back until it has one (a source partition, which Flink waits for).

Its users: the job's watermark without idle groups (weir.control.idleness), operators'
own watermarks (weir.control.watermarks) and a partitioned source's watermark over its
splits (weir.runtime.split_watermarks).
"""

from typing import Any, Collection, Hashable, Iterable, List, Mapping, Optional

IGNORED = "ignored"  # an input without a mark does not count
WAITS = "waits"  # an input without a mark holds the watermark back


def holding(inputs: Iterable[Hashable], idle: Collection[Hashable] = ()) -> List[Hashable]:
    """The inputs that hold the watermark: those not idle."""
    return [name for name in inputs if name not in idle]


def valve(
    marks: Mapping[Any, int],
    inputs: Optional[Iterable[Hashable]] = None,
    idle: Collection[Hashable] = (),
    without_mark: str = IGNORED,
) -> Optional[int]:
    """The watermark of `inputs` (all those `marks` has, by default) from their `marks`:
    the minimum over those that hold it; None where none holds it with a mark, or
    (`without_mark` WAITS) where one that holds it has no mark yet."""
    held = holding(marks if inputs is None else inputs, idle)
    if without_mark == WAITS and any(name not in marks for name in held):
        return None
    present = [marks[name] for name in held if name in marks]
    return min(present) if present else None
