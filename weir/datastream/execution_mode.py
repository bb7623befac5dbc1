"""PyFlink's module path of RuntimeExecutionMode (`pyflink.datastream.execution_mode`)."""

from weir.datastream.stream_execution_environment import RuntimeExecutionMode  # noqa: F401
