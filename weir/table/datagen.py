"""Flink's `datagen` table connector as a DataStream source: random or sequence columns.

Row i is computed from i alone (its random columns from a generator seeded with i), so a
restart from a checkpoint replays exactly the rows it had produced. Options follow Flink's
DataGen connector: rows-per-second (default 10000), number-of-rows, and per field
`fields.<name>.kind` (random or sequence), `.min`/`.max` (numbers), `.length` (text,
default 100 hexadecimal characters as Flink's), `.start`/`.end` (sequence),
`.null-rate`.
"""

import random
import string
import zlib

from weir.common.row import Row
from weir.common.typeinfo import Types
from weir.datastream.connectors import DataGeneratorSource

_DEFAULT_RATE = 10000
_HEX = string.hexdigits[:16]
# Flink's defaults for random floating-point columns: (MIN_VALUE, MAX_VALUE) of the type.
_FLOAT_RANGES = {
    "FLOAT": (1.4e-45, 3.4028234663852886e38),
    "DOUBLE": (5e-324, 1.7976931348623157e308),
}
# The options each kind of column takes (Flink refuses the others).
_OPTIONS = {
    "sequence": {"kind", "start", "end"},
    "number": {"kind", "min", "max", "null-rate"},
    "text": {"kind", "length", "null-rate"},
    "BOOLEAN": {"kind", "null-rate"},
}
_FIELD_OPTIONS = set().union(*_OPTIONS.values())


def _bounds(data_type, options):
    if data_type.bits:
        half = 2 ** (data_type.bits - 1)
        return int(options.get("min", -half)), int(options.get("max", half - 1))
    low, high = _FLOAT_RANGES[data_type.name]
    return float(options.get("min", low)), float(options.get("max", high))


def _uniform(low, high):
    def draw(rng):
        share = rng.random()  # share * high + (1 - share) * low cannot overflow, where
        return share * high + (1 - share) * low  # low + (high - low) * share can

    return draw


def _class_of(data_type, kind: str) -> str:
    if kind == "sequence":
        return "sequence"
    if data_type.name in ("STRING", "VARCHAR"):
        return "text"
    return "BOOLEAN" if data_type.name == "BOOLEAN" else "number"


def _check_options(name, data_type, options) -> None:
    kind = options.get("kind", "random")
    if kind not in ("random", "sequence"):
        raise ValueError(f"datagen field '{name}': unknown kind '{kind}' (random or sequence)")
    unused = set(options) - _OPTIONS[_class_of(data_type, kind)]
    if unused:
        raise ValueError(
            f"datagen field '{name}' ({kind} {data_type!r}) takes no option "
            + ", ".join(f"'fields.{name}.{o}'" for o in sorted(unused))
        )


def _random_field(name, data_type, options):
    kind = data_type.name
    if kind == "CHAR":
        raise NotImplementedError(
            f"datagen field '{name}': weir generates no CHAR columns yet (use STRING or VARCHAR)"
        )
    if kind in ("STRING", "VARCHAR"):
        length = int(options.get("length", data_type.length or 100))
        return lambda rng: "".join(rng.choices(_HEX, k=length))
    if kind == "BOOLEAN":
        return lambda rng: rng.random() < 0.5
    if data_type.bits or kind in ("FLOAT", "DOUBLE"):
        low, high = _bounds(data_type, options)
        if low > high:
            raise ValueError(f"datagen field '{name}': min {low} is above max {high}")
        if data_type.bits:
            return lambda rng: rng.randint(low, high)
        return _uniform(low, high)
    raise NotImplementedError(f"datagen field '{name}': weir generates no {kind} columns yet")


def _sequence_field(name, data_type, options):
    if not data_type.bits:
        raise NotImplementedError(f"datagen field '{name}': weir's sequences are integers")
    if "start" not in options or "end" not in options:
        raise ValueError(
            f"datagen field '{name}' of kind sequence needs "
            f"'fields.{name}.start' and 'fields.{name}.end'"
        )
    start, end = int(options["start"]), int(options["end"])
    if end < start:
        raise ValueError(f"datagen field '{name}': end {end} is below start {start}")
    return start, end


class _Rows:
    """Row i of the table (picklable: it is shipped to Spark's workers)."""

    def __init__(self, names, randoms, sequences, null_rates, seed):
        self.names, self.randoms, self.sequences = names, randoms, sequences
        self.null_rates, self.seed = null_rates, seed

    def __call__(self, index):
        rng = random.Random(self.seed * 1_000_003 + index)
        values = []
        for name in self.names:
            if name in self.sequences:
                values.append(self.sequences[name] + index)
            elif self.null_rates.get(name) and rng.random() < self.null_rates[name]:
                values.append(None)
            else:
                values.append(self.randoms[name](rng))
        return Row(**dict(zip(self.names, values)))


def _field_options(options, names):
    fields: dict = {name: {} for name in names}
    for key, value in options.items():
        if key.startswith("fields."):
            name, _, option = key[len("fields.") :].rpartition(".")
            if name not in fields or option not in _FIELD_OPTIONS:
                raise ValueError(f"datagen: unknown option '{key}' (columns: {names})")
            fields[name][option] = value
        elif key not in ("connector", "rows-per-second", "number-of-rows"):
            raise ValueError(f"datagen: unknown option '{key}'")
    return fields


def _seed(table: str, columns, options) -> int:
    """A seed of the table's name, schema and options: the same in every run (a replay
    gives the same rows), different for different tables."""
    text = repr((table, [(n, repr(t)) for n, t in columns], sorted(options.items())))
    return zlib.crc32(text.encode())


def datagen_source(table: str, columns, options) -> DataGeneratorSource:
    """The source of datagen table `table` of `columns` ([(name, DataType)]) and
    `options`."""
    names = [name for name, _ in columns]
    fields = _field_options(options, names)
    randoms, sequences, counts = {}, {}, []
    for name, data_type in columns:
        _check_options(name, data_type, fields[name])
        if fields[name].get("kind", "random") == "sequence":
            start, end = _sequence_field(name, data_type, fields[name])
            sequences[name] = start
            counts.append(end - start + 1)
        else:
            randoms[name] = _random_field(name, data_type, fields[name])
    if "number-of-rows" in options:
        counts.append(int(options["number-of-rows"]))
    null_rates = {name: float(f["null-rate"]) for name, f in fields.items() if "null-rate" in f}
    rows = _Rows(names, randoms, sequences, null_rates, _seed(table, columns, options))
    type_info = Types.ROW_NAMED(names, [data_type.type_info for _, data_type in columns])
    rate = float(options.get("rows-per-second", _DEFAULT_RATE))
    return DataGeneratorSource(rows, min(counts) if counts else None, rate, type_info)
