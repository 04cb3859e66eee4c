"""``hookline serve``: hookline's policies as the HTTP hook of the agents a team already runs.

judge    one host event judged as a ``hookline run`` judges it (``Judge.rule``); no web library
app      the ASGI app (Starlette): routes, status codes, failing closed, recording before answering
record   the audit record of each ruling, through the writer ``hookline run`` uses
server   uvicorn under the app, on a socket bound first
canary   a forbidden call through Claude Code's real hook path, and who refused it
doctor   ``hookline doctor``: the server's health, what is installed, the canary
"""
