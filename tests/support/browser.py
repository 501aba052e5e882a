"""One Chromium per test session (Debian's package, driven by Playwright) and the folder screenshots go to.

Registered once, as a plugin of the root conftest, so every test folder shares the one sync Playwright session (a
second one in the same process fails with "Sync API inside the asyncio loop")."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.support.tools import REPO, require_tool

CHROMIUM = "/usr/bin/chromium"
# What Debian's chromium needs to run headless in a container without reaching out to Google's hosts.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = REPO / "test-artifacts"


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    executable = require_tool(CHROMIUM, "Debian chromium: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(executable), headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
