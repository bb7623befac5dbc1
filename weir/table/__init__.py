"""PyFlink's Table API and SQL (`pyflink.table` -> `weir.table`): tables from elements,
connectors and DataStreams, relational operations, Python functions and Flink SQL, run
as weir jobs (docs/table.md says what is there and what is not yet)."""

from weir.common.gaps import module_gaps
from weir.common.row import Row, RowKind  # noqa: F401 (pyflink.table exports them too)
from weir.table.descriptors import FormatDescriptor, Schema, TableDescriptor  # noqa: F401
from weir.table.result import ResultKind, TableResult  # noqa: F401
from weir.table.table import (  # noqa: F401
    GroupedTable,
    GroupWindowedTable,
    OverWindowedTable,
    Table,
    TablePipeline,
    TableSchema,
    WindowGroupedTable,
)
from weir.table.table_environment import (  # noqa: F401
    EnvironmentSettings,
    StatementSet,
    StreamTableEnvironment,
    TableConfig,
    TableEnvironment,
)
from weir.table.types import DataType, DataTypes  # noqa: F401
from weir.table.udf import (  # noqa: F401
    AggregateFunction,
    AsyncScalarFunction,
    FunctionContext,
    ScalarFunction,
    TableFunction,
    TableAggregateFunction,
)


class SqlDialect:
    """Flink's SQL dialects: weir reads the default one."""

    DEFAULT = "DEFAULT"
    HIVE = "HIVE"


class ExplainDetail:
    ESTIMATED_COST = "ESTIMATED_COST"
    CHANGELOG_MODE = "CHANGELOG_MODE"
    JSON_EXECUTION_PLAN = "JSON_EXECUTION_PLAN"
    PLAN_ADVICE = "PLAN_ADVICE"


__getattr__ = module_gaps(
    __name__,
    "pyflink.table",
    [
        "Expression",
        "TableSource",
        "TableSink",
        "Catalog",
        "Module",
        "ModuleEntry",
        "DataView",
        "ListView",
        "MapView",
        "UserDefinedType",
        "ChangelogMode",
        "CompiledPlan",
        "PlanReference",
    ],
)
