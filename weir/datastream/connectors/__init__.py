"""Sources and sinks (`pyflink.datastream.connectors` -> `weir.datastream.connectors`)."""

from weir.datastream.connectors.base import DeliveryGuarantee  # noqa: F401
from weir.datastream.connectors.datagen import (  # noqa: F401
    DataGeneratorSource,
    NumberSequenceSource,
)
from weir.datastream.connectors.file_system import (  # noqa: F401
    FileSink,
    FileSource,
    OutputFileConfig,
    RollingPolicy,
    StreamFormat,
)
from weir.common.gaps import module_gaps  # noqa: E402

__getattr__ = module_gaps(__name__, "pyflink.datastream.connectors", ["Sink", "Source"])
