"""A failing job, run as a user runs it: one clear error on stderr, nothing on stdout."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAM = """
from weir.common import WatermarkStrategy
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors.file_system import FileSource

env = StreamExecutionEnvironment.get_execution_environment()
source = FileSource.for_json_lines({path!r}).build()
env.from_source(source, WatermarkStrategy.no_watermarks(), "events") \\
    .key_by(lambda r: r["a"]).map(lambda r: r["a"]).print()
env.execute("bad input")
"""


def test_a_malformed_input_line_fails_the_job_with_one_error_naming_file_and_line(tmp_path):
    (tmp_path / "in").mkdir()
    data = tmp_path / "in" / "part1.json"
    data.write_text('{"a": 1}\n{"a": 2}\n[1, 2]\n')
    program = tmp_path / "job.py"
    program.write_text(PROGRAM.format(path=str(tmp_path / "in")))
    run = subprocess.run(
        [sys.executable, str(program)],
        env=dict(os.environ, PYTHONPATH=ROOT),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 1
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert f'File "{program}", line 10, in <module>' in lines[1]
    assert lines[-1] == (
        "weir.common.job.JobExecutionError: job 'bad input' failed: source "
        f"'events' failed: ValueError: {data}:3: not a JSON object: a JSON list"
    )
    assert len(lines) <= 6  # the user's line, execute(), the error: no Spark or py4j trace
