"""FlinkCEP's semantics, pinned by transcripts (tests/cep/transcripts.py: scenarios of
Flink's own CEP tests in weir's words) run on the CEP operator through the harness."""

import pytest

from tests.cep.runner import as_multiset, run_on_harness
from tests.cep.transcripts import TRANSCRIPTS


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda t: t.name)
def test_transcript_on_the_harness(transcript):
    matches, timeouts, late = run_on_harness(transcript)
    if transcript.ordered:
        assert matches == transcript.matches
    else:
        assert as_multiset(matches) == as_multiset(transcript.matches)
    if transcript.timeouts:
        assert as_multiset(timeouts) == as_multiset(transcript.timeouts)
    assert sorted(late) == sorted(transcript.late)
