"""What a window keeps of its elements, and the user's function over a fired window.

Contents: a running reduction, an aggregate accumulator, or the elements themselves (for
process/apply and for evictors). Each stores one entry in the window's namespace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Optional, Union

from weir.runtime.window.windows import TimestampedValue

if TYPE_CHECKING:
    from weir.runtime.window.contexts import ProcessWindowContext
    from weir.runtime.window.evictors import Evictor
    from weir.runtime.window.windows import Window

ENTRY = "contents"


class ReduceContents:
    def __init__(self, reduce_function: Any) -> None:
        self.reduce = getattr(reduce_function, "reduce", reduce_function)
        self.user_function = reduce_function

    def add(self, current: Any, value: Any, timestamp: Optional[int]) -> Any:
        return value if current is None else self.reduce(current, value)

    def merge(self, a: Any, b: Any) -> Any:
        return self.reduce(a, b)

    def result(self, stored: Any) -> list[Any]:
        return [stored]

    def of_elements(self, values: Iterable[Any]) -> Optional[list[Any]]:
        """The reduction of `values` (used behind an evictor); None if empty."""
        current = None
        for value in values:
            current = value if current is None else self.reduce(current, value)
        return None if current is None else [current]


class AggregateContents:
    def __init__(self, aggregate_function: Any) -> None:
        self.function = aggregate_function
        self.user_function = aggregate_function

    def add(self, current: Any, value: Any, timestamp: Optional[int]) -> Any:
        if current is None:
            current = self.function.create_accumulator()
        return self.function.add(value, current)

    def merge(self, a: Any, b: Any) -> Any:
        return self.function.merge(a, b)

    def result(self, stored: Any) -> list[Any]:
        return [self.function.get_result(stored)]

    def of_elements(self, values: Iterable[Any]) -> list[Any]:
        accumulator = self.function.create_accumulator()
        for value in values:
            accumulator = self.function.add(value, accumulator)
        return [self.function.get_result(accumulator)]


class ListContents:
    user_function = None

    def add(self, current: Optional[list[Any]], value: Any, timestamp: Optional[int]) -> list[Any]:
        if current is None:
            return [value]
        current.append(value)
        return current

    def merge(self, a: list[Any], b: list[Any]) -> list[Any]:
        return a + b

    def result(self, stored: list[Any]) -> list[Any]:
        return stored

    def of_elements(self, values: list[Any]) -> list[Any]:
        return values


class EvictingContents:
    """Keeps (value, timestamp) of every element; the evictor runs around each firing."""

    def __init__(self, inner: ElementContents, evictor: Evictor) -> None:
        self.inner = inner
        self.evictor = evictor
        self.user_function = inner.user_function

    def add(
        self,
        current: Optional[list[tuple[Any, Optional[int]]]],
        value: Any,
        timestamp: Optional[int],
    ) -> list[tuple[Any, Optional[int]]]:
        if current is None:
            return [(value, timestamp)]
        current.append((value, timestamp))
        return current

    def merge(
        self, a: list[tuple[Any, Optional[int]]], b: list[tuple[Any, Optional[int]]]
    ) -> list[tuple[Any, Optional[int]]]:
        return a + b

    def evaluate(
        self,
        stored: list[tuple[Any, Optional[int]]],
        window: Window,
        evictor_context: Evictor.EvictorContext,
    ) -> tuple[Optional[list[Any]], list[tuple[Any, Optional[int]]]]:
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

    def process(
        self, key: Any, window: Window, context: ProcessWindowContext, elements: Iterable[Any]
    ) -> Optional[Iterable[Any]]:
        return elements

    def clear(self, context: ProcessWindowContext) -> None:
        pass


class ProcessWindow:
    """A ProcessWindowFunction: process(key, context, elements)."""

    def __init__(self, function: Any) -> None:
        self.user_function = function

    def process(
        self, key: Any, window: Window, context: ProcessWindowContext, elements: Iterable[Any]
    ) -> Optional[Iterable[Any]]:
        return self.user_function.process(key, context, elements)  # type: ignore[no-any-return]  # (user code)

    def clear(self, context: ProcessWindowContext) -> None:
        clear = getattr(self.user_function, "clear", None)
        if clear is not None:
            clear(context)


class ApplyWindow(ProcessWindow):
    """A WindowFunction: apply(key, window, inputs)."""

    def process(
        self, key: Any, window: Window, context: ProcessWindowContext, elements: Iterable[Any]
    ) -> Optional[Iterable[Any]]:
        apply = getattr(self.user_function, "apply", self.user_function)
        return apply(key, window, elements)  # type: ignore[no-any-return]  # (user code)

    def clear(self, context: ProcessWindowContext) -> None:
        pass


class ProcessAllWindow(ProcessWindow):
    """A ProcessAllWindowFunction: process(context, elements)."""

    def process(
        self, key: Any, window: Window, context: ProcessWindowContext, elements: Iterable[Any]
    ) -> Optional[Iterable[Any]]:
        return self.user_function.process(context, elements)  # type: ignore[no-any-return]  # (user code)


class ApplyAllWindow(ApplyWindow):
    """An AllWindowFunction: apply(window, inputs)."""

    def process(
        self, key: Any, window: Window, context: ProcessWindowContext, elements: Iterable[Any]
    ) -> Optional[Iterable[Any]]:
        apply = getattr(self.user_function, "apply", self.user_function)
        return apply(window, elements)  # type: ignore[no-any-return]  # (user code)


if TYPE_CHECKING:
    # What a window keeps of each element, and the user's function over a fired window
    ElementContents = Union[ReduceContents, AggregateContents, ListContents]
    Contents = Union[ElementContents, EvictingContents]
    WindowFunction = Union[PassThrough, ProcessWindow]
