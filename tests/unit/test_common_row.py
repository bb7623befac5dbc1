import pickle

import pytest

from weir.common import Row, RowKind
from weir.common.row import FieldNotFoundError


def test_positional_row_access_and_repr():
    row = Row(1, "a")
    assert row[0] == 1
    assert row[1] == "a"
    assert row[-1] == "a"
    assert row[0:2] == [1, "a"]
    assert len(row) == 2
    assert list(row) == [1, "a"]
    assert repr(row) == "<Row(1, 'a')>"  # (PyFlink's)
    assert str(row) == "<Row(1, 'a')>"
    assert row.get_field_names() is None


def test_named_row_keeps_kwarg_order():
    row = Row(name="a", id=1)
    assert list(row) == ["a", 1]
    assert row.get_field_names() == ["name", "id"]
    assert repr(row) == "Row(name='a', id=1)"


def test_named_row_access_by_index_name_and_attribute():
    row = Row(id=1, name="a")
    assert row[0] == 1
    assert row["name"] == "a"
    assert row.name == "a"
    assert row.id == 1
    assert row.as_dict() == {"id": 1, "name": "a"}


def test_missing_field_raises_key_and_value_error():
    row = Row(id=1)
    with pytest.raises(KeyError):
        row["nope"]
    with pytest.raises(ValueError, match=r"Row has no field 'nope'; fields are \['id'\]"):
        row["nope"]
    with pytest.raises(AttributeError, match="nope"):
        row.nope  # noqa: B018 (the access raises)
    with pytest.raises(FieldNotFoundError, match="has no field names"):
        Row(1)["id"]


def test_both_args_and_kwargs_rejected():
    with pytest.raises(ValueError, match="Can not use both args and kwargs"):
        Row(1, b=2)


def test_setitem_by_index_and_name():
    row = Row(id=1, name="a")
    row["name"] = "b"
    row[0] = 7
    assert row == Row(id=7, name="b")


def test_attributes_cannot_be_set():
    row = Row(id=1)
    with pytest.raises(AttributeError):
        row.id = 2


def test_equality_positional():
    assert Row(1, 2) == Row(1, 2)
    assert Row(1, 2) != Row(2, 1)
    assert Row(1, 2) != (1, 2)
    assert (1, 2) != Row(1, 2)


def test_equality_named_compares_names_and_values():
    assert Row(a=1, b=2) == Row(a=1, b=2)
    assert Row(a=1, b=2) == Row(b=2, a=1)  # PyFlink compares by field name
    assert Row(a=1, b=2) != Row(a=1, c=2)
    assert Row(a=1, b=2) != Row(a=1, b=3)
    assert Row(a=1, b=2) != Row(1, 2)
    assert Row(1, 2) != Row(a=1, b=2)


def test_equality_includes_row_kind():
    deleted = Row(1, 2)
    deleted.set_row_kind(RowKind.DELETE)
    assert deleted != Row(1, 2)
    assert deleted == Row.of_kind(RowKind.DELETE, 1, 2)


def test_hash_consistent_with_equality():
    assert hash(Row(1, 2)) == hash(Row(1, 2))
    assert hash(Row(a=1, b=2)) == hash(Row(b=2, a=1))
    assert {Row(1, "a"), Row(1, "a"), Row(2, "a")} == {Row(1, "a"), Row(2, "a")}
    assert {Row(a=1): "x"}[Row(a=1)] == "x"


def test_row_kind_default_and_setter():
    row = Row(1)
    assert row.get_row_kind() is RowKind.INSERT
    row.set_row_kind(RowKind.UPDATE_AFTER)
    assert row.get_row_kind() is RowKind.UPDATE_AFTER
    with pytest.raises(TypeError, match="row_kind must be a RowKind, got str 'x'"):
        row.set_row_kind("x")


def test_row_kind_values_and_short_strings():
    assert [k.name for k in RowKind] == ["INSERT", "UPDATE_BEFORE", "UPDATE_AFTER", "DELETE"]
    assert [k.value for k in RowKind] == [0, 1, 2, 3]
    assert [str(k) for k in RowKind] == ["+I", "-U", "+U", "-D"]


def test_factory_row_creates_named_rows():
    Person = Row("name", "age")
    alice = Person("Alice", 11)
    assert alice == Row(name="Alice", age=11)
    assert repr(alice) == "Row(name='Alice', age=11)"
    assert alice.age == 11
    with pytest.raises(ValueError, match=r"Row\('name', 'age'\) expects 2 values, got 1"):
        Person("Bob")
    with pytest.raises(TypeError, match="field-name strings"):
        Row(1, 2)("a", "b")


def test_pickle_round_trip_keeps_names_values_and_kind():
    named = Row.of_kind(RowKind.UPDATE_BEFORE, id=1, tags=["x"])
    copy = pickle.loads(pickle.dumps(named))
    assert copy == named
    assert copy.get_field_names() == ["id", "tags"]
    assert copy.get_row_kind() is RowKind.UPDATE_BEFORE
    positional = pickle.loads(pickle.dumps(Row(1, "a")))
    assert positional == Row(1, "a")
    assert positional.get_field_names() is None


def test_contains_follows_pyflink():
    assert "id" in Row(id=5)
    assert 5 not in Row(id=5)
    assert 5 in Row(5)


def test_as_dict_recursive_and_positional_error():
    row = Row(a=1, inner=Row(b=2), items=[Row(c=3)])
    assert row.as_dict() == {"a": 1, "inner": Row(b=2), "items": [Row(c=3)]}
    assert row.as_dict(recursive=True) == {"a": 1, "inner": {"b": 2}, "items": [{"c": 3}]}
    with pytest.raises(TypeError, match="without field names"):
        Row(1).as_dict()


def test_set_field_names():
    row = Row(1, "a")
    row.set_field_names(["id", "name"])
    assert row == Row(id=1, name="a")
    with pytest.raises(ValueError, match="Row has 2 values but 1 field names"):
        row.set_field_names(["id"])


def test_nested_repr():
    assert repr(Row(a=Row(1, None), b=[1.5])) == "Row(a=<Row(1, None)>, b=[1.5])"


def test_source_rows_read_fields_as_attributes_and_stay_rows():
    from weir.common.row import row_of, shared_field_names

    fields = shared_field_names(["id", "as_dict", "_hidden", "two words"])
    row = row_of(fields, [1, 2, 3, 4])
    assert isinstance(row, Row) and type(row).__name__ == "Row"
    assert row.id == 1 and row["as_dict"] == 2 and row["two words"] == 4
    assert row.as_dict() == {"id": 1, "as_dict": 2, "_hidden": 3, "two words": 4}
    assert row == Row(id=1, as_dict=2, _hidden=3, **{"two words": 4})
    row["id"] = 9
    assert row.id == 9
    copy = pickle.loads(pickle.dumps(row))
    assert copy == row and copy.id == 9
    row.set_field_names(["a", "id", "c", "d"])
    assert (row.a, row.id) == (9, 2)
    with pytest.raises(AttributeError):
        row.missing  # noqa: B018 (the access raises)


class _CountingArray:
    """A column that counts its conversions to Python values."""

    def __init__(self, values):
        self.values = values
        self.conversions = 0

    def to_pylist(self):
        self.conversions += 1
        return list(self.values)


def _column_rows():
    from weir.common.row import rows_of_columns, shared_field_names

    arrays = [
        _CountingArray([1, 2, 3]),
        _CountingArray(["a", "b", "c"]),
        _CountingArray([0.5, 1.5, 2.5]),
    ]
    fields = shared_field_names(["id", "name", "two words"])
    return arrays, rows_of_columns(fields, arrays, 3)


def test_column_rows_convert_only_the_columns_read_once_each():
    arrays, rows = _column_rows()
    assert [r.id for r in rows] == [1, 2, 3]
    assert [r.id for r in rows] == [1, 2, 3]
    assert [a.conversions for a in arrays] == [1, 0, 0]
    assert rows[2].name == "c"
    assert [a.conversions for a in arrays] == [1, 1, 0]


def test_column_rows_behave_as_rows():
    arrays, rows = _column_rows()
    row = rows[1]
    assert isinstance(row, Row) and type(row).__name__ == "Row"
    assert row == Row(id=2, name="b", **{"two words": 1.5})
    assert repr(row) == "Row(id=2, name='b', two words=1.5)"
    assert row["two words"] == 1.5 and row[0] == 2 and len(row) == 3
    assert pickle.loads(pickle.dumps(rows[0])) == Row(id=1, name="a", **{"two words": 0.5})
    assert rows[2].as_dict() == {"id": 3, "name": "c", "two words": 2.5}


def test_column_rows_take_a_row_kind_of_their_own():
    from weir.common.row import RowKind

    arrays, rows = _column_rows()
    rows[0].set_row_kind(RowKind.DELETE)
    assert rows[0].get_row_kind() == RowKind.DELETE and rows[1].get_row_kind() == RowKind.INSERT
    assert (rows[0].id, rows[0].name, rows[1].id) == (1, "a", 2)
    assert rows[0].get_field_names() == ["id", "name", "two words"]
    restored = pickle.loads(pickle.dumps(rows[0]))
    assert restored.get_row_kind() == RowKind.DELETE and restored.id == 1


def test_column_rows_take_writes_and_new_names():
    arrays, rows = _column_rows()
    row = rows[0]
    row["id"] = 7
    row[1] = "z"
    assert (row.id, row.name) == (7, "z")
    assert rows[1].id == 2  # the other rows still read the columns
    other = rows[2]
    other.set_field_names(["x", "y", "z"])
    assert (other.x, other.y, other.z) == (3, "c", 2.5)
    with pytest.raises(AttributeError):
        rows[1].missing  # noqa: B018 (the access raises)
    with pytest.raises(AttributeError):
        rows[1].id = 5


def test_column_rows_index_from_their_columns_and_stay_column_backed():
    from weir.common.row import PackedRows, pack_rows

    arrays, rows = _column_rows()
    batch_class = type(rows[0])
    assert [row[0] for row in rows] == [1, 2, 3]  # a key selector's read
    assert (rows[1][-1], rows[1][-3], rows[2]["name"], rows[0]["two words"]) == (1.5, 2, "c", 0.5)
    assert [a.conversions for a in arrays] == [1, 1, 1]
    assert all(type(row) is batch_class for row in rows)
    packed = pack_rows([rows[2], rows[0]])  # still the batch's columns, by row index
    assert isinstance(packed, PackedRows) and packed.columns == [[3, 1], ["c", "a"], [2.5, 0.5]]
    assert rows[1][1:] == ["b", 1.5]  # a slice reads the row's values (now plain)
    assert type(rows[1]) is not batch_class
    assert rows[1] == Row(id=2, name="b", **{"two words": 1.5})
    with pytest.raises(IndexError):
        rows[0][3]
    with pytest.raises(IndexError):
        rows[2][-4]
    with pytest.raises(FieldNotFoundError):
        rows[0]["missing"]
    assert rows[0][True] == "a"  # as a list does: True is 1
