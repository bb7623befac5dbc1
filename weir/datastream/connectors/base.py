"""PyFlink's `pyflink.datastream.connectors.base`: what sinks promise."""

from enum import Enum


class DeliveryGuarantee(Enum):
    """A sink's guarantee: EXACTLY_ONCE (each record once, also after restarts),
    AT_LEAST_ONCE (none lost, some may repeat after a restart) or NONE (records may be
    lost or repeated)."""

    EXACTLY_ONCE = 0
    AT_LEAST_ONCE = 1
    NONE = 2


def dead_letter_tag_id(output_tag) -> str:
    """The tag id of a source builder's `set_dead_letter_output(OutputTag(...))`: records
    the source cannot read go to that side output of its stream as Row(source, position,
    reason, record) and count in its numRecordsInErrors metric, instead of failing the
    job."""
    tag_id = getattr(output_tag, "tag_id", None)
    if not isinstance(tag_id, str):
        raise TypeError(f"set_dead_letter_output expects an OutputTag, got {output_tag!r}")
    return tag_id
