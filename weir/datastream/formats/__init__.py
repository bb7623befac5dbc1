"""PyFlink's formats (`pyflink.datastream.formats`): not in weir yet."""
