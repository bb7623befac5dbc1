"""This process's Kafka clients (confluent-kafka), kept by their settings: a task of a
later micro-batch in the same worker process takes them up again instead of connecting
anew. Transactional producers are not kept: see transactional_producer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Tuple

if TYPE_CHECKING:
    from confluent_kafka import Consumer, Producer

    Key = Tuple[Tuple[str, str], ...]  # a client's settings, as a key

TRANSACTION_TIMEOUT_S = 60.0

_CONSUMERS: Dict[Key, Consumer] = {}
_PRODUCERS: Dict[Key, Producer] = {}


def _key(config: Dict[str, Any]) -> Key:
    return tuple(sorted((k, str(v)) for k, v in config.items()))


def consumer(config: Dict[str, Any]) -> Consumer:
    from confluent_kafka import Consumer

    found = _CONSUMERS.get(_key(config))
    if found is None:
        found = _CONSUMERS[_key(config)] = Consumer(config)
    return found


def close_consumer(config: Dict[str, Any]) -> None:
    """Closes the kept consumer of these settings, if any (its broker did not answer: it
    would go on reconnecting, and logging so, for as long as the process lives)."""
    found = _CONSUMERS.pop(_key(config), None)
    if found is not None:
        found.close()


def producer(config: Dict[str, Any]) -> Producer:
    from confluent_kafka import Producer

    found = _PRODUCERS.get(_key(config))
    if found is None:
        found = _PRODUCERS[_key(config)] = Producer(config)
    return found


def transactional_producer(config: Dict[str, Any]) -> Producer:
    """A new producer of transactional id config["transactional.id"], its transactions
    initialized: that fences every earlier producer of the id, in any process, and aborts
    the transaction one left open. Never kept: a later task of the id may run in another
    worker process, whose producer would fence a kept one."""
    from confluent_kafka import Producer

    producer = Producer(config)
    producer.init_transactions(TRANSACTION_TIMEOUT_S)
    return producer


def close_clients() -> None:
    """Closes every kept client (e.g. before their broker goes away), flushing what the
    producers still hold."""
    kept: Producer | Consumer
    for kept in _PRODUCERS.values():
        kept.flush(5)
    for kept in _CONSUMERS.values():
        kept.close()
    for cache in (_CONSUMERS, _PRODUCERS):
        cache.clear()
