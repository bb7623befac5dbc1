"""CEP transcripts through whole jobs: each transcript without mid-stream watermarks as a
job of its own on the in-process executor, and a few side by side in one job on Spark
(the harness runs them all: tests/unit/test_cep_transcripts.py)."""

import pytest

import weir.cep as cep
from tests.cep.runner import Recorder, as_multiset
from tests.cep.transcripts import TRANSCRIPTS
from weir.cep import CEP
from weir.common import WatermarkStrategy
from weir.datastream import StreamExecutionEnvironment

WHOLE_INPUT = [
    t
    for t in TRANSCRIPTS
    if not getattr(t, "watermarks", None) and t.watermark_at_end is None and not t.late
]
ON_SPARK = [
    "next_fails_when_another_event_intervenes",
    "skip_past_last_event_with_strict_pair",
    "group_starting_with_optional_part",
    "optional_group_then_next_is_strict_against_what_precedes",
]


def event_time(record, record_timestamp):
    return record[2]


def matches_of(env, transcripts):
    """{transcript name: its matches} of one job running `transcripts` side by side, each
    its own CEP operator over its events (a record: (name, event, timestamp))."""
    records = [(t.name, event, ts) for t in transcripts for event, ts in t.events]
    stream = env.from_collection(records).assign_timestamps_and_watermarks(
        WatermarkStrategy.no_watermarks().with_timestamp_assigner(event_time)
    )
    found = {t.name: [] for t in transcripts}
    for transcript in transcripts:
        mine = stream.filter(lambda r, name=transcript.name: r[0] == name).map(lambda r: r[1])
        CEP.pattern(mine, transcript.pattern(cep)).process(Recorder()).add_sink(
            lambda value, ctx, name=transcript.name: found[name].append(value[1])
        )
    env.execute("cep transcripts")
    return found


def test_the_transcripts_have_enough_whole_input_cases():
    assert len(WHOLE_INPUT) >= 100 and set(ON_SPARK) <= {t.name for t in WHOLE_INPUT}


@pytest.mark.parametrize("transcript", WHOLE_INPUT, ids=lambda t: t.name)
def test_transcript_as_a_job_in_process(transcript):
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    found = matches_of(env, [transcript])[transcript.name]
    if transcript.ordered:
        assert found == transcript.matches
    else:
        assert as_multiset(found) == as_multiset(transcript.matches)


@pytest.mark.spark
def test_transcripts_side_by_side_on_spark(spark_env):
    chosen = [t for t in WHOLE_INPUT if t.name in ON_SPARK]
    found = matches_of(spark_env, chosen)
    for transcript in chosen:
        assert as_multiset(found[transcript.name]) == as_multiset(transcript.matches), (
            transcript.name
        )
