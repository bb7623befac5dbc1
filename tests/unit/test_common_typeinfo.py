import datetime
import decimal
import pickle

import pyarrow as pa
import pytest

from weir.common import Row, TypeInformation, Types
from weir.common.typeinfo import RowTypeInfo


def error_of(type_info, value):
    with pytest.raises(TypeError) as info:
        type_info.validate(value)
    return str(info.value)


SENSOR = Types.ROW_NAMED(["id", "temperature"], [Types.STRING(), Types.DOUBLE()])


# -- repr, equality, hashing ---------------------------------------------


def test_repr_is_the_factory_expression():
    assert repr(Types.INT()) == "Types.INT()"
    assert (
        repr(SENSOR) == "Types.ROW_NAMED(['id', 'temperature'], [Types.STRING(), Types.DOUBLE()])"
    )
    assert (
        repr(Types.ROW([Types.INT(), Types.LIST(Types.STRING())]))
        == "Types.ROW([Types.INT(), Types.LIST(Types.STRING())])"
    )
    assert repr(Types.TUPLE([Types.LONG()])) == "Types.TUPLE([Types.LONG()])"
    assert (
        repr(Types.MAP(Types.STRING(), Types.BIG_DEC()))
        == "Types.MAP(Types.STRING(), Types.BIG_DEC())"
    )
    assert repr(Types.PRIMITIVE_ARRAY(Types.INT())) == "Types.PRIMITIVE_ARRAY(Types.INT())"
    assert repr(Types.BASIC_ARRAY(Types.STRING())) == "Types.BASIC_ARRAY(Types.STRING())"


def test_equality_and_hash():
    assert Types.INT() == Types.INT()
    assert Types.INT() != Types.LONG()
    assert Types.ROW([Types.INT()]) == Types.ROW([Types.INT()])
    assert Types.ROW([Types.INT()]) != Types.ROW([Types.LONG()])
    assert SENSOR == Types.ROW_NAMED(["id", "temperature"], [Types.STRING(), Types.DOUBLE()])
    assert SENSOR != Types.ROW_NAMED(["id", "temp"], [Types.STRING(), Types.DOUBLE()])
    assert Types.LIST(Types.INT()) != Types.BASIC_ARRAY(Types.INT())
    assert Types.TUPLE([Types.INT()]) != Types.ROW([Types.INT()])
    string_to_int = Types.MAP(Types.STRING(), Types.INT())
    assert hash(string_to_int) == hash(Types.MAP(Types.STRING(), Types.INT()))
    assert len({Types.INT(), Types.INT(), Types.STRING()}) == 2
    assert pickle.loads(pickle.dumps(SENSOR)) == SENSOR
    assert isinstance(SENSOR, TypeInformation)


def test_row_type_accessors():
    assert SENSOR.get_field_names() == ["id", "temperature"]
    assert SENSOR.get_field_types() == [Types.STRING(), Types.DOUBLE()]
    assert SENSOR.get_arity() == 2
    assert SENSOR.get_field_index("temperature") == 1
    assert SENSOR.get_field_index("missing") == -1
    unnamed = Types.ROW([Types.INT(), Types.STRING()])
    assert isinstance(unnamed, RowTypeInfo)
    assert unnamed.get_field_names() == ["f0", "f1"]
    assert unnamed.get_field_index("f1") == 1
    assert Types.TUPLE([Types.INT(), Types.INT()]).get_arity() == 2


def test_factory_argument_errors():
    with pytest.raises(
        TypeError,
        match=r"Types.ROW field_types\[0\] must be a TypeInformation, "
        r"got function .* \(did you mean Types.INT\(\)\?\)",
    ):
        Types.ROW([Types.INT])
    with pytest.raises(ValueError, match=r"got 1 field names \['a'\] but 2 field types"):
        Types.ROW_NAMED(["a"], [Types.INT(), Types.INT()])
    with pytest.raises(ValueError, match=r"field names must be unique, duplicated: \['a'\]"):
        Types.ROW_NAMED(["a", "a"], [Types.INT(), Types.INT()])
    with pytest.raises(TypeError, match="PRIMITIVE_ARRAY needs a primitive element type"):
        Types.PRIMITIVE_ARRAY(Types.STRING())
    with pytest.raises(TypeError, match="BASIC_ARRAY needs a basic element type"):
        Types.BASIC_ARRAY(Types.LIST(Types.INT()))
    with pytest.raises(TypeError, match="Types.MAP value_type_info must be a TypeInformation"):
        Types.MAP(Types.STRING(), int)


# -- validation of atomic types ------------------------------------------


@pytest.mark.parametrize(
    "type_info, value",
    [
        (Types.INT(), 2**31 - 1),
        (Types.INT(), -(2**31)),
        (Types.LONG(), 2**63 - 1),
        (Types.SHORT(), -32768),
        (Types.BYTE(), 127),
        (Types.FLOAT(), 1),
        (Types.DOUBLE(), 1.5),
        (Types.STRING(), ""),
        (Types.BOOLEAN(), False),
        (Types.CHAR(), "x"),
        (Types.SQL_TIMESTAMP(), datetime.datetime(2024, 1, 1, 12)),
        (Types.SQL_DATE(), datetime.date(2024, 1, 1)),
        (Types.SQL_TIME(), datetime.time(1, 2)),
        (Types.BIG_DEC(), decimal.Decimal("1.25")),
        (Types.BIG_DEC(), 3),
        (Types.BIG_INT(), 10**30),
        (Types.PICKLED_BYTE_ARRAY(), object()),
        (Types.INT(), None),
        (Types.STRING(), None),
        (SENSOR, None),
        (Types.LIST(Types.INT()), None),
    ],
)
def test_accepted_values(type_info, value):
    assert type_info.validate(value) is None


@pytest.mark.parametrize(
    "type_info, value, message",
    [
        (Types.INT(), "1", "path value: expected INT, got str '1'"),
        (Types.INT(), True, "path value: expected INT, got bool True"),
        (Types.INT(), 1.0, "path value: expected INT, got float 1.0"),
        (
            Types.INT(),
            2**31,
            "path value: expected INT, got int 2147483648 which is out of range "
            "[-2147483648, 2147483647]",
        ),
        (
            Types.LONG(),
            2**63,
            "path value: expected LONG, got int 9223372036854775808 which is out of range "
            "[-9223372036854775808, 9223372036854775807]",
        ),
        (
            Types.SHORT(),
            40000,
            "path value: expected SHORT, got int 40000 which is out of range [-32768, 32767]",
        ),
        (
            Types.BYTE(),
            -129,
            "path value: expected BYTE, got int -129 which is out of range [-128, 127]",
        ),
        (Types.DOUBLE(), "abc", "path value: expected DOUBLE, got str 'abc'"),
        (Types.FLOAT(), False, "path value: expected FLOAT, got bool False"),
        (Types.STRING(), 5, "path value: expected STRING, got int 5"),
        (Types.BOOLEAN(), 1, "path value: expected BOOLEAN, got int 1"),
        (
            Types.CHAR(),
            "ab",
            "path value: expected CHAR, got str 'ab' which is not a single character",
        ),
        (
            Types.SQL_TIMESTAMP(),
            datetime.date(2024, 1, 1),
            "path value: expected SQL_TIMESTAMP, got datetime.date(2024, 1, 1)",
        ),
        (
            Types.SQL_DATE(),
            datetime.datetime(2024, 1, 1),
            "path value: expected SQL_DATE, got datetime.datetime(2024, 1, 1, 0, 0)",
        ),
        (Types.BIG_DEC(), 1.5, "path value: expected BIG_DEC, got float 1.5"),
    ],
)
def test_rejected_atomic_values(type_info, value, message):
    assert error_of(type_info, value) == message


def test_long_values_are_shortened_in_messages():
    message = error_of(Types.INT(), "x" * 200)
    assert message == "path value: expected INT, got str '" + "x" * 76 + "..."


# -- validation of composite types ---------------------------------------


def test_row_named_reports_field_name_and_path():
    assert (
        error_of(SENSOR, Row(id="s1", temperature="abc"))
        == "field 'temperature' (path value.temperature): expected DOUBLE, got str 'abc'"
    )
    assert (
        error_of(SENSOR, ("s1", "abc"))
        == "field 'temperature' (path value.temperature): expected DOUBLE, got str 'abc'"
    )
    assert SENSOR.validate(Row(id="s1", temperature=20)) is None
    assert SENSOR.validate(Row("s1", 20.5)) is None
    assert SENSOR.validate(["s1", None]) is None


def test_custom_root_path():
    with pytest.raises(TypeError) as info:
        SENSOR.validate(Row(id=1, temperature=1.0), path="record")
    assert str(info.value) == "field 'id' (path record.id): expected STRING, got int 1"


def test_row_named_rejects_rows_with_different_names():
    assert error_of(SENSOR, Row(id="s1", temp=1.0)) == (
        "field 'temperature' (path value.temperature): the Row has field 'temp' at position 1 "
        "where the type declares 'temperature' (declared ['id', 'temperature'], "
        "Row has ['id', 'temp'])"
    )
    assert "the Row has field 'temperature' at position 0 where the type declares 'id'" in error_of(
        SENSOR, Row(temperature=1.0, id="s1")
    )


def test_unnamed_row_ignores_row_field_names():
    row_type = Types.ROW([Types.INT(), Types.STRING()])
    assert row_type.validate(Row(id=1, name="a")) is None
    assert error_of(row_type, Row(1, 2)) == "field 'f1' (path value.f1): expected STRING, got int 2"


def test_row_arity_and_container_errors():
    assert (
        error_of(SENSOR, Row("s1"))
        == "path value: expected ROW_NAMED with 2 fields, got <Row('s1')> which has 1 field"
    )
    assert (
        error_of(Types.ROW([Types.INT()]), (1, 2, 3))
        == "path value: expected ROW with 1 field, got tuple (1, 2, 3) which has 3 fields"
    )
    assert error_of(SENSOR, {"id": "s1", "temperature": 1.0}) == (
        "path value: expected ROW_NAMED (a Row, tuple or list with 2 fields), "
        "got dict {'id': 's1', 'temperature': 1.0}"
    )


def test_nested_paths():
    reading = Types.ROW_NAMED(
        ["sensor", "values", "tags"],
        [SENSOR, Types.LIST(Types.LONG()), Types.MAP(Types.STRING(), Types.INT())],
    )
    assert (
        error_of(reading, Row(sensor=Row(id=7, temperature=1.0), values=[], tags={}))
        == "field 'id' (path value.sensor.id): expected STRING, got int 7"
    )
    assert (
        error_of(reading, Row(sensor=None, values=[1, "2"], tags={}))
        == "path value.values[1]: expected LONG, got str '2'"
    )
    assert (
        error_of(reading, Row(sensor=None, values=None, tags={"a": 1, "b": 2.5}))
        == "path value.tags['b']: expected INT, got float 2.5"
    )
    assert (
        error_of(reading, Row(sensor=None, values=None, tags={3: 1}))
        == "path value.tags<key 3>: expected STRING, got int 3"
    )
    assert (
        error_of(reading, Row(sensor=None, values=None, tags={None: 1}))
        == "path value.tags<key None>: map keys cannot be None"
    )
    assert (
        error_of(reading, Row(sensor=None, values=(1,), tags={}))
        == "field 'values' (path value.values): expected LIST (a list), got tuple (1,)"
    )


def test_tuple_validation():
    pair = Types.TUPLE([Types.STRING(), Types.INT()])
    assert pair.validate(("a", 1)) is None
    assert error_of(pair, ("a", "b")) == "path value[1]: expected INT, got str 'b'"
    assert (
        error_of(pair, ["a", 1])
        == "path value: expected TUPLE (a tuple with 2 fields), got list ['a', 1]"
    )
    assert (
        error_of(pair, ("a",))
        == "path value: expected TUPLE with 2 fields, got tuple ('a',) which has 1 field"
    )


def test_map_requires_dict():
    assert (
        error_of(Types.MAP(Types.STRING(), Types.INT()), [("a", 1)])
        == "path value: expected MAP (a dict), got list [('a', 1)]"
    )


def test_arrays():
    ints = Types.PRIMITIVE_ARRAY(Types.INT())
    assert ints.validate([1, 2]) is None
    assert (
        error_of(ints, [1, None])
        == "path value[1]: expected INT, got None (primitive arrays cannot hold None)"
    )
    assert (
        error_of(ints, (1, 2)) == "path value: expected PRIMITIVE_ARRAY (a list), got tuple (1, 2)"
    )
    assert Types.PRIMITIVE_ARRAY(Types.BYTE()).validate(b"\x01\x02") is None
    strings = Types.BASIC_ARRAY(Types.STRING())
    assert strings.validate(["a", None]) is None
    assert error_of(strings, ["a", 1]) == "path value[1]: expected STRING, got int 1"


# -- arrow types ---------------------------------------------------------


@pytest.mark.parametrize(
    "type_info, arrow_type",
    [
        (Types.STRING(), pa.string()),
        (Types.INT(), pa.int32()),
        (Types.LONG(), pa.int64()),
        (Types.FLOAT(), pa.float32()),
        (Types.DOUBLE(), pa.float64()),
        (Types.BOOLEAN(), pa.bool_()),
        (Types.BYTE(), pa.int8()),
        (Types.SHORT(), pa.int16()),
        (Types.BIG_DEC(), pa.decimal128(38, 18)),
        (Types.SQL_TIMESTAMP(), pa.timestamp("ms")),
        (Types.SQL_DATE(), pa.date32()),
        (Types.PICKLED_BYTE_ARRAY(), pa.binary()),
        (Types.SQL_TIME(), pa.time32("ms")),
        (Types.CHAR(), pa.string()),
        (Types.BIG_INT(), pa.decimal128(38, 0)),
        (Types.LIST(Types.INT()), pa.list_(pa.int32())),
        (Types.PRIMITIVE_ARRAY(Types.DOUBLE()), pa.list_(pa.float64())),
        (Types.PRIMITIVE_ARRAY(Types.BYTE()), pa.binary()),
        (Types.BASIC_ARRAY(Types.STRING()), pa.list_(pa.string())),
        (Types.MAP(Types.STRING(), Types.LONG()), pa.map_(pa.string(), pa.int64())),
        (SENSOR, pa.struct([pa.field("id", pa.string()), pa.field("temperature", pa.float64())])),
        (
            Types.ROW([Types.INT(), Types.STRING()]),
            pa.struct([pa.field("f0", pa.int32()), pa.field("f1", pa.string())]),
        ),
        (
            Types.TUPLE([Types.STRING(), Types.LIST(Types.INT())]),
            pa.struct([pa.field("f0", pa.string()), pa.field("f1", pa.list_(pa.int32()))]),
        ),
    ],
)
def test_to_arrow_type(type_info, arrow_type):
    assert type_info.to_arrow_type() == arrow_type


def test_validated_rows_convert_to_arrow():
    values = [Row(id="s1", temperature=1), Row(id="s2", temperature=None)]
    for v in values:
        SENSOR.validate(v)
    array = pa.array([v.as_dict() for v in values], type=SENSOR.to_arrow_type())
    assert array.to_pylist() == [
        {"id": "s1", "temperature": 1.0},
        {"id": "s2", "temperature": None},
    ]
