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
DEMO_STAMP  := $(VENV)/.nastui-demo

# Debian packages the test suite drives for real (see tests/integration and ../shared/lab).
APT_PACKAGES := systemd tmux htop glances util-linux fdisk btrfs-progs fio openipmi ipmitool smartmontools sg3-utils ledmon e2fsprogs hdparm sdparm snmpd snmp libsnmp40 libsnmp-base nut-server nut-client zsh fish groff-base man-db bsdextrautils prometheus smitools python3-venv

# snmpsim (PyPI) serves SNMP recordings to the fleet tests. As root it must drop privileges to
# nobody, who cannot read a Python under /root: its venv is built from Debian's python3 in a
# directory everyone can read (tests look there, or at $$NASTUI_SNMPSIM).
SNMPSIM_DIR ?= /opt/nastui-test/snmpsim
SNMPSIM     := $(SNMPSIM_DIR)/bin/snmpsim-command-responder

.PHONY: demo test lint typecheck unit perf screenshots apt snmpsim venv clean lab lab-full lab-setup check

demo: $(DEMO_STAMP)
	$(BIN)/nastui --demo --scenario $(SCENARIO)

test: apt snmpsim $(STAMP) lint typecheck unit matrix lab

lint: $(STAMP)
	$(BIN)/ruff check nastui tests
	$(BIN)/ruff format --check nastui tests
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

# The whole suite in two runs that between them select every test: what needs no real tool on
# every core (pytest-xdist), then the integration tests one at a time (loop devices, tmux
# servers and ports are global). Exit 5 is "nothing selected" (PYTEST_ARGS naming one file).
unit: $(STAMP)
	$(BIN)/pytest $(UNIT_PARALLEL) -m "not integration" $(PYTEST_ARGS) || [ $$? = 5 ]
	$(BIN)/pytest -m integration $(PYTEST_ARGS) || [ $$? = 5 ]

perf: apt snmpsim $(STAMP)
	$(BIN)/python -m tests.perf

screenshots: $(STAMP)
	$(BIN)/python -m nastui.ui.screenshots screenshots

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "nastui needs Python 3.11 or newer: set PYTHON=python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip --version >/dev/null 2>&1 || $(BIN)/python -m ensurepip --upgrade >/dev/null
	$(BIN)/python -m pip install --quiet --upgrade 'pip>=25.1'
	$(BIN)/python -m pip install --quiet -e '.[snmp,apprise]' --group dev
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
	rm -rf $(VENV) $(VENV)-3.* .mypy_cache .ruff_cache .pytest_cache dist build

# ---------------------------------------------------------------- reach (issue 22)
# strace follows every write of a demo command (tests/cli/test_demo_footprint.py).
APT_PACKAGES += strace

# The demo needs nastui and its dependencies, nothing else: no dev tools, no extras, no pip
# upgrade, no byte-compiling of files never imported. Where $(PYTHON) has pip (>= 22.3), it
# installs into a venv made without one (ensurepip alone costs more than the rest); otherwise
# the venv's own pip does. `make test` later adds pip and the rest to the same .venv.
# (DEMO_STAMP is set at the top: a prerequisite is read where the rule stands.)
$(DEMO_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "nastui needs Python 3.11 or newer: set PYTHON=python3.11")'
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ]; then :; \
	elif test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV); then \
	  if $(PYTHON) -m pip --python $(BIN)/python --version >/dev/null 2>&1; then \
	    $(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile -e .; \
	  else \
	    $(BIN)/python -m ensurepip --upgrade >/dev/null && \
	    $(BIN)/python -m pip install --quiet --no-compile -e .; \
	  fi; \
	else exit 1; fi
	@touch $@

# The Python matrix: the whole suite runs on $(PYTHON) above; each other Python the distributions
# ship runs the tests nearest the interpreter (start-up, the interface, the commands in a real
# terminal) in a venv of its own, .venv-X.Y, from pyenv's newest X.Y, else pythonX.Y on the PATH.
# Under NASTUI_REQUIRE_INTEGRATION=1 (CI) a missing required Python fails; an optional one
# (3.14: pyenv builds it from python.org's sources) is said and skipped.
MATRIX_REQUIRED ?= 3.11 3.12 3.13
MATRIX_OPTIONAL ?= 3.14
# Start-up under each interpreter's event loop (the eager task factory of 3.12+), the keyboard
# through Textual's Pilot, the command line, and the interface in a real pty and tmux: where a
# new Python breaks nastui (~90 tests, a minute or two each on two cores). Story-length CLI
# scenarios stay with the whole suite.
MATRIX_TESTS    ?= tests/ui/test_start_eager.py tests/ui/test_pilot.py tests/ui/test_launch.py \
                   tests/ui/test_quietinput.py tests/ui/test_fleet_alerts_pilot.py \
                   tests/ui/test_first_frame.py tests/ui/test_history_load.py \
                   tests/ui/test_lazy_start.py tests/unit/test_entry_loading.py \
                   tests/cli/test_parser_named.py tests/cli/test_cli.py \
                   tests/integration/test_terminal.py
MATRIX_PYTEST   ?= -q -n 2 -p no:cacheprovider
PYENV_ROOT      ?= $(HOME)/.pyenv
# Extras whose dependencies declare a Python ceiling: "extra:first-unsupported-minor".
CAPPED_EXTRAS   := snmp:3.14

# $(call find_python,3.12): the interpreter's path, or nothing.
find_python = $(or $(lastword $(shell ls -d $(PYENV_ROOT)/versions/$(1).*/bin/python$(1) 2>/dev/null | sort -V)),$(shell command -v python$(1) 2>/dev/null))
# $(call extras_for,3.14): the extras that install on that Python (the rest are said, not tried).
extras_for = $(shell v=$(1); out=apprise; for c in $(CAPPED_EXTRAS); do \
  e=$${c%%:*}; cap=$${c#*:}; \
  if [ "$$(printf '%s\n%s\n' $$cap $$v | sort -V | head -1)" = "$$cap" ]; then :; else out=$$out,$$e; fi; done; echo $$out)

MATRIX_TARGETS  := $(addprefix matrix-,$(MATRIX_REQUIRED) $(MATRIX_OPTIONAL))
.PHONY: matrix dist $(MATRIX_TARGETS)

matrix: $(MATRIX_TARGETS)

$(MATRIX_TARGETS): matrix-%:
	@main=$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])'); \
	py="$(call find_python,$*)"; \
	if [ "$$main" = "$*" ]; then echo "matrix $*: $(PYTHON) is $*: \`make unit\` runs the whole suite on it"; exit 0; fi; \
	if [ -z "$$py" ]; then \
	  case " $(MATRIX_REQUIRED) " in *" $* "*) \
	    echo "matrix $*: no Python $* (pyenv install $*, or the distribution's python$*)"; \
	    [ "$$NASTUI_REQUIRE_INTEGRATION" != 1 ] || exit 1; exit 0;; esac; \
	  echo "matrix $*: no Python $* here (pyenv install $* needs python.org; skipped)"; exit 0; \
	fi; \
	extras="$(call extras_for,$*)"; \
	for c in $(CAPPED_EXTRAS); do case ",$$extras," in *",$${c%%:*},"*) ;; \
	  *) echo "matrix $*: the $${c%%:*} extra is unavailable on Python $* (its dependencies declare Python < $${c#*:})";; esac; done; \
	echo "matrix $*: $$($$py -c 'import sys; print(sys.version.split()[0])') ($$py), extras $$extras"; \
	v=$(VENV)-$*; \
	if [ ! -f $$v/.nastui-installed ] || [ pyproject.toml -nt $$v/.nastui-installed ]; then \
	  { test -x $$v/bin/python || $$py -m venv $$v; } && \
	  $$v/bin/python -m pip install --quiet --upgrade 'pip>=25.1' && \
	  $$v/bin/python -m pip install --quiet -e ".[$$extras]" --group dev && \
	  touch $$v/.nastui-installed || exit 1; \
	fi; \
	$$v/bin/pytest $(MATRIX_PYTEST) $(MATRIX_TESTS)

# Installs without a package index: the wheel and the sdist, and nastui.pyz, one file with
# nastui and its pure-Python dependencies (a dependency with a compiled part has no
# py3-none-any wheel and stops the build here) that runs with the system's python3 >= 3.11.
DIST_DIR    ?= dist
PYZ_BUILD   ?= build/pyz
DIST_PYTHON ?= $(BIN)/python

dist: $(if $(filter $(BIN)/python,$(DIST_PYTHON)),$(STAMP))
	rm -rf $(DIST_DIR) $(PYZ_BUILD)
	$(DIST_PYTHON) -m build --outdir $(DIST_DIR) .
	$(DIST_PYTHON) -m pip install --quiet --target $(PYZ_BUILD) --no-compile --only-binary=:all: \
	  --platform any --implementation py --python-version 3.11 --abi none $(DIST_DIR)/nastui-*.whl
	rm -rf $(PYZ_BUILD)/bin
	cp contrib/zipapp/__main__.py $(PYZ_BUILD)/__main__.py
	$(DIST_PYTHON) -m zipapp $(PYZ_BUILD) --output $(DIST_DIR)/nastui.pyz --python '/usr/bin/env python3' --compress
	@ls -l $(DIST_DIR)

# ---------------------------------------------------------------- tiers (issue 23)
# `make check`: the answer while working, in under two minutes on two cores. Lint, types and
# the import contracts run beside the unit and CLI tests (the CLI in process: tests/inproc.py),
# which run on every core; integration, slow and host tests (those that read this machine on
# purpose) are left out (tests/integration is integration throughout:
# tests/integration/conftest.py). It ends with its time and the load it ran under. `make test`
# stays the whole suite, and is what CI runs.
UNIT_PARALLEL ?= -n auto --dist worksteal
CHECK_TESTS   ?= tests/unit tests/cli
CHECK_MARKERS ?= not integration and not slow and not host
CHECK_PYTEST  ?= -q $(UNIT_PARALLEL)

check: $(STAMP)
	@start=$$(date +%s); load=$$(cut -d' ' -f1-3 /proc/loadavg); static=$$(mktemp); \
	{ $(BIN)/ruff check nastui tests && $(BIN)/ruff format --check nastui tests && \
	  $(BIN)/lint-imports && $(BIN)/mypy; } >$$static 2>&1 & pid=$$!; \
	$(BIN)/pytest $(CHECK_PYTEST) -m "$(CHECK_MARKERS)" $(CHECK_TESTS) $(PYTEST_ARGS); tests=$$?; \
	wait $$pid; lint=$$?; \
	if [ $$lint = 0 ]; then echo "lint, types, import contracts: clean"; else cat $$static; fi; \
	rm -f $$static; \
	verdict=passed; [ $$tests$$lint = 00 ] || verdict=FAILED; \
	echo "make check: $$verdict in $$(( $$(date +%s) - start )) s (load average $$load at the start, $$(nproc) cores)"; \
	[ $$verdict = passed ]
