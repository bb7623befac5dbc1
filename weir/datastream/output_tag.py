"""PyFlink's module path of OutputTag (`pyflink.datastream.output_tag`)."""

from weir.runtime.output_tag import OutputTag  # noqa: F401
