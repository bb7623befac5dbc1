"""The Python a job's functions need beyond the job script, as PyFlink's environment
declares it: files and directories for the workers' path (`add_python_file`), archives
(`add_python_archive`), a requirements file (`set_python_requirements`) and the
interpreter (`set_python_executable`). An executor ships them the way its engine ships
Python (Spark: `addPyFile`, `addArchive`, the workers' interpreter); the driver's own path
gets the files too, as PyFlink's client does.

Jars (`add_jars`, `add_classpaths`) are Flink's connectors and formats: weir's connectors
are Python, so they are accepted and not needed (said once, at debug level).
"""

import hashlib
import logging
import os
import subprocess
import sys
import tempfile
import zipfile
from typing import List, Optional, Tuple, cast

LOG = logging.getLogger("weir.dependencies")
_NOT_YET = object()
_said_jars = False


def note_jars(kind: str, paths) -> List[str]:
    """Accepts Flink jars (`kind`: add_jars or add_classpaths); weir needs none."""
    global _said_jars
    paths = list(paths)
    if not all(isinstance(path, str) for path in paths):
        raise TypeError(f"{kind} takes paths as strings, got {paths!r}")
    if not _said_jars:
        LOG.debug(
            "%s(%s): weir's connectors and formats are Python; no jar is needed",
            kind,
            ", ".join(paths),
        )
        _said_jars = True
    return paths


def _existing(path: str, what: str) -> str:
    local = path[len("file://") :] if path.startswith("file://") else path
    if not os.path.exists(local):
        raise FileNotFoundError(f"{what} {path} does not exist")
    return os.path.abspath(local)


class PythonDependencies:
    def __init__(self):
        self.files: List[str] = []
        self.archives: List[Tuple[str, Optional[str]]] = []
        self.requirements: Optional[Tuple[str, Optional[str]]] = None
        self.executable: Optional[str] = None
        self._prepared: Optional[List[str]] = None
        self._installed = _NOT_YET  # where missing requirements went (installed_requirements)

    def add_file(self, path: str) -> None:
        self.files.append(_existing(path, "python file"))
        self._prepared = None

    def add_archive(self, path: str, target_dir: Optional[str]) -> None:
        self.archives.append((_existing(path, "python archive"), target_dir))

    def set_requirements(self, path: str, cache_dir: Optional[str]) -> None:
        self.requirements = (
            _existing(path, "requirements file"),
            None if cache_dir is None else _existing(cache_dir, "cache dir"),
        )
        self._prepared = None
        self._installed = _NOT_YET

    def set_executable(self, python: str) -> None:
        if not isinstance(python, str) or not python:
            raise TypeError(f"set_python_executable takes an interpreter's path, got {python!r}")
        self.executable = python

    def __bool__(self) -> bool:
        return bool(self.files or self.archives or self.requirements or self.executable)

    def path_entries(self) -> List[str]:
        """What goes on the driver's path: each file's directory, each directory (or a
        package directory's parent), and where missing requirements were installed."""
        entries = []
        for path in self.files:
            if os.path.isdir(path):
                package = os.path.exists(os.path.join(path, "__init__.py"))
                entries.append(os.path.dirname(path) if package else path)
            else:
                entries.append(
                    path if path.endswith((".zip", ".egg", ".whl")) else os.path.dirname(path)
                )
        installed = self.installed_requirements()
        return entries + ([installed] if installed else [])

    def apply_to_driver(self) -> None:
        for entry in reversed(self.path_entries()):
            if entry not in sys.path:
                sys.path.insert(0, entry)

    def shipped_files(self) -> List[str]:
        """Files an engine ships for the workers' path (directories zipped, once)."""
        if self._prepared is None:
            self._prepared = [_zipped(path) if os.path.isdir(path) else path for path in self.files]
            installed = self.installed_requirements()
            if installed:
                self._prepared.append(_zipped(installed, as_root=True))
        return self._prepared

    def installed_requirements(self) -> Optional[str]:
        """Where the requirements this interpreter lacks were installed (None: it has them
        all, or there are none): pip, into a directory of their own (offline from the
        cache directory where one is given, as PyFlink). Checked and installed once."""
        if self._installed is _NOT_YET:
            self._installed = self._install()
        return cast(Optional[str], self._installed)  # (installed: no longer _NOT_YET)

    def _install(self) -> Optional[str]:
        if self.requirements is None:
            return None
        path, cache_dir = self.requirements
        missing = _unsatisfied(path)
        if not missing:
            return None
        with open(path, "rb") as handle:
            digest = hashlib.sha256(handle.read() + str(cache_dir).encode()).hexdigest()[:16]
        target = os.path.join(tempfile.gettempdir(), f"weir-requirements-{digest}")
        if not os.path.isdir(target):
            command = [
                sys.executable,
                "-m",
                "pip",
                "install",
                "-q",
                "-r",
                path,
                "--target",
                target + ".partial",
            ]
            if cache_dir:
                command += ["--no-index", "--find-links", cache_dir]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(
                    f"set_python_requirements: pip could not install "
                    f"{', '.join(missing)} from {path}: "
                    f"{done.stderr.strip().splitlines()[-1:]}"
                )
            os.replace(target + ".partial", target)
        return target


def _unsatisfied(requirements_file: str) -> List[str]:
    """The requirements of the file this interpreter does not satisfy (all of them where
    they cannot be checked)."""
    with open(requirements_file, encoding="utf-8") as handle:
        lines = [line.split("#")[0].strip() for line in handle]
    lines = [line for line in lines if line and not line.startswith("-")]
    try:
        from importlib.metadata import PackageNotFoundError, version
        from packaging.requirements import Requirement
    except ImportError:
        return lines
    missing = []
    for line in lines:
        requirement = Requirement(line)
        try:
            if version(requirement.name) not in requirement.specifier:
                missing.append(line)
        except PackageNotFoundError:
            missing.append(line)
    return missing


def _zipped(directory: str, as_root: bool = False) -> str:
    """A zip of `directory` for the workers' path: a package directory under its own name
    (importable by it), any other directory's contents at the zip's root."""
    package = not as_root and os.path.exists(os.path.join(directory, "__init__.py"))
    base = os.path.dirname(directory) if package else directory
    target = os.path.join(
        tempfile.mkdtemp(prefix="weir-pyfiles-"), os.path.basename(directory) + ".zip"
    )
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for root, dirs, names in os.walk(directory):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in names:
                full = os.path.join(root, name)
                archive.write(full, os.path.relpath(full, base))
    return target
