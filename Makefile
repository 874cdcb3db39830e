# nastui: the two commands a new user types are `make demo` and `make test`.
#
# Everything installs itself: Debian packages through apt (only when run as root and only those
# missing), Python packages into .venv (only when pyproject.toml changed since the last install):
# nastui with its optional extras (snmp, apprise: the tests use them) and the `dev` dependency
# group (PEP 735, which needs pip >= 25.1: the recipe upgrades pip first).

PYTHON      ?= python3
VENV        ?= .venv
BIN         := $(VENV)/bin
STAMP       := $(VENV)/.nastui-installed
SCENARIO    ?= healthy-24-bay

# Debian packages the test suite drives for real (see tests/integration and ../shared/lab).
APT_PACKAGES := systemd tmux util-linux fdisk btrfs-progs fio openipmi ipmitool smartmontools sg3-utils ledmon e2fsprogs hdparm sdparm snmpd snmp libsnmp40 libsnmp-base nut-server nut-client zsh fish groff-base man-db bsdextrautils prometheus smitools python3-venv

# snmpsim (PyPI) serves SNMP recordings to the fleet tests. As root it must drop privileges to
# nobody, who cannot read a Python under /root: its venv is built from Debian's python3 in a
# directory everyone can read (tests look there, or at $$NASTUI_SNMPSIM).
SNMPSIM_DIR ?= /opt/nastui-test/snmpsim
SNMPSIM     := $(SNMPSIM_DIR)/bin/snmpsim-command-responder

.PHONY: demo test lint typecheck unit perf screenshots apt snmpsim venv clean lab lab-full lab-setup

demo: $(STAMP)
	$(BIN)/nastui --demo --scenario $(SCENARIO)

test: apt snmpsim $(STAMP) lint typecheck unit lab

lint: $(STAMP)
	$(BIN)/ruff check nastui tests
	$(BIN)/ruff format --check nastui tests
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest $(PYTEST_ARGS)

perf: snmpsim $(STAMP)
	$(BIN)/python -m tests.perf

screenshots: $(STAMP)
	$(BIN)/python -m nastui.ui.screenshots screenshots

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "nastui needs Python 3.11 or newer: set PYTHON=python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade 'pip>=25.1'
	$(BIN)/python -m pip install --quiet -e '.[snmp,apprise,prometheus]' --group dev
	@touch $(STAMP)

# The NAS lab (tests/lab, README "Lab"): nastui against a real kernel with OpenZFS, md,
# device-mapper, partitions, ATA SMART and hot-swap bays, in a QEMU guest. `lab-setup` installs
# what it needs as root (contrib/backports sources, QEMU, Debian's kernel, OpenZFS built by
# DKMS once); `lab` runs the CI scenarios in one boot, `lab-full` all of them and a second
# guest on OpenZFS 2.1.11. Results (every command, its output, timings) stay in $(LAB_DIR)/runs.
LAB_DIR          ?= /var/tmp/nastui-lab
LAB_PYTEST_ARGS  ?=
LAB_PYTEST        = NASTUI_LAB=1 NASTUI_LAB_DIR=$(LAB_DIR) $(BIN)/pytest -p no:cacheprovider -o timeout=3600 tests/lab $(LAB_PYTEST_ARGS)

lab-setup:
	@bash tests/lab/provision.sh

lab: lab-setup $(STAMP)
	$(LAB_PYTEST)

lab-full: $(STAMP)
	@LAB_ZFS21=1 bash tests/lab/provision.sh
	NASTUI_LAB_FULL=1 $(LAB_PYTEST)

# Install what is missing, and only as root; otherwise say what is missing and carry on
# (the tests that need a tool then fail or skip, and say which tool).
apt:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "apt: installing$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else \
	    echo "apt: missing Debian packages:$$missing (install them as root: apt-get install$$missing)"; \
	  fi; \
	fi

# Only as root (like apt); otherwise say what is missing and carry on.
snmpsim:
	@if [ -x $(SNMPSIM) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && [ -x /usr/bin/python3 ]; then \
	  echo "snmpsim: installing into $(SNMPSIM_DIR)"; \
	  /usr/bin/python3 -m venv $(SNMPSIM_DIR) && \
	  $(SNMPSIM_DIR)/bin/python -m pip install --quiet snmpsim pysmi && \
	  chmod -R a+rX $(SNMPSIM_DIR); \
	else \
	  echo "snmpsim: missing $(SNMPSIM) (as root: make snmpsim, or set NASTUI_SNMPSIM)"; \
	fi

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
