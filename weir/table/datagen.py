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

from weir.common.row import Row
from weir.common.typeinfo import Types
from weir.datastream.connectors import DataGeneratorSource

_DEFAULT_RATE = 10000
_HEX = string.hexdigits[:16]
_FIELD_OPTIONS = {"kind", "min", "max", "length", "start", "end", "null-rate"}


def _bounds(data_type, options):
    if data_type.bits:
        half = 2 ** (data_type.bits - 1)
        low, high = -half, half - 1
        return int(options.get("min", low)), int(options.get("max", high))
    return float(options.get("min", -1.7e308)), float(options.get("max", 1.7e308))


def _random_field(name, data_type, options):
    kind = data_type.name
    if kind in ("STRING", "VARCHAR", "CHAR"):
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
        return lambda rng: rng.uniform(low, high)
    raise NotImplementedError(f"datagen field '{name}': weir generates no {kind} columns yet")


def _sequence_field(name, data_type, options):
    if not data_type.bits:
        raise NotImplementedError(f"datagen field '{name}': weir's sequences are integers")
    if "start" not in options or "end" not in options:
        raise ValueError(f"datagen field '{name}' of kind sequence needs "
                         f"'fields.{name}.start' and 'fields.{name}.end'")
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
    fields = {name: {} for name in names}
    for key, value in options.items():
        if key.startswith("fields."):
            name, _, option = key[len("fields."):].rpartition(".")
            if name not in fields or option not in _FIELD_OPTIONS:
                raise ValueError(f"datagen: unknown option '{key}' (columns: {names})")
            fields[name][option] = value
        elif key not in ("connector", "rows-per-second", "number-of-rows"):
            raise ValueError(f"datagen: unknown option '{key}'")
    return fields


def datagen_source(columns, options) -> DataGeneratorSource:
    """The source of a datagen table of `columns` ([(name, DataType)]) and `options`."""
    names = [name for name, _ in columns]
    fields = _field_options(options, names)
    randoms, sequences, counts = {}, {}, []
    for name, data_type in columns:
        if fields[name].get("kind", "random") == "sequence":
            start, end = _sequence_field(name, data_type, fields[name])
            sequences[name] = start
            counts.append(end - start + 1)
        else:
            randoms[name] = _random_field(name, data_type, fields[name])
    if "number-of-rows" in options:
        counts.append(int(options["number-of-rows"]))
    null_rates = {name: float(f["null-rate"]) for name, f in fields.items() if "null-rate" in f}
    rows = _Rows(names, randoms, sequences, null_rates, seed=len(names))
    type_info = Types.ROW_NAMED(names, [data_type.type_info for _, data_type in columns])
    rate = float(options.get("rows-per-second", _DEFAULT_RATE))
    return DataGeneratorSource(rows, min(counts) if counts else None, rate, type_info)
