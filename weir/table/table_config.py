"""EnvironmentSettings and TableConfig (PyFlink's): a TableEnvironment's mode and its
configuration."""

from weir.table.evaluate import not_supported


class EnvironmentSettings:
    def __init__(self, streaming: bool = True):
        self._streaming = streaming

    @staticmethod
    def in_streaming_mode() -> "EnvironmentSettings":
        return EnvironmentSettings(True)

    @staticmethod
    def in_batch_mode() -> "EnvironmentSettings":
        return EnvironmentSettings(False)

    @staticmethod
    def new_instance() -> "EnvironmentSettings.Builder":
        return EnvironmentSettings.Builder()

    def is_streaming_mode(self) -> bool:
        return self._streaming

    class Builder:
        def __init__(self):
            self._streaming = True

        def in_streaming_mode(self):
            self._streaming = True
            return self

        def in_batch_mode(self):
            self._streaming = False
            return self

        def with_configuration(self, configuration):
            return self

        def build(self) -> "EnvironmentSettings":
            return EnvironmentSettings(self._streaming)


class TableConfig:
    """The table program's settings (`t_env.get_config().set(key, value)`)."""

    def __init__(self):
        self._settings = {}

    def set(self, key: str, value) -> "TableConfig":
        self._settings[key] = str(value)
        return self

    def get(self, key: str, default_value=None):
        return self._settings.get(key, default_value)

    def get_configuration(self):
        from weir.common.configuration import Configuration

        configuration = Configuration()
        for key, value in self._settings.items():
            configuration.set_string(key, value)
        return configuration

    def add_configuration(self, configuration) -> None:
        self._settings.update(configuration.to_dict())

    def set_local_timezone(self, timezone_id: str) -> None:
        self.set("table.local-time-zone", timezone_id)

    def set_sql_dialect(self, sql_dialect) -> None:
        """Flink's `table.sql-dialect`: weir reads the default dialect only."""
        name = str(getattr(sql_dialect, "name", sql_dialect)).upper()
        if name != "DEFAULT":
            not_supported(f"the {name} SQL dialect (weir reads Flink's default dialect)")
        self.set("table.sql-dialect", "default")

    def get_sql_dialect(self):
        from weir.table import SqlDialect

        return SqlDialect.DEFAULT

    def get_local_timezone(self) -> str:
        return self.get("table.local-time-zone", "default")

    def mini_batch(self) -> bool:
        """Whether `table.exec.mini-batch.enabled` is set (checked as Flink checks it:
        its latency and size must then be set and positive). Under mini-batch a group
        aggregation emits a key's change once per bundle (weir's: a micro-batch)."""
        if str(self.get("table.exec.mini-batch.enabled", "false")).lower() != "true":
            return False
        from weir.common.restart_strategy import parse_duration_ms

        latency = self.get("table.exec.mini-batch.allow-latency")
        if (
            latency is None
            or parse_duration_ms(latency, "table.exec.mini-batch.allow-latency") <= 0
        ):
            raise ValueError(
                "MiniBatch Latency must be greater than 0 ms. "
                f"[{'null' if latency is None else latency}]"
            )
        size = self.get("table.exec.mini-batch.size", "-1")
        if not str(size).strip().lstrip("-").isdigit() or int(size) <= 0:
            raise ValueError(
                f"Key: 'table.exec.mini-batch.size' , default: -1 "
                f"(fallback keys: []) must be > 0 (it is {size})."
            )
        return True
