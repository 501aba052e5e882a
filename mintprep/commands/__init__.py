"""The command drivers: run, status, review, import (`importing/`), audit, repair, export, provenance,
check, contract (deploy, set-base-uri, verify), reveal, publish, serve, export-car. Each opens what its command needs
(the Workspace, the ledger, the signing key), calls the stages and folds their results into its report; the only
place, with `state/` and the stages that record what they made, that moves the ledger's state. No driver imports
another; the CLI calls one driver per command and renders its report.

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {
    "audit_collection": "audit",
    "write_report": "audit_report",
    "check_contract": "check",
    "base_uri_update": "contract", "deploy": "contract", "verify_contract": "contract",
    "export_collection": "export",
    "export_car_file": "export_car",
    "import_collection": "importing.driver",
    "collection_provenance": "provenance",
    "publish_site": "publish",
    "repair_collection": "repair", "RepairOutcome": "repair",
    "planned_reveal_txs": "reveal", "reveal_drop": "reveal",
    "gather_review": "review",
    "write_review": "review_pages",
    "run_at": "run.at", "run_collection": "run.driver", "RunReport": "run.report",
    "serving": "serve",
    "collection_status": "status", "status_at": "status",
    "TokenRepair": "repair",
    "attention_lines": "status",
})
