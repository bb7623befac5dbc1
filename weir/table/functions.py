"""`pyflink.table.functions`: the base classes of Python aggregate functions
(weir.table.udf holds them)."""

from weir.table.udf import AggregateFunction, TableAggregateFunction

__all__ = ["AggregateFunction", "TableAggregateFunction"]
