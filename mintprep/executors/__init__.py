"""Where generation runs: in this process (`local`) or on a Ray cluster (`ray`).

An executor takes pure GenerationRequests and yields GenerationResults as they finish; it never
touches the ledger or the object store (the driver alone writes those), so results from any worker
are recorded exactly once. It keys requests without loading anything (mintprep.generate.key): the model is
loaded, and Ray's actors started, on the first request it has to run.

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {
    "make_executor": "factory",
    "check_keys_hold": "local", "Executor": "local", "KeysOutdated": "local", "LocalExecutor": "local",
    "ExecutorSettings": "settings", "with_cli_overrides": "settings",
})
