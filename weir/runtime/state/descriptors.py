"""State descriptors and TTL configuration, with PyFlink's names."""

from enum import Enum
from typing import Any, Optional, Union

from weir.common.time import Duration, Time
from weir.common.typeinfo import TypeInformation


class StateTtlConfig:
    class UpdateType(Enum):
        Disabled = 0
        OnCreateAndWrite = 1
        OnReadAndWrite = 2

    class StateVisibility(Enum):
        ReturnExpiredIfNotCleanedUp = 0
        NeverReturnExpired = 1

    class TtlTimeCharacteristic(Enum):
        ProcessingTime = 0

    def __init__(
        self,
        ttl_ms: int,
        update_type: "StateTtlConfig.UpdateType",
        visibility: "StateTtlConfig.StateVisibility",
    ) -> None:
        self.ttl_ms = ttl_ms
        self.update_type = update_type
        self.state_visibility = visibility

    @staticmethod
    def new_builder(ttl: Union[Time, Duration]) -> "StateTtlConfig.Builder":
        return StateTtlConfig.Builder(ttl)

    def get_ttl(self) -> int:
        return self.ttl_ms

    class Builder:
        def __init__(self, ttl: Union[Time, Duration]) -> None:
            ms = ttl.to_milliseconds()
            if ms <= 0:
                raise ValueError(f"state TTL must be positive, got {ms} ms")
            self._ttl_ms = ms
            self._update = StateTtlConfig.UpdateType.OnCreateAndWrite
            self._visibility = StateTtlConfig.StateVisibility.NeverReturnExpired

        def set_update_type(
            self, update_type: "StateTtlConfig.UpdateType"
        ) -> "StateTtlConfig.Builder":
            self._update = update_type
            return self

        def update_ttl_on_create_and_write(self) -> "StateTtlConfig.Builder":
            return self.set_update_type(StateTtlConfig.UpdateType.OnCreateAndWrite)

        def update_ttl_on_read_and_write(self) -> "StateTtlConfig.Builder":
            return self.set_update_type(StateTtlConfig.UpdateType.OnReadAndWrite)

        def set_state_visibility(
            self, visibility: "StateTtlConfig.StateVisibility"
        ) -> "StateTtlConfig.Builder":
            self._visibility = visibility
            return self

        def return_expired_if_not_cleaned_up(self) -> "StateTtlConfig.Builder":
            return self.set_state_visibility(
                StateTtlConfig.StateVisibility.ReturnExpiredIfNotCleanedUp
            )

        def never_return_expired(self) -> "StateTtlConfig.Builder":
            return self.set_state_visibility(StateTtlConfig.StateVisibility.NeverReturnExpired)

        def set_ttl_time_characteristic(
            self, characteristic: "StateTtlConfig.TtlTimeCharacteristic"
        ) -> "StateTtlConfig.Builder":
            return self

        def set_ttl(self, ttl: Union[Time, Duration]) -> "StateTtlConfig.Builder":
            self._ttl_ms = ttl.to_milliseconds()
            return self

        def cleanup_full_snapshot(self) -> "StateTtlConfig.Builder":
            return self

        def cleanup_incrementally(self, *args: Any) -> "StateTtlConfig.Builder":
            return self

        def cleanup_in_rocksdb_compact_filter(self, *args: Any) -> "StateTtlConfig.Builder":
            return self

        def disable_cleanup_in_background(self) -> "StateTtlConfig.Builder":
            return self

        def build(self) -> "StateTtlConfig":
            return StateTtlConfig(self._ttl_ms, self._update, self._visibility)


class StateDescriptor:
    kind = "abstract"

    def __init__(self, name: str, type_info: Optional[TypeInformation] = None) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("a state descriptor needs a non-empty name")
        self.name = name
        self.type_info = type_info
        self.ttl_config: Optional[StateTtlConfig] = None

    def get_name(self) -> str:
        return self.name

    def enable_time_to_live(self, ttl_config: StateTtlConfig) -> None:
        self.ttl_config = ttl_config


class ValueStateDescriptor(StateDescriptor):
    kind = "value"

    def __init__(self, name: str, value_type_info: Optional[TypeInformation] = None) -> None:
        super().__init__(name, value_type_info)


class ListStateDescriptor(StateDescriptor):
    kind = "list"

    def __init__(self, name: str, elem_type_info: Optional[TypeInformation] = None) -> None:
        super().__init__(name, elem_type_info)


class MapStateDescriptor(StateDescriptor):
    kind = "map"

    def __init__(
        self,
        name: str,
        key_type_info: Optional[TypeInformation] = None,
        value_type_info: Optional[TypeInformation] = None,
    ) -> None:
        super().__init__(name, value_type_info)
        self.key_type_info = key_type_info


class ReducingStateDescriptor(StateDescriptor):
    kind = "reducing"

    def __init__(
        self, name: str, reduce_function: Any, type_info: Optional[TypeInformation] = None
    ) -> None:
        super().__init__(name, type_info)
        self.reduce_function = reduce_function


class AggregatingStateDescriptor(StateDescriptor):
    kind = "aggregating"

    def __init__(
        self, name: str, agg_function: Any, state_type_info: Optional[TypeInformation] = None
    ) -> None:
        super().__init__(name, state_type_info)
        self.agg_function = agg_function
