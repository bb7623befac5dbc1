"""PyFlink's shipped examples, with only their imports changed, print what PyFlink 2.3
printed for them (tests/pyflink_examples).

Two differences are allowed and stripped before comparing: PyFlink ran at this machine's
default parallelism (2) and prefixed some lines with the subtask (`1> `), where weir's
default parallelism is 1; and records of different keys may come in another order (each
key's records keep theirs: the comparison is per key, in order).
"""

import os
import re
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "pyflink_examples")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _lines(text):
    return [re.sub(r"^\d+> ", "", line) for line in text.splitlines() if line]


def _by_key(lines):
    """Each record's lines in order, grouped by all but the record's last field (the key
    of these examples' records)."""
    groups = {}
    for line in lines:
        key = line.rsplit(",", 1)[0]
        groups.setdefault(key, []).append(line)
    return groups


@pytest.mark.parametrize("name", ["basic_operations", "state_access", "process_json_data",
                                  "word_count"])
def test_example_prints_what_pyflink_prints(name):
    env = dict(os.environ, PYTHONPATH=ROOT)
    run = subprocess.run([sys.executable, os.path.join(EXAMPLES, f"{name}.py")], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    with open(os.path.join(EXAMPLES, f"{name}.flink.out")) as expected:
        flink = _lines(expected.read())
    weir = _lines(run.stdout)
    assert sorted(weir) == sorted(flink)
    assert _by_key(weir) == _by_key(flink)
