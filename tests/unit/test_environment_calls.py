"""PyFlink's environment calls that real programs make (no Spark): get_config()'s
ExecutionConfig, configure(), add_jars, and what the job's Python needs
(add_python_file, set_python_requirements, set_python_executable); what weir cannot honour
is a clear NotImplementedError."""

import logging
import os
import sys
import zipfile

import pytest

from weir.common import Configuration, ExecutionConfig
from weir.datastream import StreamExecutionEnvironment
from weir.datastream import python_dependencies


def local_env(configuration=None):
    return StreamExecutionEnvironment.get_execution_environment(configuration).set_executor("local")


def test_execution_config_reads_and_writes_its_environment():
    env = local_env()
    config = env.get_config()
    assert isinstance(config, ExecutionConfig) and env.get_config() is config
    config.set_global_job_parameters({"a": 1, "b": "x"}).set_parallelism(3)
    assert config.get_global_job_parameters() == {"a": "1", "b": "x"}
    assert env.get_parallelism() == 3 and config.get_max_parallelism() == 128
    assert config.get_auto_watermark_interval() == 200
    assert not config.set_auto_watermark_interval(0).is_object_reuse_enabled()
    assert config.enable_object_reuse().is_object_reuse_enabled()
    with pytest.raises(ValueError, match="auto watermark interval must be a non-negative"):
        config.set_auto_watermark_interval(-1)
    with pytest.raises(TypeError, match="takes a dict, got list"):
        config.set_global_job_parameters([("a", 1)])
    with pytest.raises(NotImplementedError, match=r"PyFlink's ExecutionConfig.enable_force_kryo"):
        config.enable_force_kryo()


def test_a_configuration_sets_parallelism_and_max_parallelism(tmp_path):
    configuration = Configuration()
    configuration.set_integer("parallelism.default", 4)
    configuration.set_string("pipeline.max-parallelism", "64")
    env = local_env(configuration)
    assert (env.get_parallelism(), env.get_max_parallelism()) == (4, 64)
    later = Configuration()
    later.set_string("parallelism.default", "2")
    later.set_string("my.own.key", "kept")
    env.configure(later)
    assert env.get_parallelism() == 2
    assert env.configuration.get_string("my.own.key") == "kept"
    assert env.configuration.get_string("pipeline.max-parallelism") == "64"


def test_jars_are_accepted_and_said_once_at_debug_level(caplog, monkeypatch):
    monkeypatch.setattr(python_dependencies, "_said_jars", False)
    env = local_env()
    with caplog.at_level(logging.DEBUG, logger="weir.dependencies"):
        env.add_jars("file:///opt/flink-sql-connector-kafka.jar")
        env.add_classpaths("file:///opt/other.jar")
    assert env.jars == ["file:///opt/flink-sql-connector-kafka.jar", "file:///opt/other.jar"]
    assert [r.getMessage() for r in caplog.records] == [
        "add_jars(file:///opt/flink-sql-connector-kafka.jar): weir's connectors and formats "
        "are Python; no jar is needed"
    ]
    with pytest.raises(TypeError, match="add_jars takes paths as strings"):
        env.add_jars(3)


def test_python_files_go_on_the_drivers_path_and_directories_ship_zipped(tmp_path):
    package = tmp_path / "deps" / "mypkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "util.py").write_text("X = 1\n")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "helpers.py").write_text("Y = 2\n")
    single = tmp_path / "one" / "single.py"
    single.parent.mkdir()
    single.write_text("Z = 3\n")
    env = local_env()
    for path in (package, plain, single):
        env.add_python_file(str(path))
    dependencies = env.python_dependencies
    assert dependencies.path_entries() == [str(tmp_path / "deps"), str(plain), str(single.parent)]
    shipped = dependencies.shipped_files()
    assert sorted(zipfile.ZipFile(shipped[0]).namelist()) == ["mypkg/__init__.py", "mypkg/util.py"]
    assert zipfile.ZipFile(shipped[1]).namelist() == ["helpers.py"]
    assert shipped[2] == str(single)
    with pytest.raises(FileNotFoundError, match="python file /no/such.py does not exist"):
        env.add_python_file("/no/such.py")


def test_requirements_this_interpreter_has_install_nothing(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# what the job needs\nnumpy>=1.0\npyarrow\n")
    env = local_env()
    env.set_python_requirements(str(requirements))
    assert env.python_dependencies.installed_requirements() is None
    assert python_dependencies._unsatisfied(str(requirements)) == []
    requirements.write_text("numpy<0.1\nno-such-package-for-weir==1.0\n")
    assert python_dependencies._unsatisfied(str(requirements)) == [
        "numpy<0.1",
        "no-such-package-for-weir==1.0",
    ]


def test_python_executable_is_kept_for_the_workers():
    env = local_env()
    env.set_python_executable(sys.executable)
    assert env.python_dependencies.executable == sys.executable
    configuration = Configuration()
    configuration.set_string("python.executable", "/opt/python3")
    assert local_env(configuration).python_dependencies.executable == "/opt/python3"
    with pytest.raises(TypeError, match="takes an interpreter's path"):
        env.set_python_executable("")
    assert os.path.exists(sys.executable)
