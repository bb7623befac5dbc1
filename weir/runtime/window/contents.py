"""What a window keeps of its elements, and the user's function over a fired window.

Contents: a running reduction, an aggregate accumulator, or the elements themselves (for
process/apply and for evictors). Each stores one entry in the window's namespace.
"""

from weir.runtime.window.windows import TimestampedValue

ENTRY = "contents"


class ReduceContents:
    def __init__(self, reduce_function):
        self.reduce = getattr(reduce_function, "reduce", reduce_function)
        self.user_function = reduce_function

    def add(self, current, value, timestamp):
        return value if current is None else self.reduce(current, value)

    def merge(self, a, b):
        return self.reduce(a, b)

    def result(self, stored):
        return [stored]

    def of_elements(self, values):
        """The reduction of `values` (used behind an evictor); None if empty."""
        current = None
        for value in values:
            current = value if current is None else self.reduce(current, value)
        return None if current is None else [current]


class AggregateContents:
    def __init__(self, aggregate_function):
        self.function = aggregate_function
        self.user_function = aggregate_function

    def add(self, current, value, timestamp):
        if current is None:
            current = self.function.create_accumulator()
        return self.function.add(value, current)

    def merge(self, a, b):
        return self.function.merge(a, b)

    def result(self, stored):
        return [self.function.get_result(stored)]

    def of_elements(self, values):
        accumulator = self.function.create_accumulator()
        for value in values:
            accumulator = self.function.add(value, accumulator)
        return [self.function.get_result(accumulator)]


class ListContents:
    user_function = None

    def add(self, current, value, timestamp):
        if current is None:
            return [value]
        current.append(value)
        return current

    def merge(self, a, b):
        return a + b

    def result(self, stored):
        return stored

    def of_elements(self, values):
        return values


class EvictingContents:
    """Keeps (value, timestamp) of every element; the evictor runs around each firing."""

    def __init__(self, inner, evictor):
        self.inner = inner
        self.evictor = evictor
        self.user_function = inner.user_function

    def add(self, current, value, timestamp):
        if current is None:
            return [(value, timestamp)]
        current.append((value, timestamp))
        return current

    def merge(self, a, b):
        return a + b

    def evaluate(self, stored, window, evictor_context):
        """(input for the window function or None, elements to keep)."""
        elements = [TimestampedValue(v, ts) for v, ts in stored]
        self.evictor.evict_before(elements, len(elements), window, evictor_context)
        result = self.inner.of_elements([e.value for e in elements])
        self.evictor.evict_after(elements, len(elements), window, evictor_context)
        return result, [(e.value, e.timestamp) for e in elements]


# -- the user's function over a fired window ---------------------------------------------

class PassThrough:
    """reduce()/aggregate() without a window function: the result is the output."""

    user_function = None

    def process(self, key, window, context, elements):
        return elements

    def clear(self, context):
        pass


class ProcessWindow:
    """A ProcessWindowFunction: process(key, context, elements)."""

    def __init__(self, function):
        self.user_function = function

    def process(self, key, window, context, elements):
        return self.user_function.process(key, context, elements)

    def clear(self, context):
        clear = getattr(self.user_function, "clear", None)
        if clear is not None:
            clear(context)


class ApplyWindow(ProcessWindow):
    """A WindowFunction: apply(key, window, inputs)."""

    def process(self, key, window, context, elements):
        apply = getattr(self.user_function, "apply", self.user_function)
        return apply(key, window, elements)

    def clear(self, context):
        pass


class ProcessAllWindow(ProcessWindow):
    """A ProcessAllWindowFunction: process(context, elements)."""

    def process(self, key, window, context, elements):
        return self.user_function.process(context, elements)


class ApplyAllWindow(ApplyWindow):
    """An AllWindowFunction: apply(window, inputs)."""

    def process(self, key, window, context, elements):
        apply = getattr(self.user_function, "apply", self.user_function)
        return apply(window, elements)
