"""`mintprep run`, one folder: `driver.py` runs every stage and folds their results into the report (`report.py`)."""
