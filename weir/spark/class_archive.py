"""An archive of Spark's classes for weir's embedded JVM: quicker starts.

A fresh JVM loads and verifies ~17,000 of Spark's classes before a job's first micro-batch
has run, on the critical path of every new process. HotSpot can keep the classes a JVM
loaded in an archive that it maps at its next start (class data sharing, Java 13+): the
README's job went from ~11 s to ~7 s of wall time in a fresh process here, its session
from ~4.4 to ~2.3 s (docs/operating.md).

  - The archive lives in weir's cache directory (weir.spark.spark_home.cache_base) under
    class-archives/, named by a digest of what makes it valid: the java binary, Spark's
    jars, and the driver's memory and Java options. WEIR_CLASS_ARCHIVE=off turns archives
    off; `use` uses one but never starts recording one.
  - `weir warm-up` records it: a small job whose JVM writes the classes it loaded as it
    exits. A process that starts the embedded JVM without an archive starts `weir warm-up`
    in the background, at the lowest priority, as it exits: the job itself is not slowed,
    and the next start has the archive.
  - One process at a time records (a marker file holds its process id), and an archive is
    moved into place only once its JVM has exited normally: a truncated archive crashes a
    JVM at start. Should a JVM still fail to start from an archive, weir removes the
    archive and starts it without.
  - A JVM that cannot use an archive (another Java build, another class path) says so in
    Spark's log and starts as it would without.

No pyspark here: `weir warm-up` reads this before it starts Spark.
"""

import atexit
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from weir.common.processes import process_alive
from weir.spark.conf import DRIVER_JAVA_OPTIONS
from weir.spark.spark_home import OFF, cache_base, file_stamp, jar_stamps, launch_home

SETTING = "WEIR_CLASS_ARCHIVE"  # `off`: no archive; `use`: use one, never record one
USE_ONLY = "use"
# Set by `weir warm-up` for its own JVM: the configuration (JSON) whose archive it records
RECORDING = "WEIR_CLASS_ARCHIVE_RECORDING"
KEEP = 3  # archives kept in the cache directory (the newest)
MIN_BYTES = 1 << 20  # an archive smaller than this was not written whole
STALE_MARKER_S = 24 * 3600  # a marker this old is stale, whatever process has its id
EXIT_WAIT_S = 120  # how long a recording process waits for its JVM to write the archive
# Options of the JVM that may differ between the runs sharing an archive
IGNORED_OPTIONS = ("-XX:TieredStopAtLevel=", "-XX:ReservedCodeCacheSize=", "-XX:ErrorFile=")
_OWN_OPTIONS = ("-XX:SharedArchiveFile=", "-XX:ArchiveClassesAtExit=", "-Xshare")
_WEIR_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cache_directory():
    """Where archives are kept, or None where the settings turn them off."""
    base = cache_base()
    if base is None or os.environ.get(SETTING, "").lower() in OFF:
        return None
    return os.path.join(base, "class-archives")


def recording_conf():
    """The configuration `weir warm-up` records the archive of, in its own process."""
    given = os.environ.get(RECORDING)
    return json.loads(given) if given else None


def java_binary():
    """The java that Spark's launcher runs (bin/spark-class: JAVA_HOME's, else PATH's)."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return os.path.realpath(java) if java and os.path.exists(java) else None


def archive_key(java: str, home: str, memory: str, java_options: str) -> str:
    """A digest of what an archive is valid for."""
    options = " ".join(
        o for o in java_options.split() if not o.startswith(IGNORED_OPTIONS + _OWN_OPTIONS)
    )
    libjvm = os.path.join(os.path.dirname(java), "..", "lib", "server", "libjvm.so")
    digest = hashlib.sha256()
    for part in (
        java,
        file_stamp(java),
        file_stamp(libjvm),
        home,
        *jar_stamps(home),
        memory,
        options,
    ):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()[:20]


def uses_own_sharing(java_options: str) -> bool:
    """Whether the job's own Java options already choose how the JVM shares classes."""
    return any(o.startswith(_OWN_OPTIONS) for o in java_options.split())


def for_embedded_jvm(conf: dict, home=None):
    """The archive for a JVM weir starts with `conf` from the Spark home `home` (by default
    `launch_home()`), or None (turned off, no java or Spark found, or the job's Java
    options choose their own class sharing)."""
    directory, java, home = cache_directory(), java_binary(), home or launch_home()
    options = conf.get(DRIVER_JAVA_OPTIONS[0], "")
    if directory is None or java is None or home is None or uses_own_sharing(options):
        return None
    return ClassArchive(
        directory, archive_key(java, home, conf.get("spark.driver.memory", ""), options)
    )


class ClassArchive:
    """The archive of one JVM configuration in `directory`."""

    def __init__(self, directory: str, key: str):
        self.directory = directory
        self.path = os.path.join(directory, f"spark-{key}.jsa")
        self.marker = self.path + ".recording"
        self.recording = self.path + f".{os.getpid()}.tmp"

    def exists(self) -> bool:
        return os.path.isfile(self.path)

    def java_option(self):
        """The options that start a JVM from this archive; None while there is none."""
        if not self.exists():
            return None
        try:
            os.utime(self.path)  # (the archives used last are those kept)
        except OSError:
            pass
        # (a JVM that cannot map an archive fails at start: its crash report is not left
        # in the job's working directory)
        crash_file = os.path.join(tempfile.gettempdir(), "weir-jvm-crash-%p.log")
        return f"-XX:SharedArchiveFile={self.path} -XX:ErrorFile={crash_file}"

    def recording_option(self) -> str:
        """The option that has a JVM record this archive as it exits (`record_at_exit`)."""
        return f"-XX:ArchiveClassesAtExit={self.recording}"

    def being_recorded(self) -> bool:
        """Whether a live process holds the marker."""
        return (
            process_alive(_marker_pid(self.marker))
            and time.time() - _mtime(self.marker) < STALE_MARKER_S
        )

    def claim(self) -> bool:
        """Whether this process may record the archive: no other is recording it."""
        if _marker_pid(self.marker) == os.getpid():
            return True
        try:
            os.makedirs(self.directory, exist_ok=True)
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            if self.being_recorded():
                return False
            _remove(self.marker)  # (left by a process that died while recording)
            return self.claim()
        except OSError:
            return False  # (a directory weir cannot write: no archive)
        with os.fdopen(fd, "w") as marker:
            marker.write(str(os.getpid()))
        return True

    def record_later(self, conf: dict) -> None:
        """As this process exits, should the archive still be missing and nobody be
        recording it: starts `weir warm-up` for `conf` in the background, at the lowest
        priority (the job's own process is not slowed)."""
        atexit.register(self._start_recorder, conf)

    def _start_recorder(self, conf: dict) -> None:
        if (
            self.exists()
            or self.being_recorded()
            or os.environ.get(SETTING, "").lower() == USE_ONLY
        ):
            return
        path = os.pathsep.join(filter(None, [_WEIR_ROOT, os.environ.get("PYTHONPATH")]))
        env = {**os.environ, RECORDING: json.dumps(conf), "PYTHONPATH": path}
        try:
            subprocess.Popen(
                [sys.executable, "-m", "weir", "warm-up", "--quiet"],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                cwd=tempfile.gettempdir(),
                preexec_fn=lambda: os.nice(19),
            )
        except OSError:
            pass

    def record_at_exit(self, process, stop_spark) -> None:
        """As this process exits: stops Spark (`stop_spark`) and ends the JVM `process` (by
        closing its standard input, as Python's exit would), waits for it to write the
        archive, then moves the archive into place."""
        atexit.register(self._finish, process, stop_spark)

    def _finish(self, process, stop_spark) -> None:
        try:
            stop_spark()
            if process.stdin is not None:
                process.stdin.close()
            code = process.wait(EXIT_WAIT_S)
            if code == 0 and os.path.getsize(self.recording) >= MIN_BYTES:
                os.replace(self.recording, self.path)
                self._prune()
        except Exception:  # (never a traceback at exit: there is only no archive)
            pass
        finally:
            self.release()

    def release(self) -> None:
        """Gives up recording."""
        _remove(self.recording)
        if _marker_pid(self.marker) == os.getpid():
            _remove(self.marker)

    def discard(self) -> None:
        """Removes an archive a JVM could not start from."""
        _remove(self.path)

    def _prune(self) -> None:
        archives = sorted(
            (
                os.path.join(self.directory, name)
                for name in os.listdir(self.directory)
                if name.endswith(".jsa")
            ),
            key=_mtime,
            reverse=True,
        )
        for stale in archives[KEEP:]:
            _remove(stale)


def _marker_pid(marker: str):
    try:
        with open(marker) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return None


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
