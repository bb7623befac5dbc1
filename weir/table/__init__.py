"""A sliver of PyFlink's Table API (`pyflink.table` -> `weir.table`): a `datagen` table
turned into a DataStream, as PyFlink's examples create their input. Everything else of the
Table API raises NotImplementedError."""

from weir.common.gaps import module_gaps
from weir.table.table_environment import (  # noqa: F401
    Schema, StreamTableEnvironment, Table, TableDescriptor)
from weir.table.types import DataType, DataTypes  # noqa: F401

__getattr__ = module_gaps(__name__, "pyflink.table", [
    "EnvironmentSettings", "TableEnvironment", "TableConfig", "TableResult", "ResultKind",
    "StatementSet", "expressions", "udf", "udaf", "udtf", "FormatDescriptor", "Expression"])
