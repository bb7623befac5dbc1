"""What a TableEnvironment says of its catalog, and the Python dependencies of its jobs.

weir has one catalog, Flink's default one (`default_catalog.default_database`), held in
memory by the TableEnvironment: every table, view and function is in it, so a
"permanent" one (`create_view`, `create_function`) is what a temporary one is; another
catalog or database is not there yet."""

from typing import Any, Callable, Dict, List, Optional, Tuple

from weir.table.evaluate import not_supported

CATALOG, DATABASE = "default_catalog", "default_database"


class CatalogMethods:
    """PyFlink's catalog and dependency methods of a TableEnvironment (which holds
    `_tables`, `functions` and the environment its jobs run in)."""

    # (what the TableEnvironment holds and does, for these methods)
    _tables: Dict[str, Any]
    functions: Dict[str, Any]
    _dependencies: List[Tuple[str, tuple]]
    _stream_env: Any
    create_temporary_view: Callable[..., None]
    _scan: Callable[..., Any]

    # -- the catalog and database -------------------------------------------------------
    def get_current_catalog(self) -> str:
        return CATALOG

    def get_current_database(self) -> str:
        return DATABASE

    def use_catalog(self, catalog_name: str) -> None:
        if catalog_name != CATALOG:
            not_supported(f"a catalog other than '{CATALOG}' ('{catalog_name}')")

    def use_database(self, database_name: str) -> None:
        if database_name != DATABASE:
            not_supported(f"a database other than '{DATABASE}' ('{database_name}')")

    def list_catalogs(self):
        return [CATALOG]

    def list_databases(self):
        return [DATABASE]

    def list_temporary_views(self):
        from weir.table.table import Table

        return sorted(n for n, entry in self._tables.items() if isinstance(entry, Table))

    def list_user_defined_functions(self):
        return sorted(self.functions)

    def list_functions(self):
        from weir.table.builtins import FUNCTIONS

        return sorted(set(self.functions) | {name.lower() for name in FUNCTIONS})

    # -- views, tables and functions -----------------------------------------------------
    def create_view(self, view_path: str, table, ignore_if_exists: bool = False) -> None:
        if ignore_if_exists and view_path in self._tables:
            return
        self.create_temporary_view(view_path, table)

    def drop_view(self, view_path: str, ignore_if_not_exists: bool = True) -> bool:
        return self._drop(self._tables, view_path, "view", ignore_if_not_exists)

    def drop_table(self, table_path: str, ignore_if_not_exists: bool = True) -> bool:
        return self._drop(self._tables, table_path, "table", ignore_if_not_exists)

    def drop_temporary_function(self, path: str) -> bool:
        return self.functions.pop(path.lower(), None) is not None

    drop_function = drop_temporary_system_function = drop_temporary_function

    @staticmethod
    def _drop(entries, path, what, ignore_if_not_exists):
        if entries.pop(path, None) is not None:
            return True
        if not ignore_if_not_exists:
            raise ValueError(f"{what.capitalize()} `{CATALOG}`.`{DATABASE}`.`{path}` doesn't exist")
        return False

    def from_descriptor(self, descriptor):
        """A table of `descriptor`, registered under no name."""
        from weir.table.table import Table

        return Table(self._scan(f"*anonymous_{descriptor.connector}*", descriptor), self)

    def create_java_temporary_function(self, path: str, function_class_name: str):
        not_supported(f"Java functions ('{function_class_name}': weir's are Python)")

    create_java_function = create_java_temporary_system_function = create_java_temporary_function

    # -- the Python its jobs need ---------------------------------------------------------
    def add_python_file(self, file_path: str) -> None:
        self._dependency("add_python_file", file_path)

    def add_python_archive(self, archive_path: str, target_dir: Optional[str] = None) -> None:
        self._dependency("add_python_archive", archive_path, target_dir)

    def set_python_requirements(
        self, requirements_file_path: str, requirements_cache_dir: Optional[str] = None
    ) -> None:
        self._dependency("set_python_requirements", requirements_file_path, requirements_cache_dir)

    def _dependency(self, method, *args) -> None:
        """Given to the program's environment, or to each one a job of this
        TableEnvironment makes (`_with_dependencies`)."""
        self._dependencies.append((method, args))
        if self._stream_env is not None:
            getattr(self._stream_env, method)(*args)

    def _with_dependencies(self, env):
        if env is not self._stream_env:
            for method, args in self._dependencies:
                getattr(env, method)(*args)
        return env
