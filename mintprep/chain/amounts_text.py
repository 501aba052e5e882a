"""Wei and sale times as check, its fixes and the page show them: one wording for every family."""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal

from mintprep.collection import NEVER, WEI_PER_ETH


def format_wei(wei: int) -> str:
    eth = (Decimal(wei) / WEI_PER_ETH).normalize()
    return f"{wei} wei ({eth:f} ETH)"


def format_time(seconds: int) -> str:
    if seconds >= NEVER:
        return "never"
    if seconds == 0:
        return "0 (from deploy)"  # what an unset `start` stores: the phase is open as soon as the contract exists
    return f"{seconds} ({datetime.fromtimestamp(seconds, timezone.utc):%Y-%m-%dT%H:%M:%SZ})"
