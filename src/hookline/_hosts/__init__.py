"""The agents hookline guards from outside its own loop: where each keeps its hook settings, and
the entries that point it at ``hookline serve`` (``hookline install HOST``)."""
