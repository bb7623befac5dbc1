"""Restoring keyed state under changed declarations (Flink's state schema compatibility):
a named Row's fields added or removed migrate each stored value; any other change of a
state's kind, type or TTL is refused with one error naming the operator and the state."""

import pytest

from weir.common import Duration, Row, Types
from weir.datastream import KeyedProcessFunction
from weir.datastream.state import (
    ListStateDescriptor,
    MapStateDescriptor,
    StateTtlConfig,
    ValueStateDescriptor,
)
from weir.runtime.errors import marked_message
from weir.runtime.state.evolution import StateMigrationError
from weir.testing.harness import KeyedOperatorHarness

VISITS = Types.ROW_NAMED(["user", "visits"], [Types.STRING(), Types.INT()])
VISITS_AND_PLACE = Types.ROW_NAMED(
    ["user", "visits", "place"], [Types.STRING(), Types.INT(), Types.STRING()]
)
ONLY_VISITS = Types.ROW_NAMED(["visits"], [Types.INT()])


class Profile(KeyedProcessFunction):
    """Keeps a Row per user (and a list and a map of them) under the declared type; emits
    what it held before each element, as dicts."""

    def __init__(self, row_type, kind="value", lazily=False, ttl=False):
        self.row_type, self.kind, self.lazily, self.ttl = row_type, kind, lazily, ttl

    def open(self, runtime_context):
        self.context = runtime_context
        if not self.lazily:
            self._declare()

    def _declare(self):
        descriptor = {
            "value": ValueStateDescriptor("profile", self.row_type),
            "list": ListStateDescriptor("profile", self.row_type),
            "map": MapStateDescriptor("profile", Types.STRING(), self.row_type),
        }[self.kind]
        if self.ttl:
            descriptor.enable_time_to_live(StateTtlConfig.new_builder(Duration.of_hours(1)).build())
        getter = {
            "value": self.context.get_state,
            "list": self.context.get_list_state,
            "map": self.context.get_map_state,
        }[self.kind]
        self.profile = getter(descriptor)
        self.count = self.context.get_state(ValueStateDescriptor("count", Types.LONG()))

    def process_element(self, value, ctx):
        if self.lazily:
            self.count = self.context.get_state(ValueStateDescriptor("count", Types.LONG()))
            self.count.update((self.count.value() or 0) + 1)
            self._declare()
        held = self._held()
        row = Row(
            *[
                value[1] if name == "user" else len(value[1]) if name == "visits" else "here"
                for name in self.row_type.get_field_names()
            ]
        )
        row.set_field_names(self.row_type.get_field_names())
        self._keep(row)
        yield held

    def _held(self):
        if self.kind == "value":
            value = self.profile.value()
            return None if value is None else value.as_dict()
        if self.kind == "list":
            return [row.as_dict() for row in self.profile.get()]
        return {key: row.as_dict() for key, row in self.profile.items()}

    def _keep(self, row):
        if self.kind == "value":
            self.profile.update(row)
        elif self.kind == "list":
            self.profile.add(row)
        else:
            self.profile.put("last", row)


def restored(before, after, elements_before=(("k", "ann"),), element=("k", "bob")):
    harness = KeyedOperatorHarness(before, lambda e: e[0], name="profiles")
    for value in elements_before:
        harness.process_element(value, 1)
    snapshot = harness.snapshot()
    again = KeyedOperatorHarness.restore(after, lambda e: e[0], snapshot, name="profiles")
    again.process_element(element, 2)
    return again


def test_a_field_added_to_a_row_state_is_none_in_the_restored_values():
    harness = restored(Profile(VISITS), Profile(VISITS_AND_PLACE))
    assert harness.extract_values() == [{"user": "ann", "visits": 3, "place": None}]


def test_a_field_removed_from_a_row_state_is_dropped_from_the_restored_values():
    harness = restored(Profile(VISITS_AND_PLACE), Profile(ONLY_VISITS))
    assert harness.extract_values() == [{"visits": 3}]


@pytest.mark.parametrize(
    "kind, held",
    [
        (
            "list",
            [
                {"user": "ann", "visits": 3, "place": None},
                {"user": "eve", "visits": 3, "place": None},
            ],
        ),
        ("map", {"last": {"user": "eve", "visits": 3, "place": None}}),
    ],
)
def test_rows_in_list_and_map_states_migrate_too(kind, held):
    harness = restored(
        Profile(VISITS, kind),
        Profile(VISITS_AND_PLACE, kind),
        elements_before=(("k", "ann"), ("k", "eve")),
    )
    assert harness.extract_values() == [held]


def test_a_row_state_with_a_ttl_migrates_inside_its_ttl_pair():
    harness = restored(Profile(VISITS, ttl=True), Profile(VISITS_AND_PLACE, ttl=True))
    assert harness.extract_values() == [{"user": "ann", "visits": 3, "place": None}]


def test_a_state_declared_lazily_is_migrated_once_and_restored_again_unchanged():
    harness = restored(
        Profile(VISITS, lazily=True),
        Profile(VISITS_AND_PLACE, lazily=True),
        elements_before=(("k", "ann"),),
    )
    assert harness.extract_values() == [{"user": "ann", "visits": 3, "place": None}]
    again = KeyedOperatorHarness.restore(
        Profile(VISITS_AND_PLACE), lambda e: e[0], harness.snapshot(), name="profiles"
    )
    again.process_element(("k", "cy"), 3)
    assert again.extract_values() == [{"user": "bob", "visits": 3, "place": "here"}]


def test_states_of_other_keys_and_key_groups_migrate_as_they_are_read():
    harness = restored(
        Profile(VISITS),
        Profile(VISITS_AND_PLACE),
        elements_before=[(f"k{i}", f"u{i}") for i in range(20)],
        element=("k7", "x"),
    )
    for i in (3, 15):
        harness.process_element((f"k{i}", "y"), 3)
    assert harness.extract_values() == [
        {"user": f"u{i}", "visits": len(f"u{i}"), "place": None} for i in (7, 3, 15)
    ]


@pytest.mark.parametrize(
    "before, after, said",
    [
        (
            Profile(VISITS),
            Profile(Types.ROW_NAMED(["user", "visits"], [Types.STRING(), Types.STRING()])),
            "the restored state is value state of Types.ROW_NAMED(['user', 'visits'], "
            "[Types.STRING(), Types.INT()]), the job declares value state of "
            "Types.ROW_NAMED(['user', 'visits'], [Types.STRING(), Types.STRING()])",
        ),
        (
            Profile(VISITS),
            Profile(VISITS, kind="list"),
            "the restored state is value state of Types.ROW_NAMED(['user', 'visits'], "
            "[Types.STRING(), Types.INT()]), the job declares list state of",
        ),
        (
            Profile(VISITS),
            Profile(VISITS, ttl=True),
            "[Types.STRING(), Types.INT()]), the job declares value state of "
            "Types.ROW_NAMED(['user', 'visits'], [Types.STRING(), Types.INT()]) with a TTL",
        ),
    ],
)
def test_an_incompatible_change_is_refused_naming_the_operator_and_the_state(before, after, said):
    with pytest.raises(StateMigrationError) as refused:
        restored(before, after)
    message = marked_message(str(refused.value))
    assert message.startswith("state 'profile' of operator 'profiles': ")
    assert said in message
    assert message.endswith(
        "the change is not compatible (only a Row's fields may be added or removed)"
    )


class Counter(KeyedProcessFunction):
    def __init__(self, type_info):
        self.type_info = type_info

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", self.type_info))

    def process_element(self, value, ctx):
        self.count.update((self.count.value() or 0) + 1)
        yield self.count.value()


def test_a_typed_state_once_pickled_is_refused_and_pickled_is_pickled_byte_array():
    with pytest.raises(
        StateMigrationError,
        match="state 'count' of operator 'profiles': "
        "the restored state is value state of pickled, the job declares "
        "value state of Types.LONG()",
    ):
        restored(Counter(None), Counter(Types.LONG()))
    same = restored(Counter(None), Counter(Types.PICKLED_BYTE_ARRAY()))
    assert same.extract_values() == [2]
