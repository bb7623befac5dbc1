"""Window joins and co-groups, built as Flink builds them: each input's records tagged
with their input, both inputs keyed into one window operator (each with its own key
selector), whose window function splits a fired window's elements by input again."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Tuple

from weir.runtime.adapters import _Wrapper, resolve

if TYPE_CHECKING:
    from weir.runtime.window.windows import Window

FIRST, SECOND = 0, 1


class TagInput:
    """A map function: a record of input `label` as (label, record)."""

    def __init__(self, label: int) -> None:
        self.label = label

    def map(self, value: Any) -> Tuple[int, Any]:
        return self.label, value


class TaggedKey:
    """The key of a tagged record: its input's key selector applied to the record."""

    def __init__(self, key_selector: Any) -> None:
        self.call = resolve(key_selector, "get_key")

    def get_key(self, tagged: Tuple[int, Any]) -> Any:
        return self.call(tagged[1])


def _split(elements: Iterable[Tuple[int, Any]]) -> Tuple[list[Any], list[Any]]:
    first: list[Any] = []
    second: list[Any] = []
    for label, value in elements:
        (first if label == FIRST else second).append(value)
    return first, second


class CoGroupWindow(_Wrapper):
    """A WindowFunction calling the user's co_group(first, second) with each input's
    elements of a fired window, in the order they arrived (an input may be empty)."""

    method_name = "co_group"

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self.call = resolve(function, self.method_name)

    def apply(self, key: Any, window: Window, elements: Iterable[Tuple[int, Any]]) -> Any:
        return self.call(*_split(elements))  # (the user's co_group: its outputs)


class JoinWindow(CoGroupWindow):
    """An inner join of a fired window: join(first, second) for every pair, first
    input's elements outermost (as Flink's); nothing when either input is empty."""

    method_name = "join"

    def apply(self, key: Any, window: Window, elements: Iterable[Tuple[int, Any]]) -> list[Any]:
        first, second = _split(elements)
        call = self.call
        return [call(left, right) for left in first for right in second]


class FlatJoinWindow(JoinWindow):
    """As JoinWindow, with join(first, second) returning (or yielding) any number of
    outputs per pair."""

    def apply(self, key: Any, window: Window, elements: Iterable[Tuple[int, Any]]) -> list[Any]:
        first, second = _split(elements)
        call = self.call
        out: list[Any] = []
        for left in first:
            for right in second:
                result = call(left, right)
                if result is not None:
                    out.extend(result)
        return out
