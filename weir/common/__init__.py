"""Common types of the API, mirroring ``pyflink.common``."""

from weir.common.configuration import Configuration
from weir.common.execution_config import ExecutionConfig
from weir.common.row import Row, RowKind
from weir.common.serialization import (
    ByteArraySchema,
    DeserializationSchema,
    Encoder,
    SerializationSchema,
    SimpleStringSchema,
)
from weir.common.job import JobClient, JobExecutionResult, JobStatus
from weir.common.restart_strategy import RestartStrategies, RestartStrategyConfiguration
from weir.common.time import Duration, Instant, Time
from weir.common.typeinfo import TypeInformation, Types
from weir.common.watermark_strategy import TimestampAssigner, WatermarkStrategy

__all__ = [
    "ByteArraySchema",
    "Configuration",
    "DeserializationSchema",
    "Duration",
    "Encoder",
    "ExecutionConfig",
    "Instant",
    "JobClient",
    "JobExecutionResult",
    "JobStatus",
    "RestartStrategies",
    "RestartStrategyConfiguration",
    "Row",
    "RowKind",
    "SerializationSchema",
    "SimpleStringSchema",
    "Time",
    "TimestampAssigner",
    "TypeInformation",
    "Types",
    "WatermarkStrategy",
]

from weir.common.gaps import module_gaps  # noqa: E402

__getattr__ = module_gaps(
    __name__, "pyflink.common", ["ConfigOption", "ConfigOptions", "JobID", "TypeSerializer"]
)
