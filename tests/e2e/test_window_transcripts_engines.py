"""Window transcripts through TestStream on both engines: each step one micro-batch."""

import pytest

from tests.transcripts.runner import expected_of, run_on_engine
from tests.transcripts.windows import TRANSCRIPTS


@pytest.mark.parametrize("transcript", [t for t in TRANSCRIPTS if t.error is None], ids=repr)
def test_transcript_on_engine(any_env, transcript):
    produced = run_on_engine(any_env, transcript)
    assert [sorted(map(repr, step)) for step in produced] == expected_of(transcript)


@pytest.mark.parametrize("transcript", [t for t in TRANSCRIPTS if t.error is not None],
                         ids=repr)
def test_transcript_that_must_fail_on_engine(any_env, transcript):
    error, pattern = transcript.error
    with pytest.raises(error, match=pattern):
        run_on_engine(any_env, transcript)
