"""Partitioned filesystem tables (`PARTITIONED BY (a, b)`, TableDescriptor's
`partitioned_by`), laid out as Flink's filesystem connector lays them out: a row's
partition values name its directory, `a=1/b=x/` under the table's path, and are not in
its files. A NULL or empty value is the directory `a=__DEFAULT_PARTITION__` (the
`partition.default-name` option), and characters a path cannot hold are written `%XX`,
as Flink (and Hive) escape them.

Reading discovers the partitions when the query is planned: each directory at the depth
of the partition keys whose names are `key=value` in the keys' order; files elsewhere
are not the table's. Each partition is read by a source of its own and its values are
put back in their columns."""

import os
import re

from weir.common.serialization import Encoder
from weir.table.casts import cast_value, to_sql_string
from weir.table.types import DataTypes

DEFAULT_NAME = "__DEFAULT_PARTITION__"
_ESCAPED = set("\"#%'*/:=?\\\x7f{[]^") | {chr(c) for c in range(1, 32)}


def escape(text: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in text)


def unescape(text: str) -> str:
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def checked_keys(keys, columns, path) -> list:
    """The partition keys, each a physical column of the table."""
    names = [c.name for c in columns]
    for key in keys:
        if key not in names:
            raise ValueError(
                f"table '{path}': the partition column '{key}' is not a "
                f"column of the table (columns: {', '.join(names)})"
            )
    return list(keys)


def discover(base: str, keys, path: str) -> list:
    """[(directory, {key: value text or None})] of the partitions under `base`, sorted.
    A directory at a partition's level that is not `key=value` for its key is refused,
    as Flink refuses it; hidden ones (`.x`, `_x`) and files there are passed over."""
    found: list = [(base, {})]
    for key in keys:
        deeper = []
        for directory, spec in found:
            if not os.path.isdir(directory):
                continue
            for name in sorted(os.listdir(directory)):
                full = os.path.join(directory, name)
                if name.startswith((".", "_")) or not os.path.isdir(full):
                    continue
                name_key, equals, value = name.partition("=")
                if not equals or unescape(name_key) != key:
                    raise ValueError(
                        f"table '{path}': the directory '{full}' is not a partition: its "
                        f"name should be {key}=<value> (partition keys: {', '.join(keys)})"
                    )
                value = unescape(value)
                deeper.append((full, {**spec, key: None if value == DEFAULT_NAME else value}))
        found = deeper
    return found


class PartitionValues:
    """A partition's records: its files' rows with the partition's values put in their
    columns (`positions`: each key's column index in the table's row)."""

    def __init__(self, positions, values):
        self.positions, self.values = positions, values

    def __call__(self, record):
        kind, values = record
        row = list(values)
        for position, value in zip(self.positions, self.values):
            row.insert(position, value)
        return kind, tuple(row)


def partition_reader(columns, keys, spec) -> PartitionValues:
    """What puts a partition's values (`spec`: its directory's texts) into its rows."""
    names = [c.name for c in columns]
    positions = sorted(names.index(k) for k in keys)
    values = []
    for position in positions:
        column = columns[position]
        text = spec[column.name]
        values.append(
            None if text is None else cast_value(text, DataTypes.STRING(), column.data_type)
        )
    return PartitionValues(positions, values)


def file_columns(columns, keys) -> list:
    """The columns a partitioned table's files hold: all but the partition keys."""
    return [c for c in columns if c.name not in keys]


class PartitionLine:
    """A record as (its partition's directory, its line without the partition values)."""

    def __init__(self, format_line, columns, keys, default_name=DEFAULT_NAME):
        names = [c.name for c in columns]
        self.format_line, self.default_name = format_line, default_name
        self.keys = [(key, names.index(key), columns[names.index(key)].data_type) for key in keys]
        self.kept = [i for i, name in enumerate(names) if name not in keys]

    def __call__(self, record):
        kind, values = record
        directory = "/".join(
            f"{escape(key)}={self._text(values[index], data_type)}"
            for key, index, data_type in self.keys
        )
        return directory, self.format_line((kind, tuple(values[i] for i in self.kept)))

    def _text(self, value, data_type) -> str:
        text = None if value is None else to_sql_string(value, data_type)
        return escape(text) if text else self.default_name


class PartitionBucket:
    """FileSink's bucket of a (directory, line) value: its partition's directory."""

    def get_bucket_id(self, value, context) -> str:  # noqa: ARG002
        return value[0]


class LineEncoder(Encoder):
    """FileSink's encoder of (directory, line) values: the line."""

    def encode(self, value, type_info=None) -> bytes:  # noqa: ARG002
        return value[1].encode("utf-8") + b"\n"
