"""A command hook that records what it was given: ``record.py OUT [EXIT]``.

Writes {stdin (text), stdin_bytes (hex), argv, cwd, env, pid, pgid} as JSON to OUT, then exits
with EXIT (default 0) without printing anything.
"""

import json
import os
import sys

raw = sys.stdin.buffer.read()
record = {
    "stdin": raw.decode("utf-8"),
    "stdin_hex": raw.hex(),
    "argv": sys.argv,
    "cwd": os.getcwd(),
    "env": dict(os.environ),
    "pid": os.getpid(),
    "pgid": os.getpgid(0),
}
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump(record, out)
sys.exit(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
