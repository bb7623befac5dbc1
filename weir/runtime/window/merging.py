"""MergingWindowSet: the session windows of one key, each with the window holding its state.

When windows merge, their contents stay in one of the merged windows' namespaces (the
"state window"), so a merge moves no more state than the merged windows' own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional

if TYPE_CHECKING:
    from weir.runtime.window.assigners import MergingWindowAssigner
    from weir.runtime.window.windows import Window

    # (merge_result, merged windows, state window, merged state windows)
    MergeFunction = Callable[[Window, list[Window], Window, list[Window]], None]


class _Collect:
    def __init__(self) -> None:
        self.results: list[tuple[Window, list[Window]]] = []

    def merge(self, to_be_merged: Iterable[Window], merge_result: Window) -> None:
        self.results.append((merge_result, list(to_be_merged)))


class MergingWindowSet:
    def __init__(
        self,
        assigner: MergingWindowAssigner[Any, Any],
        mapping: Optional[Mapping[Window, Window]] = None,
    ) -> None:
        self.assigner = assigner
        self.mapping: dict[Window, Window] = dict(mapping or {})  # window -> state window
        self.changed = False

    def state_window(self, window: Window) -> Optional[Window]:
        return self.mapping.get(window)

    def retire_window(self, window: Window) -> None:
        if self.mapping.pop(window, None) is None:
            raise RuntimeError(f"window {window} is not in the in-flight window set")
        self.changed = True

    def add_window(self, new_window: Window, merge_function: MergeFunction) -> Window:
        """Adds a window, merging it with others; returns the window it ended up in.

        merge_function(merge_result, merged_windows, state_window, merged_state_windows)
        is called for each merge that involves state.
        """
        collect = _Collect()
        self.assigner.merge_windows(list(self.mapping) + [new_window], collect)
        result_window, merged_new = new_window, False
        for merge_result, merged in collect.results:
            if new_window in merged:
                merged.remove(new_window)
                merged_new = True
                result_window = merge_result
            target_state = self.mapping[merged[0]]
            merged_states = [self.mapping.pop(w) for w in merged if w in self.mapping]
            self.mapping[merge_result] = target_state
            merged_states.remove(target_state)
            self.changed = True
            if not (len(merged) == 1 and merged[0] == merge_result):
                merge_function(merge_result, merged, target_state, merged_states)
        if not collect.results or (result_window == new_window and not merged_new):
            self.mapping[result_window] = result_window
            self.changed = True
        return result_window
