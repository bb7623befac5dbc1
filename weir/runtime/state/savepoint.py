"""Savepoints: a job's state in weir's own portable, versioned format.

A savepoint is a directory (Flink's naming: `savepoint-<first 6 of the job id>-<12 hex>`):

    _metadata               JSON manifest, written last and atomically
    keyed-<n>.parquet       keyed state of one operator: uid (string), key_group (int32),
                            page (int32), data (binary)
    operator-<n>.parquet    operator state of one non-keyed function or sink function:
                            uid (string), instance (int32), checkpoints (int64),
                            snapshot (binary)

The manifest holds `format` ("weir-savepoint"), `version` (1), the job's name and id, the
micro-batch the state is of, `max_parallelism`, `parallelism`, each source's position
(`sources`: {uid: the source reader's offset, a JSON object}) and `files`: {file name:
{uid, kind ("keyed" | "operator"), rows, bytes, sha256}}.

Keyed state is kept per key group, as the job keeps it, so a savepoint restores at any
parallelism with the same max parallelism. A key group's pages: page >= 0 holds the
state of the keys that hash to it, a pickled {key: {state name: value}}; negative pages
are weir's own (timers, broadcast state, operator watermarks: weir.runtime.wire). A
snapshot is a pickled {state name: (mode, [elements])} (weir.runtime.state.operator_state).

A directory without a manifest (a crash while writing it), with a file missing, of
another size or checksum, or of an unknown format version is refused with one error.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import time
import uuid
from typing import TYPE_CHECKING, Any, Dict, List, Set, Tuple

from weir.common.errors import WeirError
from weir.runtime.sink_writers import atomic_write
from weir.runtime.state.evolution import Signature, describe
from weir.runtime.wire import TYPES_PAGE

if TYPE_CHECKING:
    import pyarrow as pa

FORMAT = "weir-savepoint"
VERSION = 1
MANIFEST = "_metadata"
KEYED, OPERATOR = "keyed", "operator"


class SavepointError(WeirError, ValueError):
    """A savepoint that cannot be restored (the message names its path and why)."""


def savepoint_path(target_directory: str, job_id: str) -> str:
    """A new savepoint's directory inside `target_directory`, named as Flink names it."""
    return os.path.join(target_directory, f"savepoint-{job_id[:6]}-{uuid.uuid4().hex[:12]}")


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class SavepointWriter:
    """Writes a savepoint's files, then its manifest (only `finish` makes it one)."""

    def __init__(self, path: str) -> None:
        if os.path.exists(os.path.join(path, MANIFEST)):
            raise SavepointError(f"savepoint {path} already exists")
        os.makedirs(path, exist_ok=True)
        self.path = path
        self.files: Dict[str, Dict[str, Any]] = {}  # the manifest's: {file name: its entry}

    def _write(self, kind: str, uid: str, columns: Dict[str, List[Any]], schema: pa.Schema) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        name = f"{kind}-{len(self.files)}.parquet"
        table = pa.table(columns, schema=schema)
        target = os.path.join(self.path, name)
        pq.write_table(table, target)
        self.files[name] = {
            "uid": uid,
            "kind": kind,
            "rows": table.num_rows,
            "key_groups": len(set(columns.get("key_group", ()))),
            "bytes": os.path.getsize(target),
            "sha256": _sha256(target),
        }

    def write_keyed(self, uid: str, rows: List[Tuple[int, int, bytes]]) -> None:
        """`rows`: (key group, page id, page bytes) of the operator `uid`."""
        import pyarrow as pa

        schema = pa.schema(
            [
                ("uid", pa.string()),
                ("key_group", pa.int32()),
                ("page", pa.int32()),
                ("data", pa.binary()),
            ]
        )
        key_groups, pages, data = zip(*rows) if rows else ((), (), ())
        self._write(
            KEYED,
            uid,
            {
                "uid": [uid] * len(rows),
                "key_group": list(key_groups),
                "page": list(pages),
                "data": list(data),
            },
            schema,
        )

    def write_operator_state(self, uid: str, instances: List[Tuple[int, int, bytes]]) -> None:
        """`instances`: (instance index, checkpoints taken, pickled Snapshot)."""
        import pyarrow as pa

        schema = pa.schema(
            [
                ("uid", pa.string()),
                ("instance", pa.int32()),
                ("checkpoints", pa.int64()),
                ("snapshot", pa.binary()),
            ]
        )
        index, counts, blobs = zip(*instances) if instances else ((), (), ())
        self._write(
            OPERATOR,
            uid,
            {
                "uid": [uid] * len(instances),
                "instance": list(index),
                "checkpoints": list(counts),
                "snapshot": list(blobs),
            },
            schema,
        )

    def finish(
        self,
        job_name: str,
        job_id: str,
        batch_id: int,
        max_parallelism: int,
        parallelism: int,
        sources: Dict[str, Any],
    ) -> str:
        """Writes the manifest, last: the savepoint is complete. Returns its path."""
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "job_name": job_name,
            "job_id": job_id,
            "batch_id": batch_id,
            "timestamp": int(time.time() * 1000),
            "max_parallelism": max_parallelism,
            "parallelism": parallelism,
            "sources": sources,
            "files": self.files,
        }
        atomic_write(
            os.path.join(self.path, MANIFEST),
            json.dumps(manifest, indent=1, sort_keys=True).encode(),
        )
        return self.path


class Savepoint:
    """A complete savepoint, checked: its manifest and every file it names."""

    def __init__(self, path: str, manifest: Dict[str, Any]) -> None:
        self.path = path
        self.manifest = manifest
        self.max_parallelism = manifest["max_parallelism"]
        self.parallelism = manifest["parallelism"]
        self.sources = manifest["sources"]
        self.files = manifest["files"]

    def files_of(self, kind: str) -> Dict[str, str]:
        """{uid: file path} of the files of `kind`."""
        return {
            entry["uid"]: os.path.join(self.path, name)
            for name, entry in self.files.items()
            if entry["kind"] == kind
        }

    @property
    def uids(self) -> Set[str]:
        """Every operator with state here (sources included)."""
        return {entry["uid"] for entry in self.files.values()} | set(self.sources)

    def keyed_rows(self, uid: str) -> List[Tuple[int, int, bytes]]:
        """(key group, page id, page bytes) of operator `uid`."""
        import pyarrow.parquet as pq

        table = pq.read_table(self.files_of(KEYED)[uid])
        return list(
            zip(*(table.column(name).to_pylist() for name in ("key_group", "page", "data")))
        )

    def declared_states(self, uid: str) -> Dict[str, str]:
        """{state name: its declaration} of operator `uid`'s keyed states, as its key
        groups recorded them (weir.runtime.state.evolution; none before weir recorded
        them)."""
        import pyarrow.parquet as pq

        table = pq.read_table(
            self.files_of(KEYED)[uid], columns=["data"], filters=[("page", "=", TYPES_PAGE)]
        )
        declared: Dict[str, Signature] = {}
        for blob in table.column("data").to_pylist():
            declared.update(pickle.loads(blob))
        return {name: describe(signature) for name, signature in sorted(declared.items())}

    def operator_states(self) -> Dict[Tuple[str, int], Tuple[int, bytes]]:
        """{(uid, instance): (checkpoints, pickled Snapshot)} of every non-keyed state."""
        import pyarrow.parquet as pq

        states: Dict[Tuple[str, int], Tuple[int, bytes]] = {}
        for uid, path in self.files_of(OPERATOR).items():
            table = pq.read_table(path)
            for index, count, blob in zip(
                *(
                    table.column(name).to_pylist()
                    for name in ("instance", "checkpoints", "snapshot")
                )
            ):
                states[(uid, index)] = (count, blob)
        return states

    def describe(self) -> Dict[str, Any]:
        """What `weir info` prints: the savepoint's job, batch and operators' sizes."""
        operators: Dict[str, Dict[str, Any]] = {}
        for entry in self.files.values():
            described = operators.setdefault(
                entry["uid"], {"state": [], "rows": 0, "bytes": 0, "key_groups": 0}
            )
            described["state"].append(entry["kind"])
            described["rows"] += entry["rows"]
            described["bytes"] += entry["bytes"]
            described["key_groups"] += entry.get("key_groups", 0)
            if entry["kind"] == KEYED:
                described["keyed_states"] = self.declared_states(entry["uid"])
        return {
            key: self.manifest[key]
            for key in (
                "job_name",
                "job_id",
                "batch_id",
                "timestamp",
                "max_parallelism",
                "parallelism",
                "version",
            )
        } | {"operators": operators, "sources": self.sources}


def saved_batch(path: str) -> int:
    """The micro-batch the savepoint at `path` (one this process wrote) is of."""
    with open(os.path.join(path, MANIFEST), encoding="utf-8") as handle:
        batch_id: int = json.load(handle)["batch_id"]
        return batch_id


def load_savepoint(path: str) -> Savepoint:
    """The savepoint at `path` (a local path, or a file: URI as Flink prints it), every
    file checked; a SavepointError names what is wrong."""
    if path.startswith("file:"):
        path = "/" + path[len("file:") :].lstrip("/")
    if os.path.isfile(path):
        raise SavepointError(
            f"savepoint {path} is a file: a savepoint is a directory (the "
            f"one holding its {MANIFEST} file)"
        )
    if not os.path.isdir(path):
        raise SavepointError(f"savepoint {path} does not exist")
    manifest_path = os.path.join(path, MANIFEST)
    if not os.path.exists(manifest_path):
        raise SavepointError(
            f"savepoint {path} has no {MANIFEST} file: it is not a savepoint, or one whose "
            "writing did not finish (a savepoint is complete only once its manifest is "
            "written)"
        )
    try:
        with open(manifest_path, encoding="utf-8") as handle:
            manifest = json.load(handle)
    except ValueError as error:
        raise SavepointError(
            f"savepoint {path}: its {MANIFEST} file is not valid JSON ({error})"
        ) from None
    _check_manifest(path, manifest)
    for name, entry in manifest["files"].items():
        _check_file(path, name, entry)
    return Savepoint(path, manifest)


def _check_manifest(path: str, manifest: object) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise SavepointError(
            f"savepoint {path}: its {MANIFEST} file is not a weir savepoint's manifest"
        )
    if manifest.get("version") != VERSION:
        raise SavepointError(
            f"savepoint {path} has format version {manifest.get('version')!r}; this weir "
            f"reads version {VERSION}"
        )
    missing = [
        key
        for key in (
            "max_parallelism",
            "parallelism",
            "sources",
            "files",
            "batch_id",
            "job_id",
            "job_name",
        )
        if key not in manifest
    ]
    if missing:
        raise SavepointError(f"savepoint {path}: its manifest lacks {', '.join(missing)}")
    files = manifest["files"]
    if not isinstance(files, dict) or not all(
        _plain_name(name)
        and isinstance(entry, dict)
        and {"uid", "kind", "bytes", "sha256"} <= set(entry)
        for name, entry in files.items()
    ):
        raise SavepointError(
            f"savepoint {path}: its manifest's files are not a weir "
            "savepoint's (each a plain file name with its uid, kind, size "
            "and checksum)"
        )


def _plain_name(name: object) -> bool:
    """A file name of the savepoint's own directory (no path, no parent)."""
    return (
        isinstance(name, str)
        and name not in ("", ".", "..", MANIFEST)
        and os.path.basename(name) == name
        and "\\" not in name
    )


def _check_file(path: str, name: str, entry: Dict[str, Any]) -> None:
    target = os.path.join(path, name)
    if not os.path.exists(target):
        raise SavepointError(
            f"savepoint {path} is missing its file {name} (state of '{entry['uid']}')"
        )
    if os.path.getsize(target) != entry["bytes"] or _sha256(target) != entry["sha256"]:
        raise SavepointError(
            f"savepoint {path}: its file {name} (state of "
            f"'{entry['uid']}') is corrupt: its size or checksum is not "
            "the one its manifest records"
        )


def dispose_savepoint(path: str) -> None:
    """Removes a savepoint (`weir savepoint -d`): only a directory whose manifest validates
    (a weir savepoint of a known version, every file it lists there, of its size and
    checksum), only the files that manifest lists and the manifest itself, then the
    directory where that left it empty. Anything else is refused, nothing removed."""
    try:
        savepoint = load_savepoint(path)
    except SavepointError as error:
        raise SavepointError(f"{error}; nothing was removed") from None
    for name in savepoint.files:
        os.remove(os.path.join(savepoint.path, name))
    os.remove(os.path.join(savepoint.path, MANIFEST))
    if not os.listdir(savepoint.path):
        os.rmdir(savepoint.path)
