# The two commands of README.md. Everything the tests need is installed from the project's own files.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test test-fast test-soak install tools bench clean

run: install
	$(VENV)/bin/mintprep run collection/collection.yaml

# Two workers, a test file per worker at a time (module fixtures such as a Ray cluster start once per file).
XDIST := -n 2 --dist loadfile

test: install tools
	$(PY) -m pytest -q -p no:cacheprovider $(XDIST) -m "not soak"

# Full-scale runs that take minutes of wall clock (the 32 MiB upload over a 2 Mbit/s link); scaled copies run in `test`.
test-soak: install
	$(PY) -m pytest -q -p no:cacheprovider -m soak

# The inner loop: every test but those marked browser (Chromium), anvil (a contract node), ray (a Ray cluster) or
# slow; tests/conftest.py sets the first three from the fixtures a test uses. CI runs `test`.
test-fast: install
	$(PY) -m pytest -q -p no:cacheprovider $(XDIST) -m "not browser and not anvil and not ray and not slow and not soak"

# torch is pinned here (not in pyproject, which asks torch>=2.4) because this exact CPU build is on the
# machines' local disk; an unpinned install would fetch a multi-GB CUDA build.
install: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[test,ray]'
	touch $@

# anvil + solc-js + OpenZeppelin + the thirdweb package from the npm lock file; the Zora and Manifold packages,
# which cannot be npm dependencies (contracts/vendor_npm.js says why), unpacked from the registry with their
# integrity pinned in contracts/package.json; Debian's chromium for the browser tests, and its openssl tool for
# the TLS deadline test's self-signed certificate.
tools: contracts/node_modules/.installed contracts/vendor-npm/.installed /usr/bin/chromium /usr/bin/openssl
contracts/node_modules/.installed: contracts/package-lock.json
	npm ci --prefix contracts --no-audit --no-fund
	touch $@
contracts/vendor-npm/.installed: contracts/package.json contracts/vendor_npm.js
	node contracts/vendor_npm.js
	touch $@
/usr/bin/chromium:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
/usr/bin/openssl:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl >/dev/null

bench: install tools
	for b in bench/bench_*.py; do $(PY) $$b; done

clean:
	rm -rf collection/.mintprep collection/site
