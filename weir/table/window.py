"""PyFlink's group windows and over windows (`pyflink.table.window`):
`Tumble.over(lit(5).seconds).on(col('ts')).alias('w')`, `Slide.over(..).every(..)`,
`Session.with_gap(..)`, `Over.partition_by(..).order_by(..).preceding(..)`."""

from weir.table.expressions import Expression


def _millis(interval, what):
    if not isinstance(interval, Expression) or interval.op != "interval":
        raise ValueError(
            f"{what} takes a time interval such as lit(5).seconds; row-count "
            "group windows are not supported by weir yet"
        )
    return interval.args[0]


def _alias_name(alias):
    return alias if isinstance(alias, str) else alias.args[0]


class GroupWindow:
    """A group window: its kind (tumble, slide, session), sizes in ms, time column and
    alias."""

    not_null = False  # (its properties' types: NOT NULL in SQL)

    def __init__(self, kind, size, slide=None, time_field=None, alias=None):
        self.kind, self.size, self.slide = kind, size, slide
        self.time_field, self.alias_name = time_field, alias

    def on(self, time_field) -> "GroupWindow":
        return GroupWindow(self.kind, self.size, self.slide, time_field, self.alias_name)

    def every(self, slide) -> "GroupWindow":
        return GroupWindow(
            self.kind, self.size, _millis(slide, "every()"), self.time_field, self.alias_name
        )

    def alias(self, alias) -> "GroupWindow":
        return GroupWindow(self.kind, self.size, self.slide, self.time_field, _alias_name(alias))


class Tumble:
    @staticmethod
    def over(size) -> GroupWindow:
        return GroupWindow("tumble", _millis(size, "Tumble.over()"))


class Slide:
    @staticmethod
    def over(size) -> GroupWindow:
        return GroupWindow("slide", _millis(size, "Slide.over()"))


class Session:
    @staticmethod
    def with_gap(gap) -> GroupWindow:
        return GroupWindow("session", _millis(gap, "Session.with_gap()"))


class OverWindow:
    """An over window: partition columns, the time column it is ordered by, its
    preceding bound (rows or an interval; None: unbounded) and alias."""

    def __init__(self, partition_by=(), order_by=None, preceding=None, following=None, alias=None):
        self.partition_by, self.order_field = list(partition_by), order_by
        self.preceding_bound, self.following_bound = preceding, following
        self.alias_name = alias

    def _with(self, **changes) -> "OverWindow":
        fields = dict(
            partition_by=self.partition_by,
            order_by=self.order_field,
            preceding=self.preceding_bound,
            following=self.following_bound,
            alias=self.alias_name,
        )
        fields.update(changes)
        return OverWindow(**fields)

    def order_by(self, order_by) -> "OverWindow":
        return self._with(order_by=order_by)

    def preceding(self, preceding) -> "OverWindow":
        return self._with(preceding=preceding)

    def following(self, following) -> "OverWindow":
        if following.op not in ("current_row", "current_range"):
            raise ValueError(
                "an over window's following bound must be CURRENT_ROW or "
                "CURRENT_RANGE (as in Flink)"
            )
        return self._with(following=following)

    def alias(self, alias) -> "OverWindow":
        return self._with(alias=_alias_name(alias))

    def bound(self):
        """('rows', n), ('range', ms), or ('rows'|'range', None) for unbounded."""
        preceding = self.preceding_bound
        if preceding is None or preceding.op == "unbounded_range":
            return "range", None
        if preceding.op == "unbounded_row":
            return "rows", None
        if preceding.op == "row_interval":
            return "rows", preceding.args[0]
        if preceding.op == "interval":
            return "range", preceding.args[0]
        raise ValueError(f"unknown over window bound {preceding!r}")


class Over:
    @staticmethod
    def partition_by(*partition_by) -> OverWindow:
        return OverWindow(partition_by)

    @staticmethod
    def order_by(order_by) -> OverWindow:
        return OverWindow((), order_by)
