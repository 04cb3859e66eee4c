"""``hookline serve``: hookline's policies as the HTTP hook of the agents a team already runs.

judge   one host event judged as a ``hookline run`` judges it (``Judge.rule``), no web library
app     the ASGI app (Starlette): routes, status codes, the audit record of each ruling
"""
