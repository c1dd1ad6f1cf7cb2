# Two commands on a fresh machine: `make build` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
ARGS   ?=
BIN    ?= $(HOME)/.local/bin
# Ghostscript's SWOP profile (AGPL, so not shipped): pnp export --profile dtc converts to CMYK with it
CMYK_ICC := /usr/share/color/icc/ghostscript/default_cmyk.icc

.PHONY: build test check bench validate clean browser cmyk-profile install hostile strace eatmydata bytepin

# the system libraries pnp draws and spells with (cairo, Pango, libseccomp, libvips, libhunspell and
# the Hunspell dictionaries): one list, in .ci/syslibs.sh,
# which the GitHub Action (action.yml) and the container image (Dockerfile) install too
SYSLIBS := .ci/syslibs.sh

$(STAMP): pyproject.toml constraints.txt
	@PYTHON=$(PYTHON) sh $(SYSLIBS) install
	$(PYTHON) -m venv $(VENV)
	@# setuptools' "Editable installation" notice is information about editable installs in general;
	@# pip compiles one file after another: compileall does it on every core (10 s less here)
	PYTHONWARNINGS="ignore:Editable installation" $(PY) -m pip install -q --no-compile -c constraints.txt -e '.[test]'
	$(PY) -m compileall -q -j 0 $(VENV)/lib >/dev/null
	@touch $(STAMP)

# pnp's own modules compiled once, on every core: every pnp process the tests start (and a
# shell whose PYTHONDONTWRITEBYTECODE is set) then reads them compiled instead of compiling
# them again (0.3-0.4 CPU s a start-up); Python recompiles any file edited since
BYTECODE := $(PY) -m compileall -q -j 0 generator tests benchmarks >/dev/null
# pytest keeps each test module as it rewrote it (assertions that explain their failure) in
# tests/__pycache__ only where Python may write bytecode: with PYTHONDONTWRITEBYTECODE set,
# every test worker rewrote every test module again on every run (about 7 CPU s a worker)
# and under eatmydata: every build a test runs writes its files as pnp always does (each fsynced
# before it is renamed into place), which on a virtual disk waits 5-30 ms a file, thousands of
# times a run; the tests see renames, never a power cut, so the waits only make them slower
PYTEST := env -u PYTHONDONTWRITEBYTECODE eatmydata $(PY) -m pytest

build: $(STAMP)
	@$(BYTECODE)
	$(VENV)/bin/pnp build $(ARGS)

# `pnp` on your PATH from any folder: a link in ~/.local/bin (BIN=...) to this project's own pnp
# (pipx install . is the other way: see docs/install.md)
install: $(STAMP)
	@mkdir -p "$(BIN)"
	ln -sfn "$(abspath $(VENV))/bin/pnp" "$(BIN)/pnp"
	@case ":$$PATH:" in *":$(BIN):"*) echo "pnp is on your PATH: try pnp --help";; \
	  *) echo "$(BIN) is not on your PATH yet: add  export PATH=\"$(BIN):\$$PATH\"  to ~/.profile";; esac

# the live preview is tested end to end in Debian's chromium: install it, or fail loudly
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  { echo "chromium is missing (the live preview is tested in it); installing Debian's chromium"; \
	    (apt-get install -y chromium chromium-driver || (apt-get update && apt-get install -y chromium chromium-driver)) >/dev/null \
	    || { echo "cannot install chromium and chromium-driver: the preview test needs them"; exit 1; }; }

# DriveThruCards' PDF/X-1a is converted to CMYK with Ghostscript's profile, and its total ink is
# measured on the pages rendered in CMYK by Ghostscript: install both, or fail loudly
cmyk-profile:
	@test -f $(CMYK_ICC) && command -v gs >/dev/null || \
	  { echo "Ghostscript or its CMYK profile is missing (DriveThruCards' PDF/X-1a and its ink check); installing ghostscript"; \
	    (apt-get install -y ghostscript libgs-common || (apt-get update && apt-get install -y ghostscript libgs-common)) >/dev/null \
	    || { echo "cannot install ghostscript: pnp export --profile dtc and its tests need it"; exit 1; }; }

test: $(STAMP) browser cmyk-profile strace eatmydata
	@$(BYTECODE)
	$(VENV)/bin/ruff check generator tests benchmarks
	@# mypy runs beside the tests, on the CPU they leave idle now and then; either failing fails
	@log=$$(mktemp); echo "$(VENV)/bin/mypy (beside the tests)"; $(VENV)/bin/mypy >$$log 2>&1 & types=$$!; \
	  $(PYTEST) -n auto --dist worksteal --durations=0 --durations-min=2; tests=$$?; \
	  wait $$types; typed=$$?; cat $$log; rm -f $$log; test $$tests -eq 0 -a $$typed -eq 0

# the fast tier, about a minute on two cores while you work: lint, and the tests not marked slow
# (every package of generator/ is reached; none waits for a build of the shipped games, an
# export, a fresh process or a timeout: tests/test_tiers.py); make test runs everything: the
# slow tests, vulture's dead-code check (tests/test_house.py) and mypy
check: $(STAMP) eatmydata
	@$(BYTECODE)
	$(VENV)/bin/ruff check generator tests benchmarks
	$(PYTEST) -n auto --dist worksteal -m "not slow"

# the hostile-project suite: pnp validate/build on projects a stranger could send, watched by strace
hostile: $(STAMP) strace
	$(PY) -m tests.hostile_suite $(ARGS)

# strace watches what pnp does on a hostile project (make hostile, and a few of its cases in make test)
strace:
	@command -v strace >/dev/null || { echo "strace is missing (the hostile-project suite watches pnp with it); installing it"; \
	  (apt-get install -y strace || (apt-get update && apt-get install -y strace)) >/dev/null \
	  || { echo "cannot install strace"; exit 1; }; }

# the tests run under eatmydata (PYTEST above): fsync a no-op for them and the processes they start
eatmydata:
	@command -v eatmydata >/dev/null || { echo "eatmydata is missing (the tests run under it: no waits on the disk's fsync); installing it"; \
	  (apt-get install -y eatmydata || (apt-get update && apt-get install -y eatmydata)) >/dev/null \
	  || { echo "cannot install eatmydata"; exit 1; }; }

validate: $(STAMP)
	$(VENV)/bin/pnp validate $(ARGS)

# the guard first: this tree beside REF (default: the last tag, else benchmarks/history.py's DEFAULT_REF),
# interleaved in one run, at 540 and 5,400 cards; ARGS=--large (or BENCH_LARGE=1) adds 10,000
bench: $(STAMP)
	$(PY) benchmarks/history.py --against $(REF) $(if $(BENCH_LARGE),--large) $(ARGS)
	$(PY) benchmarks/bench_deck.py
	$(PY) benchmarks/bench_art.py
	$(PY) benchmarks/bench_editions.py
	$(PY) benchmarks/bench_untrusted.py
	$(PY) benchmarks/bench_oneshot.py
	$(PY) benchmarks/bench_watch.py --repeat 1

clean:
	rm -rf output/*/ output/.cache

# the byte pin: every shipped game (and, with EXPORTS=1, exports) written by this tree's code and by
# REF's, compared byte for byte (a change meant to change no output)
bytepin: $(STAMP)
	$(PY) -m tests.bytepin $(REF) $(if $(EXPORTS),--exports)
