"""The `weir` command, shaped like Flink's `flink` (also `python -m weir`):

    weir run [-d] [-p N] [-s SAVEPOINT] [-n] job.py [args...]
    weir list [-r | -s | -a]
    weir cancel JOB
    weir stop [-p | --savepoint-path DIR] JOB
    weir savepoint JOB [DIR]        weir savepoint -d SAVEPOINT
    weir modify JOB -p N
    weir info SAVEPOINT
    weir server [--host H] [--port P] [--token T]
    weir dashboard [--host H] [--port P] [--token T]
    weir warm-up [--quiet]          (records Spark's class archive: weir.cli.warm_up)

Jobs live in the job directory (weir.jobs.directory); what each command prints is what
Flink's prints where Flink's prints something.
"""

import argparse
import sys

from weir.cli import commands
from weir.jobs.directory import JobNotFound
from weir.jobs.lifecycle import LifecycleError
from weir.rest.server import ServerError
from weir.runtime.state.savepoint import SavepointError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="weir", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a job program")
    run.add_argument(
        "-d", "--detached", action="store_true", help="run the job as its own process and return"
    )
    run.add_argument("-p", "--parallelism", type=int)
    run.add_argument("-s", "--fromSavepoint", "--from-savepoint", dest="savepoint")
    run.add_argument(
        "-n",
        "--allowNonRestoredState",
        "--allow-non-restored-state",
        dest="allow_non_restored",
        action="store_true",
    )
    run.add_argument("program")
    run.add_argument("args", nargs=argparse.REMAINDER)
    listing = sub.add_parser("list", help="list jobs")
    listing.add_argument("-r", "--running", action="store_true")
    listing.add_argument("-s", "--scheduled", action="store_true")
    listing.add_argument("-a", "--all", action="store_true")
    cancel = sub.add_parser("cancel", help="cancel a job")
    cancel.add_argument("job_id")
    stop = sub.add_parser("stop", help="stop a job with a savepoint")
    stop.add_argument("-p", "--savepointPath", "--savepoint-path", dest="target")
    stop.add_argument("-d", "--drain", action="store_true")
    stop.add_argument("job_id")
    savepoint = sub.add_parser("savepoint", help="trigger or dispose of a savepoint")
    savepoint.add_argument("-d", "--dispose", metavar="SAVEPOINT")
    savepoint.add_argument("job_id", nargs="?")
    savepoint.add_argument("target", nargs="?")
    modify = sub.add_parser("modify", help="rescale a job (savepoint, stop, restart)")
    modify.add_argument("job_id")
    modify.add_argument("-p", "--parallelism", type=int, required=True)
    info = sub.add_parser("info", help="describe a savepoint")
    info.add_argument("savepoint")
    for name, text in (
        ("server", "serve the REST API for the job directory's jobs"),
        ("dashboard", "serve the web dashboard (and the REST API it reads)"),
    ):
        server = sub.add_parser(name, help=text)
        server.add_argument("--host", default="127.0.0.1")
        server.add_argument("--port", type=int, default=8081)
        server.add_argument("--token", help="required where the host is not loopback")
    warm = sub.add_parser("warm-up", help="prepare this machine for quick job starts")
    warm.add_argument("--quiet", action="store_true", help="print nothing")
    return parser


def main(argv=None) -> int:
    arguments = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return commands.COMMANDS[arguments.command](arguments)
    except (
        JobNotFound,
        SavepointError,
        LifecycleError,
        ServerError,
        commands.CommandError,
    ) as error:
        print(
            f"\n------------------------------------------------------------\n"
            f" The program finished with the following exception:\n\n{error}",
            file=sys.stderr,
        )
        return 1
