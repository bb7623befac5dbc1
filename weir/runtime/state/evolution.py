"""The declared types of an operator's keyed states, kept beside its state: Flink's state
schema compatibility check on restore.

Each key group whose state an operator writes keeps a page (TYPES_PAGE) of the states its
operator declared: {state name: (kind, value type, map key type, with a TTL)}. When a job
reads a key group written under other declarations (a restore from a savepoint or a
checkpoint, with changed code), each state it declares again is compared with what the
page says:
- the same declaration: nothing to do;
- a `Row`-typed state (`Types.ROW_NAMED`) with fields added or removed, the fields both
  have keeping their types: each stored value is migrated (an added field is None, a
  removed one dropped);
- anything else (another kind of state, another type, a TTL added or removed): refused
  with a StateMigrationError naming the operator and the state.

A state without a declared type (or `Types.PICKLED_BYTE_ARRAY()`) holds pickled Python
values: it is compatible only with itself, as in Flink.
"""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional

from weir.common.row import Row
from weir.common.typeinfo import RowTypeInfo, TypeInformation
from weir.runtime.errors import MARKER, UserFunctionError
from weir.runtime.wire import TYPES_PAGE

if TYPE_CHECKING:
    from weir.runtime.state.backend import KeyGroupPages
    from weir.runtime.state.descriptors import StateDescriptor

PICKLED = "Types.PICKLED_BYTE_ARRAY()"
# A state's declaration: (kind, value type, map key type, with a TTL).
Signature = tuple[str, Optional[TypeInformation], Optional[TypeInformation], bool]
# A stored value of one state, migrated to its new declaration.
Migration = Callable[[Any], Any]


class StateMigrationError(UserFunctionError):
    """A restored state whose declaration changed in a way its values cannot follow (it
    fails the job as a user function's error would, marked for the engines to show)."""


def signature(descriptor: StateDescriptor) -> Signature:
    """(kind, value type, map key type, with a TTL) of a state descriptor."""
    return (
        descriptor.kind,
        _declared(descriptor.type_info),
        _declared(getattr(descriptor, "key_type_info", None)),
        descriptor.ttl_config is not None,
    )


def _declared(type_info: Optional[TypeInformation]) -> Optional[TypeInformation]:
    return None if type_info is None or repr(type_info) == PICKLED else type_info


def describe(state_signature: Signature) -> str:
    kind, value_type, key_type, ttl = state_signature
    types = ", ".join(repr(t) for t in (key_type, value_type) if t is not None) or "pickled"
    return f"{kind} state of {types}{' with a TTL' if ttl else ''}"


class StateTypes:
    """The keyed states one operator instance declared, and the key groups' types pages
    checked against them (once per distinct page)."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.declared: Dict[str, Signature] = {}
        self._blob: Optional[bytes] = None
        self._checked: Dict[bytes, Dict[str, Migration]] = {}  # a types page -> its migrations

    def declare(self, descriptor: StateDescriptor) -> bool:
        """Adds a state's declaration; whether it is new (or changed)."""
        state_signature = signature(descriptor)
        if self.declared.get(descriptor.name) == state_signature:
            return False
        self.declared[descriptor.name] = state_signature
        self._blob = None
        self._checked.clear()
        return True

    def check(self, group: KeyGroupPages) -> None:
        """Checks (and migrates) a key group just loaded against the declarations."""
        if not self.declared:
            return
        stored = group.store.load(TYPES_PAGE)
        if stored is None:
            return
        migrations = self._checked.get(stored)
        if migrations is None:
            migrations = self._checked[stored] = self._migrations(pickle.loads(stored))
        if migrations:  # (recorded at once: a group checked again is not migrated twice)
            _migrate_pages(group, migrations)
            self.write(group)

    def _migrations(self, stored: Dict[str, Signature]) -> Dict[str, Migration]:
        migrations = {}
        for name, declared in self.declared.items():
            before = stored.get(name)
            if before is not None and before != declared:
                migrations[name] = self._migration(name, before, declared)
        return migrations

    def _migration(self, name: str, before: Signature, now: Signature) -> Migration:
        (kind, old_type, old_key, ttl), (new_kind, new_type, new_key, new_ttl) = before, now
        convert = None
        if (kind, old_key, ttl) == (new_kind, new_key, new_ttl):
            convert = _row_migration(old_type, new_type)
        if convert is None:
            raise StateMigrationError(
                f"{MARKER}: state '{name}' of operator '{self.owner}': the restored state is "
                f"{describe(before)}, the job declares {describe(now)}; the change is not "
                "compatible (only a Row's fields may be added or removed)"
            )
        return _stored_migration(kind, ttl, convert)

    def write(self, group: KeyGroupPages) -> None:
        """Records the declarations in a key group being written (what it held for states
        not declared now stays)."""
        if not self.declared:
            return
        stored = group.store.load(TYPES_PAGE)
        if stored is not None and stored == self._blob:
            return
        kept: Dict[str, Signature] = pickle.loads(stored) if stored is not None else {}
        blob = pickle.dumps({**kept, **self.declared}, protocol=5)
        if blob != stored:
            group.store.store(TYPES_PAGE, blob)
        if not kept.keys() - self.declared.keys():
            self._blob = blob


def _row_migration(
    old_type: Optional[TypeInformation], new_type: Optional[TypeInformation]
) -> Optional[Migration]:
    """A function from a value of `old_type` to one of `new_type`, both named Rows whose
    common fields keep their types; None where there is none."""
    if not (isinstance(old_type, RowTypeInfo) and isinstance(new_type, RowTypeInfo)):
        return None
    old = dict(zip(old_type.get_field_names(), old_type.get_field_types()))
    new = dict(zip(new_type.get_field_names(), new_type.get_field_types()))
    if any(old[name] != new[name] for name in old.keys() & new.keys()):
        return None
    old_names, new_names = old_type.get_field_names(), new_type.get_field_names()

    def migrate(value: Any) -> Optional[Row]:
        if value is None:
            return None
        fields = dict(zip(old_names, value))
        row = Row(*[fields.get(name) for name in new_names])
        row.set_field_names(new_names)
        if isinstance(value, Row):
            row.set_row_kind(value.get_row_kind())
        return row

    return migrate


def _stored_migration(kind: str, ttl: bool, convert: Migration) -> Migration:
    """Migrates a state's stored value: a list's elements, a map's values, with a TTL the
    value inside its (value, last access) pair."""
    inner: Migration
    if kind == "list":

        def inner(stored: Any) -> Any:
            return [convert(element) for element in stored]
    elif kind == "map":

        def inner(stored: Any) -> Any:
            return {key: convert(value) for key, value in stored.items()}
    else:
        inner = convert
    if not ttl:
        return inner
    return lambda stored: (inner(stored[0]), stored[1])


def _migrate_pages(group: KeyGroupPages, migrations: Dict[str, Migration]) -> None:
    for page_id in range(group.pages_per_key_group):
        page = group.page(page_id)
        for entry in page.values():
            changed = [name for name in migrations if name in entry]
            for name in changed:
                entry[name] = migrations[name](entry[name])
            if changed:
                group.dirty.add(page_id)
