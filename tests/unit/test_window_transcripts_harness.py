"""Window transcripts on the operator harness: exact outputs per step, no state left."""

import pytest

from tests.transcripts.runner import expected_of, late_dropped, run_on_harness, window_spec
from weir.testing.harness import KeyedOperatorHarness
from tests.transcripts.windows import TRANSCRIPTS, Transcript, E, W, main
from weir.datastream.window import TumblingEventTimeWindows
from tests.transcripts import functions as f

PASSING = [t for t in TRANSCRIPTS if t.error is None]
FAILING = [t for t in TRANSCRIPTS if t.error is not None]


@pytest.mark.parametrize("transcript", PASSING, ids=repr)
def test_transcript_on_harness(transcript):
    produced, harness = run_on_harness(transcript)
    assert [sorted(map(repr, step)) for step in produced] == expected_of(transcript)


EVENT_TIME = [t for t in PASSING if t.steps[-1][0] == ("end",) and window_spec(t).event_time]


@pytest.mark.parametrize("transcript", EVENT_TIME, ids=repr)
def test_event_time_windows_leave_no_state_or_timers_after_the_end(transcript):
    _, harness = run_on_harness(transcript)
    assert harness.num_timers() == 0
    assert harness.num_keyed_state_entries() == 0


def test_state_stays_flat_for_a_steady_key_set():
    """Many windows over the same keys, with lateness: state is bounded by the open windows."""
    operator = TumblingEventTimeWindows.of(10)
    harness = KeyedOperatorHarness(
        window_spec(
            Transcript(
                "steady",
                lambda ks: ks.window(operator).allowed_lateness(15).reduce(f.add_values),
                [],
            )
        ),
        f.key_of,
    )
    sizes = []
    for window in range(200):
        for key in ("a", "b", "c"):
            harness.process_element((key, 1), window * 10 + 3)
        harness.process_watermark(window * 10 + 9)
        sizes.append((harness.num_keyed_state_entries(), harness.num_timers()))
    assert len(harness.extract_outputs()) == 600
    assert set(sizes[10:]) == {sizes[10]}  # flat: windows within lateness only
    harness.process_watermark(10_000)
    assert (harness.num_keyed_state_entries(), harness.num_timers()) == (0, 0)


@pytest.mark.parametrize("transcript", FAILING, ids=repr)
def test_transcript_that_must_fail(transcript):
    error, pattern = transcript.error
    with pytest.raises(error, match=pattern):
        run_on_harness(transcript)


def test_a_wrong_expectation_fails_the_transcript():
    wrong = Transcript(
        "wrong",
        lambda ks: ks.window(TumblingEventTimeWindows.of(10)).reduce(f.add_values),
        [(E(("a", 1, 1)), []), (W(9), [main(("a", 2), 9)])],
    )
    produced, _ = run_on_harness(wrong)
    assert [sorted(map(repr, s)) for s in produced] != expected_of(wrong)


def test_dropped_late_elements_are_counted():
    produced, harness = run_on_harness(TRANSCRIPTS[0])
    assert late_dropped(harness) == 1
