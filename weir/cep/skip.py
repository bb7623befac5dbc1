"""After-match skip strategies: which partial matches a match discards (FlinkCEP's
AfterMatchSkipStrategy). Events are told apart by their EventId, (timestamp, number
among the events of that timestamp), ordered as Flink orders them."""


class AfterMatchSkipStrategy:
    """NO_SKIP keeps every match; the others drop partial matches (and matches not yet
    emitted) that started before a point of the match just emitted, and hold a match
    back until no partial match that started before it is left."""

    kind = "NO_SKIP"
    pattern_name: str | None = None
    throws = False

    @staticmethod
    def no_skip() -> "AfterMatchSkipStrategy":
        return AfterMatchSkipStrategy()

    @staticmethod
    def skip_to_next() -> "AfterMatchSkipStrategy":
        return _Skip("SKIP_TO_NEXT")

    @staticmethod
    def skip_past_last_event() -> "AfterMatchSkipStrategy":
        return _Skip("SKIP_PAST_LAST_EVENT")

    @staticmethod
    def skip_to_first(pattern_name: str) -> "AfterMatchSkipStrategy":
        return _Skip("SKIP_TO_FIRST", pattern_name)

    @staticmethod
    def skip_to_last(pattern_name: str) -> "AfterMatchSkipStrategy":
        return _Skip("SKIP_TO_LAST", pattern_name)

    def is_skip_strategy(self) -> bool:
        return self.kind != "NO_SKIP"

    def pruning_id(self, match: dict):
        """The EventId before which (or up to which) partial matches are discarded, or
        None: none are. `match`: pattern name -> [EventId, ...]."""
        return None

    def should_prune(self, start_id, pruning_id) -> bool:
        return False

    def __repr__(self):
        named = f"({self.pattern_name!r})" if self.pattern_name else "()"
        return f"AfterMatchSkipStrategy.{self.kind.lower()}{named}"


class _Skip(AfterMatchSkipStrategy):
    def __init__(self, kind: str, pattern_name: str | None = None, throws: bool = False):
        self.kind, self.pattern_name, self.throws = kind, pattern_name, throws

    def throw_exception_on_miss(self) -> "AfterMatchSkipStrategy":
        """SKIP_TO_FIRST/LAST: a match with no event of the pattern (or whose first event
        is it: the skip would not move on) fails the job rather than skipping nothing."""
        return _Skip(self.kind, self.pattern_name, True)

    def pruning_id(self, match: dict):
        ids = [event_id for ids in match.values() for event_id in ids]
        if self.kind == "SKIP_PAST_LAST_EVENT":
            return max(ids)
        if self.kind == "SKIP_TO_NEXT":
            return min(ids)
        named = match.get(self.pattern_name) or []
        if not named:
            if self.throws:
                raise RuntimeError(
                    f"Could not skip to {self.kind.split('_')[-1].lower()} "
                    f"element of a match: no element in it is mapped to "
                    f"'{self.pattern_name}'"
                )
            return None
        pruning = named[0] if self.kind == "SKIP_TO_FIRST" else named[-1]
        if self.throws and min(ids) == pruning:
            raise RuntimeError("Could not skip to first element of a match.")
        return pruning

    def should_prune(self, start_id, pruning_id) -> bool:
        if self.kind in ("SKIP_PAST_LAST_EVENT", "SKIP_TO_NEXT"):
            return start_id <= pruning_id
        return start_id < pruning_id
