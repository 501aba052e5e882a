"""The static mint page built from the manifest."""
