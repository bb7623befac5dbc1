"""The page store: where an engine keeps a key group's state pages (weir.runtime.state.
backend reads and writes them). Light on purpose: the Spark planner process imports it."""

from abc import ABC, abstractmethod
from typing import Optional


class PageStore(ABC):
    """The pages of one key group, as an engine stores them: each page a pickled
    {key: {state name: value}} under its page id. The state backend loads a page once
    per micro-batch and stores or removes each page it changed (KeyGroupPages.flush)."""

    @abstractmethod
    def load(self, page_id: int) -> Optional[bytes]:
        """The page's bytes, or None where the key group has no such page."""

    @abstractmethod
    def store(self, page_id: int, blob: bytes) -> None:
        """Keeps `blob` as the page (replacing what was there)."""

    @abstractmethod
    def remove(self, page_id: int) -> None:
        """Forgets the page (nothing where there is none)."""
