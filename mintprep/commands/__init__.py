"""Command drivers (run, audit, repair, import, status, review): the only place that folds stage results into
reports and moves the ledger's state. The CLI is a thin layer over these functions."""
