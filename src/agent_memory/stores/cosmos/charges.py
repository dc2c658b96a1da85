"""Request charges (request units, RU) of a Cosmos DB store, per operation.

Every SDK call passes :meth:`ChargeTally.hook` as its ``response_hook``, which reads the
``x-ms-request-charge`` response header; the charge is added to the operation the store was
running (``put``, ``list``, ``vector_search``, ...) and logged at DEBUG on the logger
``agent_memory.stores.cosmos``. ``CosmosStore.request_charges`` reads the totals.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("agent_memory.stores.cosmos")

CHARGE_HEADER = "x-ms-request-charge"


@dataclass(frozen=True)
class Charge:
    """One operation's tally.

    Attributes:
        calls: SDK responses counted (a paged query counts one per page).
        request_units: their summed request charge (RU).
    """

    calls: int
    request_units: float


def header_charge(headers: Mapping[str, Any] | None) -> float:
    """The request charge in a response's headers (0.0 when absent or unreadable)."""
    if not headers:
        return 0.0
    value = headers.get(CHARGE_HEADER)
    if value is None:
        value = next((v for k, v in headers.items() if k.lower() == CHARGE_HEADER), None)
    try:
        return float(value) if value is not None else 0.0
    except (TypeError, ValueError):
        return 0.0


class ChargeTally:
    """Request charges summed per operation name (thread-safe: SDK hooks may run on any
    thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._totals: dict[str, list[float]] = {}

    def add(self, operation: str, headers: Mapping[str, Any] | None) -> float:
        """Count one response of ``operation``; returns its charge (RU)."""
        charge = header_charge(headers)
        with self._lock:
            calls_ru = self._totals.setdefault(operation, [0, 0.0])
            calls_ru[0] += 1
            calls_ru[1] += charge
        log.debug("cosmos %s: %.2f RU", operation, charge)
        return charge

    def hook(self, operation: str) -> Callable[..., None]:
        """A ``response_hook`` for the SDK counting responses under ``operation``."""
        def on_response(headers: Mapping[str, Any] | None = None, *_: Any) -> None:
            self.add(operation, headers)
        return on_response

    def snapshot(self) -> dict[str, Charge]:
        """The totals so far: operation -> :class:`Charge`."""
        with self._lock:
            return {op: Charge(int(c), float(ru)) for op, (c, ru) in self._totals.items()}

    def reset(self) -> None:
        """Forget the totals."""
        with self._lock:
            self._totals.clear()
