"""The page store is a declared interface (weir.runtime.state.backend.PageStore): the
in-memory store and Spark's are both PageStores, a store missing a method cannot be
made, and the backend's pages round-trip through one."""

import pytest

from weir.runtime.state.backend import KeyGroupPages, MemoryPageStore, PageStore
from weir.spark.host import SparkPageStore


def test_both_engines_stores_are_page_stores():
    assert issubclass(MemoryPageStore, PageStore) and issubclass(SparkPageStore, PageStore)


def test_a_store_without_remove_is_not_a_page_store():
    class Partial(PageStore):
        def load(self, page_id):
            return None

        def store(self, page_id, blob):
            pass

    with pytest.raises(TypeError, match="remove"):
        Partial()


def test_pages_are_stored_changed_and_removed_through_the_store():
    store = MemoryPageStore()
    pages = KeyGroupPages(store, 2)
    pages.page(0)["k"] = {"count": 1}
    pages.dirty.add(0)
    pages.flush()
    assert set(store.pages) == {0}
    again = KeyGroupPages(store, 2)
    assert again.page(0) == {"k": {"count": 1}}
    again.page(0).clear()
    again.dirty.add(0)
    again.flush()
    assert store.pages == {}
