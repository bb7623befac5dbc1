"""``Row`` and ``RowKind``, mirroring ``pyflink.common.types``."""

from enum import Enum
from operator import attrgetter
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Type, cast

from weir.common.errors import WeirError

__all__ = ["Row", "RowKind", "FieldNotFoundError"]


class RowKind(Enum):
    """The change a row describes in a changelog (default ``INSERT``)."""

    INSERT = 0
    UPDATE_BEFORE = 1
    UPDATE_AFTER = 2
    DELETE = 3

    def __str__(self) -> str:
        return _SHORT_STRINGS[self]


_SHORT_STRINGS = {
    RowKind.INSERT: "+I",
    RowKind.UPDATE_BEFORE: "-U",
    RowKind.UPDATE_AFTER: "+U",
    RowKind.DELETE: "-D",
}


class FieldNotFoundError(WeirError, KeyError, ValueError):
    """A field name that a row does not have.

    PyFlink raises ``ValueError`` here; it is also a ``KeyError`` so that
    ``row["missing"]`` behaves like a mapping lookup.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


Fields = tuple[str, ...]  # a row's field names

_SHARED_FIELDS: Dict[Fields, Fields] = {}
# shared field tuple -> {name: position} (a row without names looks up None: not there)
_FIELD_INDEX: Dict[Optional[Fields], Dict[str, int]] = {}


def _shared_fields(names: Iterable[str]) -> Fields:
    """One tuple object per distinct list of field names: rows share it, so a pickled batch
    of rows carries the names once (pickle memoizes by identity)."""
    names = tuple(names)
    shared = _SHARED_FIELDS.get(names)
    if shared is None:
        if len(_SHARED_FIELDS) >= 10_000:
            return names
        shared = _SHARED_FIELDS[names] = names
        _FIELD_INDEX[names] = {name: i for i, name in reversed(list(enumerate(names)))}
    return shared


def shared_field_names(names: Iterable[str]) -> Fields:
    """The field names as the tuple rows share (for `row_of`)."""
    return _shared_fields(names)


_ROW_CLASSES: Dict[Fields, Type["Row"]] = {}  # shared field tuple -> its Row subclass


def _field_getter(position: int) -> property:
    return property(lambda row: row._values[position])


def _row_class(shared_fields: Fields) -> Type["Row"]:
    """A Row subclass (still named Row) reading its fields through properties: `row.name`
    then costs a property call instead of a failed lookup and `__getattr__` (~7x slower).
    Names that are not identifiers, start with "_" or are Row's own attributes keep going
    through `__getattr__`. Rows of field tuples that are not shared stay plain Rows."""
    cls = _ROW_CLASSES.get(shared_fields)
    if cls is None:
        if _FIELD_INDEX.get(shared_fields) is None:
            return Row
        getters = {
            name: _field_getter(position)
            for name, position in _FIELD_INDEX[shared_fields].items()
            if name.isidentifier() and not name.startswith("_") and not hasattr(Row, name)
        }
        cls = _ROW_CLASSES[shared_fields] = cast(
            Type[Row], type("Row", (Row,), {"__slots__": (), **getters})
        )
        cls.__module__ = Row.__module__
    return cls


class _LazyColumns(dict[int, List[Any]]):
    """Position -> that column of a batch as a Python list, converted on first use."""

    __slots__ = ("arrays",)

    def __init__(self, arrays: Any) -> None:
        super().__init__()
        self.arrays = arrays

    def __missing__(self, position: int) -> List[Any]:
        values: List[Any] = self.arrays[position].to_pylist()
        self[position] = values
        return values


def _lazy_field(cls: type, name: str, columns: _LazyColumns, position: int) -> property:
    """The property of field `name` of a batch's row class: its first read converts the
    column, then puts a getter bound to the converted list in its place (~30% faster per
    read than finding the column through the row)."""

    def first_read(row: Row) -> Any:
        values = columns[position]
        setattr(cls, name, property(lambda row: values[row._index]))
        return values[row._index]

    return property(first_read)


def _constant(name: str, value: object) -> property:
    """A per-row attribute that all rows of a batch share, read from their class; writing
    it turns the row into a plain row first."""

    def write(row: Row, new_value: object) -> None:
        row._values  # noqa: B018 (materializes: the row is now plain)
        setattr(row, name, new_value)

    return property(lambda row: value, write)


def _batch_row_class(
    shared_fields: Fields, columns: _LazyColumns, kind: RowKind
) -> Optional[Type["Row"]]:
    """A Row class of one batch, whose rows read their fields from the batch's columns
    until anything but a field read touches them (`_values`): they then turn into plain
    rows of their field names (same layout, so the class can change in place). A row
    of it holds only its index. None if the names are not shared."""
    plain = _row_class(shared_fields)
    if plain is Row:
        return None
    positions = range(len(shared_fields))

    def replace(row: Row, values: List[Any]) -> None:
        row.__class__ = plain
        row._values, row._fields, row._row_kind = values, shared_fields, kind

    def materialize(row: Row) -> List[Any]:
        index = row._index
        values = [columns[p][index] for p in positions]
        replace(row, values)
        return values

    cls = cast(
        Type[Row],
        type(
            "Row",
            (plain,),
            {
                "__slots__": (),
                "_values": property(materialize, replace),
                "_fields": _constant("_fields", shared_fields),
                "_row_kind": _constant("_row_kind", kind),
                "_batch_columns": columns,
                "__getitem__": _column_getitem(plain, shared_fields, columns),
            },
        ),
    )
    cls.__module__ = Row.__module__
    for name, position in _FIELD_INDEX[shared_fields].items():
        if isinstance(getattr(plain, name, None), property):
            setattr(cls, name, _lazy_field(cls, name, columns, position))
    return cls


def _column_getitem(
    plain: Type["Row"], shared_fields: Fields, columns: _LazyColumns
) -> Callable[["Row", Any], Any]:
    """`row[i]` and `row["name"]` of a batch's row, read from the batch's columns: the row
    stays column-backed (a key selector's `row[0]` would otherwise turn every row plain,
    and the rows would leave in bundles row by row instead of as the batch's columns).
    Anything else (slices, unknown names, out-of-range positions) goes through the plain
    row's own `__getitem__`."""
    arity = len(shared_fields)
    index = _FIELD_INDEX[shared_fields]

    def getitem(row: Row, item: Any) -> Any:
        if type(item) is int and -arity <= item < arity:
            return columns[item % arity][row._index]
        position = index.get(item) if type(item) is str else None
        if position is not None:
            return columns[position][row._index]
        return plain.__getitem__(row, item)

    return getitem


def rows_of_columns(shared_fields: Fields, arrays: Sequence[Any], count: int) -> List["Row"]:
    """`count` named rows over columnar `arrays` (each with `to_pylist()`, e.g. pyarrow
    arrays), a fast path for sources: a column becomes Python values only once a row reads
    it, so columns a job never reads cost nothing. The rows behave as any Row."""
    columns = _LazyColumns(arrays)
    cls = _batch_row_class(shared_fields, columns, RowKind.INSERT)
    if cls is None:
        return [
            row_of(shared_fields, values)
            for values in zip(*(array.to_pylist() for array in arrays))
        ]
    return _batch_rows(cls, count)


def _batch_rows(cls: Type["Row"], count: int) -> List["Row"]:
    """Rows 0 .. count - 1 of a batch row class (each holds only its index)."""
    new = cls.__new__
    rows: List[Row] = []
    append = rows.append
    for index in range(count):
        row = new(cls)
        row._index = index
        append(row)
    return rows


_INDEX, _FIELDS = attrgetter("_index"), attrgetter("_fields")
_KIND, _VALUES = attrgetter("_row_kind"), attrgetter("_values")


class PackedRows:
    """Named rows of one field list and kind, as columns: pickled as one object of a few
    lists (a pickled row costs a reduce call, a tuple and a row built again, per row),
    unpickled as a list of rows again (column-backed, as a source's)."""

    __slots__ = ("fields", "kind", "columns")

    def __init__(self, fields: Fields, kind: RowKind, columns: List[List[Any]]) -> None:
        self.fields, self.kind, self.columns = fields, kind, columns

    def __reduce__(
        self,
    ) -> tuple[Callable[..., List["Row"]], tuple[Fields, RowKind, List[List[Any]]]]:
        return _unpack_rows, (self.fields, self.kind, self.columns)


def pack_rows(values: List[Any]) -> Optional[PackedRows]:
    """`values` packed as columns, if they are all named rows of one field list and one
    kind (else None)."""
    first = values[0] if values else None
    if not isinstance(first, Row) or first._fields is None:
        return None
    fields, kind, cls = first._fields, first._row_kind, type(first)
    batch = getattr(cls, "_batch_columns", None)
    if batch is not None and len(set(map(type, values))) == 1:  # rows of one source batch
        at = list(map(_INDEX, values))
        return PackedRows(
            fields, kind, [list(map(batch[p].__getitem__, at)) for p in range(len(fields))]
        )
    try:
        if len(set(map(_FIELDS, values))) != 1 or len(set(map(_KIND, values))) != 1:
            return None
        rows = list(map(_VALUES, values))
    except AttributeError:  # not all rows
        return None
    if len(set(map(len, rows))) != 1 or len(rows[0]) != len(fields):
        return None
    return PackedRows(fields, kind, list(map(list, zip(*rows))))


def _unpack_rows(fields: Fields, kind: RowKind, columns: List[List[Any]]) -> List["Row"]:
    shared = _shared_fields(fields)
    lazy = _LazyColumns(None)
    lazy.update(enumerate(columns))
    cls = _batch_row_class(shared, lazy, kind)
    if cls is None:  # names that are not shared
        return [_create_row(shared, values, kind) for values in zip(*columns)]
    return _batch_rows(cls, len(columns[0]) if columns else 0)


def row_of(shared_fields: Fields, values: Iterable[Any]) -> "Row":
    """A named row (a fast path for sources): `shared_fields` from shared_field_names()."""
    cls = _ROW_CLASSES.get(shared_fields) or _row_class(shared_fields)
    row = cls.__new__(cls)
    row._values = list(values)
    row._fields = shared_fields
    row._row_kind = RowKind.INSERT
    return row


def _create_row(
    fields: Optional[Iterable[str]], values: Iterable[Any], row_kind: RowKind = RowKind.INSERT
) -> "Row":
    """Build a row from field names and values (used by pickling)."""
    if fields is None:
        row = Row.__new__(Row)
        row._fields = None
    else:
        shared = _shared_fields(fields)
        cls = _ROW_CLASSES.get(shared) or _row_class(shared)
        row = cls.__new__(cls)
        row._fields = shared
    row._values = list(values)
    row._row_kind = row_kind
    return row


class Row:
    """A record with positional or named fields.

    ``Row(1, "a")`` is positional, ``Row(id=1, name="a")`` is named and keeps
    the keyword order. ``Person = Row("name", "age")`` followed by
    ``Person("Alice", 11)`` creates a named row.
    """

    # _index: where a column-backed row (rows_of_columns) reads its fields
    __slots__ = ("_values", "_fields", "_row_kind", "_index")
    _index: int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Can not use both args and kwargs to create Row")
        if kwargs:
            self._fields: Optional[Fields] = _shared_fields(kwargs)
            self._values: List[Any] = list(kwargs.values())
        else:
            self._fields = None
            self._values = list(args)
        self._row_kind = RowKind.INSERT

    @staticmethod
    def of_kind(row_kind: RowKind, *args: Any, **kwargs: Any) -> "Row":
        """Create a row with the given ``RowKind``."""
        row = Row(*args, **kwargs)
        row.set_row_kind(row_kind)
        return row

    # -- row kind and field names -------------------------------------

    def get_row_kind(self) -> RowKind:
        return self._row_kind

    def set_row_kind(self, row_kind: RowKind) -> None:
        if not isinstance(row_kind, RowKind):
            raise TypeError(
                "row_kind must be a RowKind, got %s %r" % (type(row_kind).__name__, row_kind)
            )
        self._row_kind = row_kind

    def set_field_names(self, field_names: List[str]) -> None:
        """Name the fields of this row (one name per value)."""
        names = list(field_names)
        if len(names) != len(self._values):
            raise ValueError(
                "Row has %d values but %d field names were given: %r"
                % (len(self._values), len(names), names)
            )
        self._fields = _shared_fields(names)
        self.__class__ = _row_class(self._fields)  # the properties of the new names

    def get_field_names(self) -> Optional[List[str]]:
        """The field names, or ``None`` for a positional row (weir extension)."""
        return None if self._fields is None else list(self._fields)

    def as_dict(self, recursive: bool = False) -> Dict[str, Any]:
        """Return the named fields as a dict (nested rows too if ``recursive``)."""
        if self._fields is None:
            raise TypeError("Cannot convert a Row without field names into a dict: %r" % (self,))
        if not recursive:
            return dict(zip(self._fields, self._values))
        return {k: _to_dict_value(v) for k, v in zip(self._fields, self._values)}

    # -- factory use: Person = Row("name", "age"); Person("Alice", 11) ---

    def __call__(self, *args: Any) -> "Row":
        for name in self._values:
            if not isinstance(name, str):
                raise TypeError(
                    "Only a Row of field-name strings can create rows, "
                    "this one holds %s %r" % (type(name).__name__, name)
                )
        if len(args) != len(self._values):
            raise ValueError(
                "Row(%s) expects %d values, got %d"
                % (", ".join(map(repr, self._values)), len(self._values), len(args))
            )
        return _create_row(self._values, args)

    # -- access --------------------------------------------------------

    def _index_of(self, name: str) -> int:
        index = _FIELD_INDEX.get(self._fields)
        if index is not None and name in index:
            return index[name]
        if self._fields is None:
            raise FieldNotFoundError("Row %r has no field names, cannot look up %r" % (self, name))
        try:
            return self._fields.index(name)
        except ValueError:
            raise FieldNotFoundError(
                "Row has no field %r; fields are %r" % (name, list(self._fields))
            ) from None

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, (int, slice)):
            return self._values[item]
        return self._values[self._index_of(item)]

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, (int, slice)):
            self._values[key] = value
        else:
            self._values[self._index_of(key)] = value

    def __getattr__(self, item: str) -> Any:
        if item.startswith("_"):
            raise AttributeError(item)
        index = _FIELD_INDEX.get(self._fields)
        if index is not None and item in index:
            return self._values[index[item]]
        try:
            return self._values[self._index_of(item)]
        except FieldNotFoundError as e:
            raise AttributeError(str(e)) from None

    def __contains__(self, item: object) -> bool:
        # Like PyFlink: field names for a named row, values for a positional one.
        if self._fields is not None:
            return item in self._fields
        return item in self._values

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    # -- comparison, hashing, pickling, repr ----------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Row):
            return NotImplemented
        if self._row_kind != other._row_kind:
            return False
        if self._fields is None or other._fields is None:
            return self._fields is None and other._fields is None and self._values == other._values
        # Named rows compare by field name and value, like PyFlink.
        if sorted(self._fields) != sorted(other._fields):
            return False
        return all(
            v == other._values[other._fields.index(k)] for k, v in zip(self._fields, self._values)
        )

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        if self._fields is None:
            return hash(tuple(self._values))
        return hash(tuple(sorted(zip(self._fields, self._values), key=lambda kv: kv[0])))

    def __reduce__(
        self,
    ) -> tuple[Callable[..., "Row"], tuple[Optional[Fields], tuple[Any, ...], RowKind]]:
        return _create_row, (self._fields, tuple(self._values), self._row_kind)

    def __repr__(self) -> str:
        if self._fields is not None:
            return "Row(%s)" % ", ".join(
                "%s=%r" % (k, v) for k, v in zip(self._fields, self._values)
            )
        return "<Row(%s)>" % ", ".join(repr(v) for v in self._values)

    __str__ = __repr__


def _to_dict_value(value: Any) -> Any:
    if isinstance(value, Row):
        return (
            value.as_dict(True) if value._fields is not None else [_to_dict_value(v) for v in value]
        )
    if isinstance(value, list):
        return [_to_dict_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_dict_value(v) for k, v in value.items()}
    return value
