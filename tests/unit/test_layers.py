"""The layers of CONTRIBUTING.md and docs/architecture.md hold: import-linter's contracts
(pyproject.toml) are kept."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_import_contracts_are_kept():
    lint = os.path.join(os.path.dirname(sys.executable), "lint-imports")
    result = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_runtime_and_plan_do_not_import_pyspark_at_run_time():
    code = (
        "import sys, weir.runtime.keyed_process, weir.plan.operators, weir.testing.harness,"
        " weir.local.executor, weir.datastream;"
        "print('pyspark' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"
