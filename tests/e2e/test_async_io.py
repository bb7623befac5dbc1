"""Async I/O on both engines: enrichment from a real loopback service; a failing request
fails the job cleanly."""

import asyncio
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from weir.common import Time
from weir.datastream import AsyncDataStream, AsyncFunction
from weir.datastream.connectors import FileSink
from tests.streams import collect


class Lookup(AsyncFunction):
    async def async_invoke(self, value):
        await asyncio.sleep(0.001 * (value % 5))
        if value == 13:
            raise LookupError(f"no such sensor: {value}")
        return [{"sensor": value}]


def test_a_request_failing_without_retry_fails_the_job_and_writes_nothing(any_env, tmp_path):
    env = any_env
    numbers = env.from_collection(list(range(40)))
    AsyncDataStream.unordered_wait(numbers, Lookup(), Time.seconds(5), 4).uid("lookup").sink_to(
        FileSink.for_json_lines(str(tmp_path / "out")).build()
    )
    with pytest.raises(Exception) as error:
        env.execute("failing lookup")
    message = str(error.value)
    assert "operator 'lookup' failed in user function Lookup.async_invoke" in message
    assert f"{os.path.basename(__file__)}:22: LookupError: no such sensor: 13" in message
    out = tmp_path / "out"
    assert not out.exists() or not [n for n in os.listdir(out) if n.startswith("part-")]


LOCATIONS = {"s1": "boiler room", "s2": "kitchen", "s3": "roof"}


class Locations(BaseHTTPRequestHandler):
    """A sensor-location service: GET /sensors/<id> -> {"location": ...}, 404 if unknown."""

    def do_GET(self):
        sensor = self.path.rsplit("/", 1)[-1]
        found = sensor in LOCATIONS
        body = json.dumps({"location": LOCATIONS[sensor]} if found else {}).encode()
        self.send_response(200 if found else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def location_service():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Locations)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


class Enrich(AsyncFunction):
    """The book's enrichment of readings with sensor locations, over HTTP with asyncio."""

    def __init__(self, port):
        self.port = port

    async def async_invoke(self, reading):
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(f"GET /sensors/{reading[0]} HTTP/1.0\r\n\r\n".encode())
        await writer.drain()
        response = await reader.read()
        writer.close()
        head, _, body = response.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        location = json.loads(body)["location"] if status == 200 else "unknown"
        return [(reading[0], reading[1], location)]


def test_readings_enriched_with_locations_from_a_loopback_http_service(any_env, location_service):
    env = any_env
    readings = [("s1", 20.5), ("s2", 31.0), ("s4", 12.0), ("s3", 18.25), ("s1", 21.0)] * 4
    enriched = AsyncDataStream.ordered_wait(
        env.from_collection(readings), Enrich(location_service), Time.seconds(10), 3
    )
    sink = collect(enriched)
    env.execute("enrich")
    where = dict(LOCATIONS, s4="unknown")
    assert sorted(sink.results) == sorted((s, t, where[s]) for s, t in readings)
