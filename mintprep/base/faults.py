"""The one fault-injection hook: a kill test names a point in `FAULT_ENV` and the process SIGKILLs itself when it
reaches that point, so the test can check that running the command again converges. Nothing else sets it.

The points: `repair-step-N` (repair step N has done its work, its journal entry not yet written: the worst moment),
`import-write-N` (the import's Nth durable write: objects, pins, ledger rows), `reveal-tx-LABEL` (the reveal's
transaction LABEL, startReveal or reveal, mined and recorded)."""

from __future__ import annotations

import os
import signal

FAULT_ENV = "MINTPREP_FAULT_AT"


def fault_point(point: str) -> None:
    """SIGKILL this process when `FAULT_ENV` names `point`."""
    if os.environ.get(FAULT_ENV) == point:
        os.kill(os.getpid(), signal.SIGKILL)
