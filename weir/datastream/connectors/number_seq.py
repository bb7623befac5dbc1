"""PyFlink's module path of NumberSequenceSource
(`pyflink.datastream.connectors.number_seq`)."""

from weir.datastream.connectors.datagen import NumberSequenceSource  # noqa: F401
