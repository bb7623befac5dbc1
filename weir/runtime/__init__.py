"""weir's runtime operators: pure Python, no pyspark.

They are driven by the test harness, the in-process runner and the Spark host alike.
"""
