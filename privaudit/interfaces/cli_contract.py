"""What the command line promises its callers: exit codes and the JSON schema versions of
the registry audit and of the replay.

Standard library only (nothing at all), so that ``privaudit --help`` and argument errors
load no numerical package; the commands import the rest when they run.
"""

from __future__ import annotations

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_INCONCLUSIVE",
    "EXIT_OK",
    "EXIT_USAGE",
    "EXIT_VIOLATION",
    "REGISTRY_AUDIT_SCHEMA_VERSION",
    "REPLAY_SCHEMA_VERSION",
]

EXIT_OK = 0
EXIT_VIOLATION = 1
EXIT_USAGE = 2
EXIT_INCONCLUSIVE = 3
#: The reader of stdout went away (``privaudit list | head -1``): 128 + SIGPIPE, what a shell
#: reports for a program that a closed pipe ended.
EXIT_BROKEN_PIPE = 141
#: Version of the ``audit --registry --json`` object (``docs/report_schema.md``).
REGISTRY_AUDIT_SCHEMA_VERSION = 2
#: Version of the ``replay --json`` object (``docs/replay.md``).
REPLAY_SCHEMA_VERSION = 1
