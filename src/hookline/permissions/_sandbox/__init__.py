"""The OS sandbox for Bash and opted-in command hooks, on Linux with bubblewrap.

- ``config``: Claude Code's ``sandbox`` settings read into a ``SandboxConfig``, and whether the
  sandbox can start here;
- ``run``: a session's ``Sandbox``, which turns a command into a bwrap command line;
- ``mounts`` and ``protect``: the protected set read-only, ``.git`` pinned, placeholders;
- ``globs``: the ``filesystem`` path forms and wildcards, expanded when a sandbox starts;
- ``seccomp``: the filter (built with libseccomp) that keeps Unix sockets out;
- ``proxy``: the host-side proxy that lets through only ``network.allowedDomains``;
- ``forward.py``: the forwarder started inside the sandbox (run by path, standard library only).
"""

from hookline.permissions._sandbox.config import SandboxConfig
from hookline.permissions._sandbox.run import Sandbox

__all__ = ["Sandbox", "SandboxConfig"]
