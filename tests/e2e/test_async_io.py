"""Async I/O on both engines: a failing request fails the job cleanly."""

import asyncio
import os

import pytest

from weir.common import Time
from weir.datastream import AsyncDataStream, AsyncFunction
from weir.datastream.connectors import FileSink


class Lookup(AsyncFunction):
    async def async_invoke(self, value):
        await asyncio.sleep(0.001 * (value % 5))
        if value == 13:
            raise LookupError(f"no such sensor: {value}")
        return [{"sensor": value}]


def test_a_request_failing_without_retry_fails_the_job_and_writes_nothing(any_env, tmp_path):
    env = any_env
    numbers = env.from_collection(list(range(40)))
    AsyncDataStream.unordered_wait(numbers, Lookup(), Time.seconds(5), 4).uid("lookup") \
        .sink_to(FileSink.for_json_lines(str(tmp_path / "out")).build())
    with pytest.raises(Exception) as error:
        env.execute("failing lookup")
    message = str(error.value)
    assert "operator 'lookup' failed in user function Lookup.async_invoke" in message
    assert f"{os.path.basename(__file__)}:17: LookupError: no such sensor: 13" in message
    out = tmp_path / "out"
    assert not out.exists() or not [n for n in os.listdir(out) if n.startswith("part-")]
