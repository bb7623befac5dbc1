"""The README's job runs as written (on the in-process runner) and prints what it says."""

import contextlib
import io
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_readme_job_runs():
    with open(os.path.join(ROOT, "README.md")) as handle:
        code = re.findall(r"```python\n(.*?)```", handle.read(), re.S)[0]
    create = "env = StreamExecutionEnvironment.get_execution_environment()"
    assert create in code
    code = code.replace(create, create + '.set_executor("local")')
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    assert sorted(out.getvalue().splitlines()) == ["('alice', 2)", "('bob', 1)"]
