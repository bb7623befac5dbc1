"""UNNEST's table function and SPLIT, without a job (the programs with PyFlink's output are
tests/table_programs/sql_unnest.py)."""

import pytest

from weir.table import DataTypes, EnvironmentSettings, TableEnvironment
from weir.table.builtins import FUNCTIONS
from weir.table.sql_types import parse_type
from weir.table.unnest import unnest_function


def _rows(function, value):
    return list(function.function(value))


def _columns(function):
    return function.names, function.result_type


def test_an_array_of_scalars_unnests_to_one_column_named_as_flink_names_it():
    call = unnest_function(DataTypes.ARRAY(DataTypes.STRING()))
    assert _columns(call)[0] == ["EXPR$0"]
    assert _rows(call, ["a", None]) == [("a",), (None,)]
    assert _rows(call, None) == [] and _rows(call, []) == []


def test_a_table_alias_names_a_single_column_and_not_a_maps_two():
    assert _columns(unnest_function(DataTypes.ARRAY(DataTypes.INT()), [], False, "t"))[0] == ["t"]
    call = unnest_function(DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()), [], False, "t")
    assert _columns(call)[0] == ["KEY", "VALUE"]
    assert _rows(call, {"k": 1, "m": None}) == [("k", 1), ("m", None)]


def test_an_array_of_rows_unnests_to_its_fields_and_ordinality_counts_from_one():
    element = DataTypes.ROW(
        [DataTypes.FIELD("n", DataTypes.INT()), DataTypes.FIELD("s", DataTypes.STRING())]
    )
    call = unnest_function(DataTypes.ARRAY(element), ordinality=True)
    names, types = _columns(call)
    assert names == ["n", "s", "ORDINALITY"]
    assert str(types[2]) == "INT NOT NULL"
    assert _rows(call, [(1, "p"), None]) == [(1, "p", 1), (None, None, 2)]


def test_unnest_of_what_is_no_collection_or_with_too_many_names_is_refused():
    with pytest.raises(NotImplementedError, match="UNNEST of a STRING"):
        unnest_function(DataTypes.STRING())
    with pytest.raises(ValueError, match="UNNEST gives 1 columns .* its alias names 2"):
        unnest_function(DataTypes.ARRAY(DataTypes.INT()), ["a", "b"])


def test_split_keeps_empty_parts_splits_characters_and_gives_nothing_for_empty_text():
    split, data_type = FUNCTIONS["SPLIT"]
    assert str(data_type) == "ARRAY<STRING>"
    assert split("a b  c", " ") == ["a", "b", "", "c"]
    assert split("d,e,", ",") == ["d", "e", ""]
    assert split("ab", "") == ["a", "b"]
    assert split("", " ") == []


def test_map_types_parse_with_nested_parameters():
    assert (
        str(parse_type("MAP<STRING, DECIMAL(10, 2)> NOT NULL"))
        == "MAP<STRING, DECIMAL(10, 2)> NOT NULL"
    )
    assert str(parse_type("map<int, array<string>>")) == "MAP<INT, ARRAY<STRING>>"
    with pytest.raises(ValueError, match="key type and a value type"):
        parse_type("MAP<STRING>")


def test_an_unnest_query_has_flinks_columns():
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(
        "CREATE TABLE t (id INT, tags ARRAY<STRING>, attrs MAP<STRING, INT>) "
        "WITH ('connector' = 'datagen')"
    )
    table = t_env.sql_query(
        "SELECT * FROM t CROSS JOIN UNNEST(tags) WITH ORDINALITY, UNNEST(attrs)"
    )
    assert [(c.name, str(c.data_type)) for c in table._node.columns] == [
        ("id", "INT"),
        ("tags", "ARRAY<STRING>"),
        ("attrs", "MAP<STRING, INT>"),
        ("EXPR$0", "STRING"),
        ("ORDINALITY", "INT NOT NULL"),
        ("KEY", "STRING"),
        ("VALUE", "INT"),
    ]
    with pytest.raises(NotImplementedError, match="UNNEST joins by"):
        t_env.sql_query("SELECT * FROM t RIGHT JOIN UNNEST(tags) AS u(x) ON TRUE")


def test_an_array_constant_has_the_type_common_to_its_elements_as_pyflink_printed_it():
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    table = t_env.sql_query("SELECT ARRAY['a', 'bb'] AS x, ARRAY[1, 2] AS y")
    assert [str(c.data_type) for c in table._node.columns] == [
        "ARRAY<VARCHAR(2) NOT NULL> NOT NULL",
        "ARRAY<INT NOT NULL> NOT NULL",
    ]
