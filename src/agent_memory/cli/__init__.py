"""The ``agent-memory`` command line; see :mod:`.app`."""
