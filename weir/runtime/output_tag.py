"""OutputTag: names a side output (as PyFlink's `pyflink.datastream.OutputTag`)."""

from typing import Any, Optional, Tuple

from weir.common.typeinfo import TypeInformation


class OutputTag:
    def __init__(self, tag_id: str, type_info: Optional[TypeInformation] = None) -> None:
        if not isinstance(tag_id, str) or not tag_id:
            raise ValueError("OutputTag needs a non-empty string id")
        self.tag_id = tag_id
        self.type_info = type_info

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OutputTag) and other.tag_id == self.tag_id

    def __hash__(self) -> int:
        return hash(("OutputTag", self.tag_id))

    def __repr__(self) -> str:
        return f"OutputTag('{self.tag_id}')"


def split_side_output(item: Any) -> Tuple[Any, Any]:
    """Returns (tag_id, value) for `yield tag, value`, else (None, item)."""
    if type(item) is tuple and len(item) == 2 and isinstance(item[0], OutputTag):
        return item[0].tag_id, item[1]
    return None, item
