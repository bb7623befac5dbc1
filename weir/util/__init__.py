"""PyFlink's `pyflink.util`: the helpers copied programs use (weir.util.java_utils)."""
