"""A job's operator graph as Flink's REST API describes it (`GET /jobs/{id}/plan`): one
node per operator, named by uid, with its inputs, for tools and the dashboard."""

from typing import Any, Dict, List

from weir.plan import graph as g


def describe_plan(
    nodes: List[g.Node], job_id: str, job_name: str, parallelism: int
) -> Dict[str, Any]:
    uids = g.assign_uids(nodes)
    described = []
    for node in nodes:
        described.append(
            {
                "id": uids[node.id],
                "parallelism": node.parallelism or parallelism,
                "operator": node.kind,
                "description": node.name,
                "inputs": [
                    {
                        "num": index,
                        "id": uids[source],
                        "ship_strategy": "HASH"
                        if node.kind in (g.KEYED, g.TWO_INPUT)
                        else "FORWARD",
                    }
                    for index, source in enumerate(node.inputs)
                ],
            }
        )
    return {"jid": job_id, "name": job_name, "type": "STREAMING", "nodes": described}
