"""The configuration weir starts an embedded SparkSession with."""

from weir.spark.session import DEFAULTS, DRIVER_JAVA_OPTIONS, embedded_conf

JAVA_OPTIONS = DRIVER_JAVA_OPTIONS[0]


def test_an_embedded_session_is_local_with_weirs_defaults_and_the_jobs_parallelism():
    conf = embedded_conf({}, 3, under_spark_submit=False)
    assert conf == {**DEFAULTS, "spark.sql.shuffle.partitions": "3", "spark.master": "local[*]"}
    # C1 only, with the code cache the JVM keeps with both compilers
    assert conf[JAVA_OPTIONS] == "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"


def test_a_jobs_settings_win_and_its_java_options_come_after_weirs():
    conf = embedded_conf(
        {
            "spark.master": "spark://host:7077",
            "spark.driver.memory": "8g",
            JAVA_OPTIONS: "-XX:TieredStopAtLevel=4 -Downer=me",
        },
        2,
        False,
    )
    assert conf["spark.master"] == "spark://host:7077"
    assert conf["spark.driver.memory"] == "8g"
    # (the JVM takes the last of a repeated option: the job's brings C2 back)
    assert conf[JAVA_OPTIONS] == (
        "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m -XX:TieredStopAtLevel=4 -Downer=me"
    )


def test_under_spark_submit_the_master_is_spark_submits():
    assert "spark.master" not in embedded_conf({}, 2, under_spark_submit=True)
