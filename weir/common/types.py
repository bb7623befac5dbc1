"""`pyflink.common.types`: Row and RowKind (weir.common.row holds them)."""

from weir.common.row import Row, RowKind

__all__ = ["Row", "RowKind"]
