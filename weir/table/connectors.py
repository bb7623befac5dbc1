"""The Table API's connectors: what a `CREATE TABLE ... WITH ('connector' = ...)` or a
TableDescriptor names. A connector reads a table as a DataStream of (kind, values)
records (`source_stream`) or writes one (`sink`), on weir's DataStream connectors."""

from weir.table.casts import to_java_string
from weir.table.changelog import INSERT
from weir.table.evaluate import not_supported

_KINDS = ("+I", "-U", "+U", "-D")


class PrintLine:
    """A record as Flink's print connector writes it: `+I[a, 1]`."""

    def __init__(self, types=None):
        self.types = types

    def __call__(self, record):
        kind, values = record
        types = self.types or [None] * len(values)
        return f"{_KINDS[kind]}[{', '.join(to_java_string(v, t) for v, t in zip(values, types))}]"


class _AsRecord:
    def __init__(self, names):
        self.names = names

    def __call__(self, row):
        return INSERT, tuple(row[i] for i in range(len(self.names)))


class Connector:
    name = ""

    def __init__(self, options: dict):
        self.options = dict(options)

    def source_stream(self, env, path, columns):
        raise ValueError(f"table '{path}': the '{self.name}' connector cannot be read")

    def sink(self, stream, path, columns):
        raise ValueError(f"table '{path}': the '{self.name}' connector cannot be written")


class PrintConnector(Connector):
    name = "print"

    def sink(self, stream, path, columns):
        identifier = self.options.get("print-identifier")
        lines = stream.map(PrintLine([c.data_type for c in columns])).name("Print")
        if self.options.get("standard-error", "false").lower() == "true":
            not_supported("the print connector's 'standard-error' option")
        return lines.print(identifier)


class BlackholeConnector(Connector):
    name = "blackhole"

    def sink(self, stream, path, columns):
        return stream.filter(lambda record: False).name("BlackHole").print()


class DatagenConnector(Connector):
    name = "datagen"

    def source_stream(self, env, path, columns):
        from weir.table.datagen import datagen_source
        source = datagen_source(path, [(c.name, c.data_type) for c in columns],
                                self.options)
        return env.from_source(source, None, "datagen").map(
            _AsRecord([c.name for c in columns])).name(f"Source: {path}")


CONNECTORS = {c.name: c for c in (PrintConnector, BlackholeConnector, DatagenConnector)}


def connector_of(options: dict) -> Connector:
    name = options.get("connector")
    if name is None:
        raise ValueError("a table needs its 'connector' option")
    if name not in CONNECTORS:
        not_supported(f"the '{name}' table connector (weir has "
                      f"{', '.join(sorted(CONNECTORS))})")
    return CONNECTORS[name]({k: v for k, v in options.items() if k != "connector"})
