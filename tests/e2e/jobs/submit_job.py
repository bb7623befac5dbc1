"""A job file run with spark-submit: it must use the session spark-submit created."""

from weir.datastream import StreamExecutionEnvironment


def main():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.from_collection(["a", "bb", "ccc"]).map(lambda s: f"{s}:{len(s)}").print()
    env.execute("submitted")
    from pyspark.sql import SparkSession

    print("master=" + SparkSession.getActiveSession().sparkContext.master)


if __name__ == "__main__":
    main()
