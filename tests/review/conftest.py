"""The review sheet's tests use the page tests' Chromium (one per session) and artifacts folder."""

from tests.page.conftest import artifacts_dir, browser  # noqa: F401  (fixtures)
