"""Built-in aggregate functions for `aggregate()` (not in PyFlink; plain Python forms).

    keyed.window(TumblingEventTimeWindows.of(Time.seconds(5))).aggregate(Avg("temperature"))

`Count()` counts elements; `Sum(field)`, `Min(field)`, `Max(field)` and `Avg(field)` give the
sum, smallest, largest (the first of equal values) and mean of one field: a Row field name,
a position, or None (the default) for the element itself. Each is an AggregateFunction, so
it combines with a ProcessWindowFunction (`aggregate(Count(), window_function=...)`) like
any other. On event-time tumbling and sliding windows the window operator computes them for
a whole micro-batch at once in numpy, with the same results as adding element by element.
"""

from weir.datastream.functions import AggregateFunction
from weir.runtime.aggregations import Avg, Count, Max, Min, Sum

for _function in (Avg, Count, Max, Min, Sum):
    AggregateFunction.register(_function)

__all__ = ["Avg", "Count", "Max", "Min", "Sum"]
