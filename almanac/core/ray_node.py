"""``ray start`` for a worker node of a one-machine cluster that keeps every listener on 127.0.0.1.

``python -m almanac.core.ray_node start --address 127.0.0.1:<port> ...`` is ``ray start`` with two
switches set in this process only: Ray's multi-node guard passes (it refuses worker nodes while the
"multi-node cluster" switch is off), and this node's address stays the loopback one (with the switch on,
Ray would replace 127.0.0.1 by the machine's routable IP and listen on every interface). The processes it
starts inherit ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` and so keep loopback too.
"""

from __future__ import annotations

import sys

from almanac.core.ray_cluster import LOOPBACK


def main() -> int:
    from ray._private import ray_constants, services
    from ray.scripts.scripts import main as ray_main

    ray_constants.ENABLE_RAY_CLUSTER = True
    services.get_node_ip_address = lambda address=None: LOOPBACK
    sys.argv = ["ray", *sys.argv[1:]]
    ray_main()  # type: ignore[no-untyped-call]
    return 0


if __name__ == "__main__":
    sys.exit(main())
