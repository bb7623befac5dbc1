"""A savepoint's keyed state as a Spark DataFrame, to query with Spark SQL (Flink's State
Processor API, reading side: `SavepointReader.readKeyedState`).

The state is decoded in pure Python (weir.runtime.state.savepoint_reader) on the driver,
which also took it when it wrote the savepoint, and handed to Spark as one Arrow table.
The columns' types come from the descriptor's type information (weir.common.typeinfo),
or from `key_type` / `value_type` (Flink's keyTypeInfo / outTypeInfo); without one, from
the values if they are all simple (str, int, float or bool). A column nothing types (no
declared type, no values) is of Spark's NullType ("void").
"""

import decimal
import pickle

from pyspark.sql.pandas.types import from_arrow_type
from pyspark.sql.types import StructField, StructType

from weir.runtime.state.savepoint_reader import OperatorKeyedState

SIMPLE = "str, int, float or bool"


def read_keyed_state(
    spark, savepoint_path: str, uid: str, descriptor, key_type=None, value_type=None
):
    """A DataFrame (key, value) of the keyed state `descriptor` declares in operator `uid`
    of the savepoint: one row per key holding it (a ListState's value is an array, a
    MapState's a map, an AggregatingState's its function's result). `key_type` and
    `value_type` (TypeInformation) type the columns where the descriptor does not."""
    state = OperatorKeyedState(savepoint_path, uid)
    rows = state.values(descriptor)
    where = state.where(descriptor.name)
    key_arrow = (
        _declared(key_type, [(key, key) for key, _ in rows], where, "key")
        if key_type is not None
        else _inferred(
            [(key, key) for key in state.keys()],
            f"{where}: its operator's keys",
            "pass their type as key_type, e.g. key_type=Types.STRING()",
        )
    )
    value_arrow = (
        _declared(value_type, rows, where, "value")
        if value_type is not None
        else _value_arrow_type(descriptor, rows, where)
    )
    return _frame(
        spark,
        _column([key for key, _ in rows], key_arrow),
        _column([value for _, value in rows], value_arrow),
    )


def _frame(spark, keys, values):
    """A DataFrame of the Arrow columns `keys` and `values`, typed as they are."""
    import pyarrow as pa

    keyed = not pa.types.is_null(keys.type)  # a key is never None (unless there are none)
    table = pa.table(
        [keys, values],
        schema=pa.schema([pa.field("key", keys.type, keyed), pa.field("value", values.type)]),
    )
    return spark.createDataFrame(
        table,
        schema=StructType(
            [
                StructField("key", from_arrow_type(keys.type), keyed),
                StructField("value", from_arrow_type(values.type), True),
            ]
        ),
    )


def _value_arrow_type(descriptor, rows: list, where: str):
    """The value column's Arrow type for the descriptor's kind of state. Here and below,
    values come as (key, value): the key they are of names them in errors."""
    import pyarrow as pa

    name, kind, type_info = descriptor.name, descriptor.kind, descriptor.type_info
    if kind == "list":
        elements = [(key, element) for key, value in rows for element in value]
        if type_info is None and not elements:
            return pa.null()  # nothing types it
        return pa.list_(
            _typed(
                type_info,
                elements,
                where,
                "element",
                "its lists' elements",
                _give(f"ListStateDescriptor('{name}', Types.INT())"),
            )
        )
    if kind == "map":
        keys = [(key, item) for key, value in rows for item in value]
        items = [(key, item) for key, value in rows for item in value.values()]
        if descriptor.key_type_info is None and not keys:
            return pa.null()  # nothing types it (and a map's keys cannot be null)
        hint = _give(f"MapStateDescriptor('{name}', Types.STRING(), Types.INT())")
        return pa.map_(
            _typed(descriptor.key_type_info, keys, where, "map key", "its maps' keys", hint),
            _typed(type_info, items, where, "map value", "its maps' values", hint),
        )
    if kind == "aggregating":  # its type information is the accumulator's, not the result's
        return _inferred(
            rows,
            f"{where}: its results",
            "pass their type as value_type, e.g. value_type=Types.DOUBLE()",
        )
    example = (
        f"ReducingStateDescriptor('{name}', function, Types.INT())"
        if kind == "reducing"
        else f"ValueStateDescriptor('{name}', Types.INT())"
    )
    return _typed(type_info, rows, where, "value", "its values", _give(example))


def _typed(type_info, pairs: list, where: str, path: str, what: str, hint: str):
    """The Arrow type of `values`: `type_info`'s, or inferred (`what` and `hint` name them
    and say how to type them where they cannot be)."""
    if type_info is not None:
        return _declared(type_info, pairs, where, path)
    return _inferred(pairs, f"{where}: {what}", hint)


def _give(example: str) -> str:
    return f"give the descriptor their type, e.g. {example}"


def _declared(type_info, pairs: list, where: str, path: str):
    """`type_info`'s Arrow type, each value checked against it."""
    for key, value in pairs:
        try:
            type_info.validate(value, path)
        except TypeError as error:
            raise TypeError(f"{where}: key {key!r}: {error}") from None
    return type_info.to_arrow_type()


def _inferred(pairs: list, what: str, hint: str):
    """The Arrow type of the values if all are simple (null: there are none)."""
    import pyarrow as pa

    kinds = {type(value) for _, value in pairs if value is not None}
    if not kinds:
        return pa.null()
    if kinds == {bool}:
        return pa.bool_()
    if kinds == {str}:
        return pa.string()
    if kinds == {int}:
        return pa.int64()
    if kinds <= {int, float}:
        return pa.float64()
    found = ", ".join(sorted(kind.__name__ for kind in kinds))
    raise TypeError(f"{what} are not all of one simple type ({SIMPLE}): they are {found}; {hint}")


def _column(values: list, arrow_type):
    """`values` as an Arrow array of `arrow_type`."""
    import pyarrow as pa

    return pa.array([_arrow_value(value, arrow_type) for value in values], type=arrow_type)


def _arrow_value(value, arrow_type):
    """`value` as pyarrow takes it for `arrow_type`: a row or tuple as a dict of its
    fields, a dict as its items, any object as its pickled bytes (PICKLED_BYTE_ARRAY)."""
    import pyarrow as pa

    if value is None:
        return None
    if pa.types.is_struct(arrow_type):
        fields = [arrow_type.field(i) for i in range(arrow_type.num_fields)]
        return {field.name: _arrow_value(item, field.type) for field, item in zip(fields, value)}
    if pa.types.is_map(arrow_type):
        return [
            (_arrow_value(key, arrow_type.key_type), _arrow_value(item, arrow_type.item_type))
            for key, item in value.items()
        ]
    if pa.types.is_list(arrow_type):
        return [_arrow_value(item, arrow_type.value_type) for item in value]
    if pa.types.is_binary(arrow_type) and not isinstance(value, (bytes, bytearray)):
        return pickle.dumps(value, protocol=5)
    if pa.types.is_decimal(arrow_type) and isinstance(value, int):
        return decimal.Decimal(value)  # BIG_INT, or an int as a BIG_DEC
    return value
