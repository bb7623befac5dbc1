"""The benches' --record: each bench replaces its own dated block in docs/benchmarks.md."""

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location(
    "bench_report", os.path.join(ROOT, "bench", "report.py")
)
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)


def recorded(path, name, lines, day):
    table = report.Report(name, f"bench/{name}.py")
    for line in lines:
        table.line(line)
    table.record(str(path), day=day, revision="abc1234")
    return path.read_text()


def test_a_recording_replaces_its_own_block_and_leaves_the_rest(tmp_path, capsys):
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\nprose\n")
    recorded(docs, "ysb", ["| a |", "|---|", "| 1 |"], "2026-11-24")
    recorded(docs, "sensors", ["| s |\n|---|\n| 9 |"], "2026-11-24")
    text = recorded(docs, "ysb", ["", "| a |", "|---|", "| 2 |"], "2026-11-25")
    assert text == (
        "# Benchmarks\n\nprose\n\n"
        "<!-- bench:ysb -->\n### bench/ysb.py, 2026-11-25 (weir abc1234)\n\n"
        "| a |\n|---|\n| 2 |\n<!-- /bench:ysb -->\n\n"
        "<!-- bench:sensors -->\n### bench/sensors.py, 2026-11-24 (weir abc1234)\n\n"
        "| s |\n|---|\n| 9 |\n<!-- /bench:sensors -->\n"
    )
    assert "| 2 |" in capsys.readouterr().out


def test_the_docs_hold_one_recorded_block_per_bench():
    with open(report.DOCS, encoding="utf-8") as f:
        text = f.read()
    for name in ("ysb", "keyed_state", "sensors", "small_job", "latency", "batch_mode"):
        assert text.count(f"<!-- bench:{name} -->") == 1, name
        assert text.count(f"<!-- /bench:{name} -->") == 1, name


def test_a_table_is_a_header_a_separator_and_a_line_per_row():
    assert (
        report.markdown_table(["a", "b"], [["1", "2"], ["3", "4"]])
        == "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |"
    )
