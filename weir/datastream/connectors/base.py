"""PyFlink's `pyflink.datastream.connectors.base`: what sinks promise."""

from enum import Enum


class DeliveryGuarantee(Enum):
    """A sink's guarantee: EXACTLY_ONCE (each record once, also after restarts),
    AT_LEAST_ONCE (none lost, some may repeat after a restart) or NONE (records may be
    lost or repeated)."""

    EXACTLY_ONCE = 0
    AT_LEAST_ONCE = 1
    NONE = 2
