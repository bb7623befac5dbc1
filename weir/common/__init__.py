"""Common types of the API, mirroring ``pyflink.common``."""

from weir.common.configuration import Configuration
from weir.common.row import Row, RowKind
from weir.common.serialization import (
    DeserializationSchema,
    Encoder,
    SerializationSchema,
    SimpleStringSchema,
)
from weir.common.time import Duration, Time
from weir.common.typeinfo import TypeInformation, Types
from weir.common.watermark_strategy import TimestampAssigner, WatermarkStrategy

__all__ = [
    "Configuration",
    "DeserializationSchema",
    "Duration",
    "Encoder",
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
