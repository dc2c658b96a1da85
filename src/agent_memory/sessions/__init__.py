"""Sessions (seed 001): the memory keeper, session and long-term reflection, the structured
profile and contextual fact retrieval.

Modules: :mod:`.keeper` (live context of a session), :mod:`.context` (its text layout),
:mod:`.reflection` (session insights, aggregation of no-insight sessions), :mod:`.profile`
(long-term reflection into the profile), :mod:`.cfr` (``retrieve_facts``), :mod:`.api` (the
client mixin).
"""

from .api import SessionsAPI
from .cfr import CFRTools
from .keeper import MemoryKeeper, SessionEnd, SessionState
from .profile import ProfileUpdate
from .reflection import ReflectionResult

__all__ = [
    "CFRTools",
    "MemoryKeeper",
    "ProfileUpdate",
    "ReflectionResult",
    "SessionEnd",
    "SessionState",
    "SessionsAPI",
]
