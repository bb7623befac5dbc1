import pytest

from weir.common import Configuration


def test_values_are_stored_as_strings():
    conf = Configuration()
    conf.set_integer("parallelism", 4).set_boolean("flag", True).set_float("ratio", 0.5)
    conf.set_string("name", "job")
    assert conf.to_dict() == {"parallelism": "4", "flag": "true", "ratio": "0.5", "name": "job"}


def test_typed_getters_and_defaults():
    conf = Configuration()
    conf.set_integer("i", -7)
    conf.set_boolean("b", False)
    conf.set_float("f", 2)
    conf.set_string("s", "x")
    assert conf.get_integer("i", 0) == -7
    assert conf.get_boolean("b", True) is False
    assert conf.get_float("f", 0.0) == 2.0
    assert conf.get_string("s", "d") == "x"
    assert conf.get_integer("missing", 5) == 5
    assert conf.get_boolean("missing", True) is True
    assert conf.get_float("missing", 1.5) == 1.5
    assert conf.get_string("missing", "d") == "d"
    assert conf.get_string("missing") is None


def test_getters_parse_strings_like_flink():
    conf = Configuration()
    conf.set_string("i", " 12 ").set_string("b", "TRUE").set_string("f", "1e3")
    assert conf.get_integer("i", 0) == 12
    assert conf.get_boolean("b", False) is True
    assert conf.get_float("f", 0.0) == 1000.0


def test_unparsable_values_raise_naming_key():
    conf = Configuration().set_string("k", "abc")
    with pytest.raises(ValueError, match="Could not parse value 'abc' for key 'k' as an integer"):
        conf.get_integer("k", 0)
    with pytest.raises(ValueError, match="Could not parse value 'abc' for key 'k' as a boolean"):
        conf.get_boolean("k", False)
    with pytest.raises(ValueError, match="Could not parse value 'abc' for key 'k' as a float"):
        conf.get_float("k", 0.0)


def test_setters_check_types():
    conf = Configuration()
    with pytest.raises(TypeError, match=r"set_integer\('k', ...\) expects an int, got str '1'"):
        conf.set_integer("k", "1")
    with pytest.raises(TypeError, match="expects an int, got bool True"):
        conf.set_integer("k", True)
    with pytest.raises(TypeError, match="expects a bool, got int 1"):
        conf.set_boolean("k", 1)
    with pytest.raises(TypeError, match="expects a str, got int 1"):
        conf.set_string("k", 1)
    with pytest.raises(ValueError, match="outside the 32-bit range"):
        conf.set_integer("k", 2**31)
    with pytest.raises(TypeError, match="configuration key must be a str, got int 1"):
        conf.set_string(1, "v")
    assert conf.to_dict() == {}


def test_bytearray_round_trip():
    conf = Configuration().set_bytearray("b", bytearray(b"\x00\xffab"))
    assert conf.get_string("b") == "AP9hYg=="
    assert conf.get_bytearray("b") == bytearray(b"\x00\xffab")


def test_keys_contains_remove():
    conf = Configuration().set_string("a", "1").set_string("b", "2")
    assert conf.key_set() == {"a", "b"}
    assert conf.contains_key("a") is True
    assert conf.contains_key("z") is False
    assert "b" in conf
    assert conf.remove_config("a") is True
    assert conf.remove_config("a") is False
    assert conf.key_set() == {"b"}


def test_copy_constructor_is_independent():
    original = Configuration().set_string("a", "1")
    copy = Configuration(original)
    copy.set_string("a", "2")
    assert original.get_string("a", None) == "1"
    assert copy.get_string("a", None) == "2"
    with pytest.raises(TypeError, match="expects a Configuration, got dict"):
        Configuration({"a": "1"})


def test_add_all_with_and_without_prefix():
    other = Configuration().set_string("x", "1")
    conf = Configuration().set_string("y", "2")
    conf.add_all(other)
    conf.add_all(other, "p.")
    assert conf.to_dict() == {"y": "2", "x": "1", "p.x": "1"}
    target = {"z": "3"}
    conf.add_all_to_dict(target)
    assert target == {"z": "3", "y": "2", "x": "1", "p.x": "1"}


def test_equality_and_repr():
    assert Configuration().set_integer("a", 1) == Configuration().set_string("a", "1")
    assert Configuration().set_integer("a", 1) != Configuration()
    assert repr(Configuration().set_boolean("a", True)) == "Configuration({'a': 'true'})"


def test_to_dict_is_a_copy():
    conf = Configuration().set_string("a", "1")
    conf.to_dict()["a"] = "changed"
    assert conf.get_string("a") == "1"
