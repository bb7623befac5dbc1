"""The only package that imports pyspark: runs weir plans as Spark streaming queries."""
