"""StreamExecutionEnvironment: where a job is built and from where it is executed."""

import importlib
import sys
from enum import Enum
from typing import Optional

from weir.datastream.data_stream import DataStream
from weir.plan import graph as g
from weir.common.gaps import PyFlinkGaps
from weir.common.configuration import Configuration
from weir.common.execution_config import ExecutionConfig
from weir.common.job import JobExecutionError
from weir.common.restart_strategy import (
    FallbackRestartStrategyConfiguration,
    NoRestartStrategyConfiguration,
    RestartStrategyConfiguration,
    restart_strategy_of,
)
from weir.datastream.job_context import job_context
from weir.datastream.python_dependencies import PythonDependencies, note_jars
from weir.datastream.restarts import RestartingJob
from weir.runtime.key_groups import DEFAULT_MAX_PARALLELISM
from weir.runtime.sources import CollectionReader

EXECUTORS = {"spark": "weir.spark.executor", "local": "weir.local.executor"}


class RuntimeExecutionMode(Enum):
    STREAMING = 0
    BATCH = 1
    AUTOMATIC = 2


class CheckpointingMode(Enum):
    EXACTLY_ONCE = 0
    AT_LEAST_ONCE = 1


class CheckpointConfig:
    def __init__(self):
        self.checkpoint_storage = None
        self.checkpoint_interval = None

    def set_checkpoint_storage_dir(self, checkpoint_path: str) -> None:
        self.checkpoint_storage = checkpoint_path

    def set_checkpoint_storage(self, storage) -> None:
        self.checkpoint_storage = getattr(storage, "checkpoint_path", storage)

    def get_checkpoint_storage(self):
        return self.checkpoint_storage

    def set_checkpoint_interval(self, checkpoint_interval: int) -> None:
        self.checkpoint_interval = checkpoint_interval

    def get_checkpoint_interval(self):
        return self.checkpoint_interval

    def is_checkpointing_enabled(self) -> bool:
        return self.checkpoint_interval is not None


class StreamExecutionEnvironment(PyFlinkGaps):
    _pyflink_class = "StreamExecutionEnvironment"
    _pyflink_gaps = frozenset(
        [
            "add_source",
            "create_input",
            "disable_operator_chaining",
            "enable_changelog_state_backend",
            "get_buffer_timeout",
            "get_checkpointing_consistency_mode",
            "get_checkpointing_mode",
            "get_default_local_parallelism",
            "get_default_savepoint_directory",
            "get_execution_plan",
            "is_chaining_enabled",
            "is_chaining_of_operators_with_different_max_parallelism_enabled",
            "is_changelog_state_backend_enabled",
            "is_force_unaligned_checkpoints",
            "is_unaligned_checkpoints_enabled",
            "register_cached_file",
            "register_slot_sharing_group",
            "set_buffer_timeout",
            "set_default_local_parallelism",
            "set_default_savepoint_directory",
        ]
    )

    def __init__(self, configuration=None):
        self._graph = g.JobGraph()
        self._executed_sinks = set()
        self.parallelism = 1
        self.max_parallelism = DEFAULT_MAX_PARALLELISM
        self.runtime_mode = RuntimeExecutionMode.STREAMING
        self.checkpoint_config = CheckpointConfig()
        self.configuration = configuration
        self.spark_session = None
        self.spark_conf = {}
        self.executor, self.executor_clock = "spark", None
        self.job_parameters = {}
        self.job_id = None  # given by `weir run` (weir.datastream.job_context)
        self.restart_strategy = None
        self.jars = []  # Flink jars: accepted, not needed (weir.datastream.python_dependencies)
        self.python_dependencies = PythonDependencies()
        self._config = ExecutionConfig(self)
        self._apply_job_context()
        if configuration is not None:  # (the program's settings win over `weir run`'s)
            self._apply_configuration(configuration)

    def _apply_job_context(self) -> None:
        """Takes what `weir run` gives (none outside it): the job's id, its checkpoint
        directory, the default parallelism and settings the program does not set."""
        context = job_context()
        if context is None:
            return
        self.job_id = context.job_id
        self.checkpoint_config.set_checkpoint_storage_dir(context.checkpoint_dir)
        if context.parallelism is not None:
            self.parallelism = context.parallelism
        if context.settings:
            self.configuration = (
                Configuration(self.configuration)
                if self.configuration is not None
                else Configuration()
            )
            for key, value in context.settings.items():
                if self.configuration.get_string(key) is None:
                    self.configuration.set_string(key, value)

    @staticmethod
    def get_execution_environment(configuration=None) -> "StreamExecutionEnvironment":
        return StreamExecutionEnvironment(configuration)

    def configure(self, configuration) -> None:
        """Takes `configuration`'s settings (over the ones the environment has): those
        weir reads (savepoints, restart strategies, parallelism.default,
        pipeline.max-parallelism, python.executable, python.files) and any other, kept."""
        merged = (
            Configuration(self.configuration) if self.configuration is not None else Configuration()
        )
        merged.add_all(configuration)
        self.configuration = merged
        self._apply_configuration(configuration)

    def _apply_configuration(self, configuration) -> None:
        parallelism = configuration.get_integer("parallelism.default")
        if parallelism is not None and parallelism > 0:
            self.set_parallelism(parallelism)
        max_parallelism = configuration.get_integer("pipeline.max-parallelism")
        if max_parallelism is not None and max_parallelism > 0:
            self.set_max_parallelism(max_parallelism)
        if configuration.get_string("python.executable"):
            self.set_python_executable(configuration.get_string("python.executable"))
        for path in filter(None, (configuration.get_string("python.files") or "").split(",")):
            self.add_python_file(path.strip())

    @property
    def _j_stream_execution_environment(self) -> "StreamExecutionEnvironment":
        """PyFlink's Java environment, which programs hand to
        weir.util.java_utils.get_j_env_configuration: here the environment itself."""
        if self.configuration is None:
            self.configuration = Configuration()
        return self

    def get_config(self) -> ExecutionConfig:
        """PyFlink's ExecutionConfig of this environment: global job parameters,
        parallelism, object reuse, the auto-watermark interval."""
        return self._config

    # -- what the job's Python needs, and Flink's jars ---------------------------------
    def add_jars(self, *jars_path: str) -> None:
        """Flink's connector and format jars: accepted; weir's are Python and need none."""
        self.jars += note_jars("add_jars", jars_path)

    def add_classpaths(self, *classpaths: str) -> None:
        self.jars += note_jars("add_classpaths", classpaths)

    def add_python_file(self, file_path: str) -> None:
        """A Python file, package or directory the job's functions import: on the
        driver's path, and shipped to the engine's workers (Spark: addPyFile)."""
        self.python_dependencies.add_file(file_path)

    def add_python_archive(self, archive_path: str, target_dir: Optional[str] = None) -> None:
        """An archive extracted for the workers (Spark: addArchive, as `target_dir`)."""
        self.python_dependencies.add_archive(archive_path, target_dir)

    def set_python_requirements(
        self, requirements_file_path: str, requirements_cache_dir: Optional[str] = None
    ) -> None:
        """Packages the functions need: those the interpreter lacks are installed with pip
        into a directory of their own and shipped (offline from the cache directory)."""
        self.python_dependencies.set_requirements(requirements_file_path, requirements_cache_dir)

    def set_python_executable(self, python_exec: str) -> None:
        """The interpreter of the engine's Python workers (Spark: PYSPARK_PYTHON)."""
        self.python_dependencies.set_executable(python_exec)

    # -- settings ------------------------------------------------------------------
    def set_parallelism(self, parallelism: int) -> "StreamExecutionEnvironment":
        if not isinstance(parallelism, int) or parallelism < 1:
            raise ValueError(f"parallelism must be a positive int, got {parallelism!r}")
        self.parallelism = parallelism
        return self

    def get_parallelism(self) -> int:
        return self.parallelism

    def set_max_parallelism(self, max_parallelism: int) -> "StreamExecutionEnvironment":
        if not isinstance(max_parallelism, int) or not 1 <= max_parallelism <= 32768:
            raise ValueError(f"max parallelism must be in 1..32768, got {max_parallelism!r}")
        self.max_parallelism = max_parallelism
        return self

    def get_max_parallelism(self) -> int:
        return self.max_parallelism

    def set_runtime_mode(self, execution_mode: RuntimeExecutionMode):
        self.runtime_mode = execution_mode
        return self

    def is_batch_mode(self) -> bool:
        """BATCH (or AUTOMATIC with only bounded sources, as in Flink): the watermark stays
        at -infinity until the end of the input, so nothing is late and every timer fires
        at the end, as in Flink's batch execution."""
        if self.runtime_mode == RuntimeExecutionMode.AUTOMATIC:
            return all(
                n.param("reader").bounded for n in self._graph.nodes.values() if n.kind == g.SOURCE
            )
        return self.runtime_mode == RuntimeExecutionMode.BATCH

    def enable_checkpointing(self, interval: int, mode=None):
        self.checkpoint_config.set_checkpoint_interval(interval)
        return self

    def get_checkpoint_config(self) -> CheckpointConfig:
        return self.checkpoint_config

    def get_checkpoint_interval(self):
        return self.checkpoint_config.checkpoint_interval

    def set_spark_session(self, spark_session) -> "StreamExecutionEnvironment":
        """Runs this environment's jobs on an existing SparkSession (weir's addition)."""
        self.spark_session = spark_session
        return self

    def set_spark_config(self, key: str, value) -> "StreamExecutionEnvironment":
        """A Spark setting for the session weir creates (weir's addition)."""
        self.spark_conf[key] = str(value)
        return self

    def set_executor(self, name: str, clock=None) -> "StreamExecutionEnvironment":
        """'spark' (default) or 'local' (the in-process runner, no Spark; for tests).
        `clock` (local only): a callable giving the processing time in milliseconds that
        the job runs on (default: the wall clock), so a test can drive it."""
        if name not in EXECUTORS:
            raise ValueError(f"unknown executor '{name}', expected one of {sorted(EXECUTORS)}")
        if clock is not None and (name != "local" or not callable(clock)):
            raise ValueError(
                "set_executor(): a clock is a callable giving milliseconds, "
                "and only the 'local' executor runs on one"
            )
        self.executor, self.executor_clock = name, clock
        return self

    def set_job_parameters(self, parameters: dict) -> "StreamExecutionEnvironment":
        self.job_parameters = dict(parameters)
        return self

    # -- sources -------------------------------------------------------------------
    def _source(self, reader, name, type_info, watermark_strategy=None) -> DataStream:
        node = self._graph.add(g.SOURCE, name, (), type_info, reader=reader)
        stream = DataStream(self, node.id)
        if watermark_strategy is not None:
            stream = stream.assign_timestamps_and_watermarks(watermark_strategy)
            stream._named_id = node.id  # (Flink's sources assign their watermarks)
        return stream

    def from_collection(self, collection, type_info=None) -> DataStream:
        values = list(collection)
        if type_info is not None:  # as PyFlink: the declared type's values (Rows, floats)
            values = [
                type_info.convert(value, f"collection[{index}]")
                for index, value in enumerate(values)
            ]
        return self._source(CollectionReader(values), "Collection Source", type_info)

    def from_source(
        self, source, watermark_strategy, source_name: str, type_info=None
    ) -> DataStream:
        reader = source.create_reader() if hasattr(source, "create_reader") else source
        return self._source(
            reader, source_name, type_info or getattr(source, "type_info", None), watermark_strategy
        )

    def from_spark(
        self, dataframe, watermark_strategy=None, source_name: str = "Spark Source"
    ) -> DataStream:
        """A stream of `weir.common.Row`s of a Spark DataFrame (weir's addition): field
        names and a declared row type from its columns. A streaming DataFrame (files,
        `rate`, a table, Kafka) joins the job's streaming query, its offsets in the job's
        checkpoint, and is unbounded; a batch DataFrame is bounded (read once, from a
        snapshot in the checkpoint). A watermark strategy with a timestamp assigner gives
        event time, as for from_source. Runs on the DataFrame's SparkSession."""
        interop = importlib.import_module("weir.spark.frame_sources")  # imports pyspark
        reader, type_info = interop.frame_source(self, dataframe)
        return self._source(reader, source_name, type_info, watermark_strategy)

    # -- execution -----------------------------------------------------------------
    def _pending_sinks(self):
        return [n for n in self._graph.sinks() if n.id not in self._executed_sinks]

    def _discarding_leaves(self) -> list:
        """A job without sinks still runs every operator, as Flink runs every
        transformation (their prints, metrics and side effects happen): each stream
        nothing consumes ends in a sink that keeps nothing (filtered before it leaves
        its task)."""
        consumed = {i for node in self._graph.nodes.values() for i in node.inputs}
        for node in list(self._graph.nodes.values()):
            if node.id not in consumed and node.kind != g.SINK:
                DataStream(self, node.id).filter(_nothing).add_sink(_discard)
        return self._pending_sinks()

    def execute_async(self, job_name: Optional[str] = None):
        sinks = self._pending_sinks()
        if self.is_batch_mode() and not all(
            n.param("reader").bounded for n in self._graph.upstream_of(sinks) if n.kind == "source"
        ):
            raise ValueError(
                "BATCH mode needs bounded sources; an unbounded source "
                "(e.g. a monitoring FileSource) only runs in STREAMING mode"
            )
        if not sinks and not self._executed_sinks:
            sinks = self._discarding_leaves()
        if not sinks:
            raise RuntimeError(
                "no sinks defined: add print(), sink_to() or add_sink() before execute()"
            )
        self.python_dependencies.apply_to_driver()
        executor = importlib.import_module(EXECUTORS[self.executor])
        graph, name = self._graph, job_name or "weir job"
        strategy = self._effective_restart_strategy()
        if strategy is None:
            client = executor.submit(self, graph, sinks, name)
        else:
            client = RestartingJob(
                self, lambda: executor.submit(self, graph, sinks, name), strategy
            )
        self._executed_sinks.update(n.id for n in sinks)
        context = job_context()
        if context is not None and context.on_submit is not None:
            context.on_submit(client)
        return client

    def set_restart_strategy(self, restart_strategy_configuration) -> None:
        """How a failed job restarts from its last checkpoint (RestartStrategies); the
        `restart-strategy.*` keys of the configuration do the same. Without one a failed
        job fails (Flink's default with checkpointing is to restart: weir asks)."""
        if not isinstance(restart_strategy_configuration, RestartStrategyConfiguration):
            raise TypeError("set_restart_strategy takes a RestartStrategies.* configuration")
        self.restart_strategy = restart_strategy_configuration

    def get_restart_strategy(self):
        return self.restart_strategy

    def _effective_restart_strategy(self):
        """The strategy that applies (None: a failure ends the job): the one set, else the
        configuration's; a BATCH job is never restarted."""
        strategy = self.restart_strategy
        if strategy is None or isinstance(strategy, FallbackRestartStrategyConfiguration):
            strategy = restart_strategy_of(self.configuration)
        if self.is_batch_mode() or isinstance(strategy, NoRestartStrategyConfiguration):
            return None
        return strategy

    def execute(self, job_name: Optional[str] = None):
        """Runs the job to its end; writes its one-line summary to stderr. A failed job
        raises one JobExecutionError naming the operator, the user's line and the cause
        (without weir's own frames)."""
        try:
            result = self.execute_async(job_name).get_job_execution_result()
        except JobExecutionError as error:
            raise error.with_traceback(None) from None
        print(result.summary(), file=sys.stderr, flush=True)
        return result

    def close(self) -> None:
        """PyFlink releases cached intermediate results here; weir caches none (a Spark
        session it started stays for the process's next job)."""


def _nothing(value) -> bool:
    return False


def _discard(value, context) -> None:
    """The sink of a stream nothing consumes (see _discarding_leaves)."""
