"""PyFlink's module path of CheckpointConfig (`pyflink.datastream.checkpoint_config`)."""

from weir.datastream.stream_execution_environment import CheckpointConfig  # noqa: F401
