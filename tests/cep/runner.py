"""Runs CEP transcripts (tests/cep/transcripts.py) on the operator harness and on an
engine, and compares what they give with the transcript's matches and timeouts."""

from collections import Counter

import weir.cep as cep
from weir.cep import PatternProcessFunction, TimedOutPartialMatchHandler
from weir.cep.operator import CepOperator
from weir.datastream.output_tag import OutputTag
from weir.testing.harness import KeyedOperatorHarness

TIMED_OUT = OutputTag("timed-out")
LATE = OutputTag("late")


def ids_of(match: dict) -> dict:
    """{name: [event ids]} (events without an id as they are)."""
    return {
        name: [getattr(event, "id", event) for event in events] for name, events in match.items()
    }


class Recorder(PatternProcessFunction, TimedOutPartialMatchHandler):
    """Each match as ("match", key, {name: [event ids]}); each timed-out partial match to
    TIMED_OUT likewise."""

    def process_match(self, match, ctx):
        yield "match", ids_of(match)

    def process_timed_out_match(self, match, ctx):
        ctx.output(TIMED_OUT, ("timeout", ids_of(match)))


def operator_of(transcript) -> CepOperator:
    return CepOperator(transcript.pattern(cep), Recorder(), late_tag=LATE)


def run_on_harness(transcript):
    """(matches, timed-out partial matches, late event ids) of `transcript`."""
    harness = KeyedOperatorHarness(operator_of(transcript), lambda event: 0)
    watermarks = dict(getattr(transcript, "watermarks", []) or [])
    for index, (event, timestamp) in enumerate(transcript.events):
        harness.process_element(event, timestamp)
        if index in watermarks:
            harness.process_watermark(watermarks[index])
    end = transcript.watermark_at_end
    harness.process_watermark(2**63 - 1 if end is None else end)
    matches = [value[1] for value, _ in harness.extract_outputs()]
    timeouts = [value[1] for value, _ in harness.side_output(TIMED_OUT)]
    late = [event.id for event, _ in harness.side_output(LATE)]
    return matches, timeouts, late


def as_multiset(matches) -> Counter:
    return Counter(repr(sorted(match.items())) for match in matches)
