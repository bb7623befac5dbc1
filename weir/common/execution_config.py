"""ExecutionConfig, as PyFlink's `env.get_config()` gives it: the job's global parameters
(read in functions with `runtime_context.get_job_parameter`), parallelism, object reuse,
the watermark interval. It reads and writes the environment it belongs to."""

from typing import Any, Protocol

from weir.common.gaps import PyFlinkGaps


class _Environment(Protocol):
    """What the configuration reads and writes of its StreamExecutionEnvironment (a layer
    above: typed by its shape)."""

    job_parameters: dict[str, str]

    def set_parallelism(self, parallelism: int) -> Any: ...

    def get_parallelism(self) -> int: ...

    def set_max_parallelism(self, max_parallelism: int) -> Any: ...

    def get_max_parallelism(self) -> int: ...


class ExecutionConfig(PyFlinkGaps):
    """The settings of one StreamExecutionEnvironment (`env.get_config()`).

    weir's records are copied between operators as they are pickled, so object reuse
    changes nothing but what `is_object_reuse_enabled` says; watermarks move once per
    micro-batch, so the auto-watermark interval is kept and reported, not a timer of its
    own. The Java serializer choices (Kryo, Avro, generic types) have no meaning for
    Python records and are not there."""

    _pyflink_class = "ExecutionConfig"
    _pyflink_gaps = frozenset(
        [
            "disable_force_avro",
            "disable_force_kryo",
            "disable_generic_types",
            "enable_force_avro",
            "enable_force_kryo",
            "enable_generic_types",
            "get_default_kryo_serializer_classes",
            "get_registered_kryo_types",
            "get_registered_pojo_types",
            "has_generic_types_disabled",
            "is_force_avro_enabled",
            "is_force_kryo_enabled",
        ]
    )
    PARALLELISM_DEFAULT = -1
    PARALLELISM_UNKNOWN = -2
    DEFAULT_AUTO_WATERMARK_INTERVAL_MS = 200  # Flink's

    def __init__(self, env: _Environment) -> None:
        self._env = env
        self._watermark_interval = self.DEFAULT_AUTO_WATERMARK_INTERVAL_MS
        self._flags = {
            "object_reuse": False,
            "closure_cleaner": True,
            "auto_generated_uids": True,
            "snapshot_compression": False,
        }
        self._intervals = {
            "latency_tracking": -1,
            "task_cancellation": 30_000,
            "task_cancellation_timeout": 180_000,
        }

    # -- global job parameters ---------------------------------------------------------
    def set_global_job_parameters(
        self, global_job_parameters_dict: dict[Any, Any]
    ) -> "ExecutionConfig":
        """Parameters every function reads with `runtime_context.get_job_parameter(key,
        default)`; as in PyFlink, keys and values are kept as strings."""
        if not isinstance(global_job_parameters_dict, dict):
            raise TypeError(
                "set_global_job_parameters takes a dict, got "
                f"{type(global_job_parameters_dict).__name__}"
            )
        self._env.job_parameters = {
            str(key): value if isinstance(value, str) else str(value)
            for key, value in global_job_parameters_dict.items()
        }
        return self

    def get_global_job_parameters(self) -> dict[str, str]:
        return dict(self._env.job_parameters)

    # -- parallelism ---------------------------------------------------------------------
    def set_parallelism(self, parallelism: int) -> "ExecutionConfig":
        self._env.set_parallelism(parallelism)
        return self

    def get_parallelism(self) -> int:
        return self._env.get_parallelism()

    def set_max_parallelism(self, max_parallelism: int) -> "ExecutionConfig":
        self._env.set_max_parallelism(max_parallelism)
        return self

    def get_max_parallelism(self) -> int:
        return self._env.get_max_parallelism()

    # -- watermarks -------------------------------------------------------------------
    def set_auto_watermark_interval(self, interval: int) -> "ExecutionConfig":
        self._watermark_interval = _milliseconds(interval, "auto watermark interval")
        return self

    def get_auto_watermark_interval(self) -> int:
        return self._watermark_interval

    # -- flags and intervals kept as set --------------------------------------------------
    def enable_object_reuse(self) -> "ExecutionConfig":
        return self._set("object_reuse", True)

    def disable_object_reuse(self) -> "ExecutionConfig":
        return self._set("object_reuse", False)

    def is_object_reuse_enabled(self) -> bool:
        return self._flags["object_reuse"]

    def enable_closure_cleaner(self) -> "ExecutionConfig":
        return self._set("closure_cleaner", True)

    def disable_closure_cleaner(self) -> "ExecutionConfig":
        return self._set("closure_cleaner", False)

    def is_closure_cleaner_enabled(self) -> bool:
        return self._flags["closure_cleaner"]

    def enable_auto_generated_uids(self) -> "ExecutionConfig":
        return self._set("auto_generated_uids", True)

    def disable_auto_generated_uids(self) -> "ExecutionConfig":
        return self._set("auto_generated_uids", False)

    def has_auto_generated_uids_enabled(self) -> bool:
        return self._flags["auto_generated_uids"]

    def set_use_snapshot_compression(self, use_snapshot_compression: bool) -> "ExecutionConfig":
        return self._set("snapshot_compression", bool(use_snapshot_compression))

    def is_use_snapshot_compression(self) -> bool:
        return self._flags["snapshot_compression"]

    def set_latency_tracking_interval(self, interval: int) -> "ExecutionConfig":
        self._intervals["latency_tracking"] = int(interval)
        return self

    def get_latency_tracking_interval(self) -> int:
        return self._intervals["latency_tracking"]

    def set_task_cancellation_interval(self, interval: int) -> "ExecutionConfig":
        self._intervals["task_cancellation"] = _milliseconds(interval, "interval")
        return self

    def get_task_cancellation_interval(self) -> int:
        return self._intervals["task_cancellation"]

    def set_task_cancellation_timeout(self, timeout: int) -> "ExecutionConfig":
        self._intervals["task_cancellation_timeout"] = _milliseconds(timeout, "timeout")
        return self

    def get_task_cancellation_timeout(self) -> int:
        return self._intervals["task_cancellation_timeout"]

    def _set(self, flag: str, value: bool) -> "ExecutionConfig":
        self._flags[flag] = value
        return self


def _milliseconds(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a non-negative int of milliseconds, got {value!r}")
    return value
