"""OutputTag: names a side output (as PyFlink's `pyflink.datastream.OutputTag`)."""

from typing import Any, Tuple


class OutputTag:
    def __init__(self, tag_id: str, type_info=None):
        if not isinstance(tag_id, str) or not tag_id:
            raise ValueError("OutputTag needs a non-empty string id")
        self.tag_id = tag_id
        self.type_info = type_info

    def __eq__(self, other):
        return isinstance(other, OutputTag) and other.tag_id == self.tag_id

    def __hash__(self):
        return hash(("OutputTag", self.tag_id))

    def __repr__(self):
        return f"OutputTag('{self.tag_id}')"


def split_side_output(item) -> Tuple[Any, Any]:
    """Returns (tag_id, value) for `yield tag, value`, else (None, item)."""
    if type(item) is tuple and len(item) == 2 and isinstance(item[0], OutputTag):
        return item[0].tag_id, item[1]
    return None, item
