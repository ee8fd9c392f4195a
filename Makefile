# MRC Lab. `sudo make demo` and `sudo make test` work on a fresh Debian 12 / Ubuntu 22.04+
# machine: both run the (idempotent, fast when nothing changed) setup first.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=

.PHONY: help setup demo test unit integration lint bench soak fuzz clean endpoint

help:
	@echo "make setup        install system packages and .venv (root; idempotent)"
	@echo "make demo         setup, then bring up the fat-tree demo (root)"
	@echo "make test         setup, then the whole test suite: unit + integration (root)"
	@echo "make unit         unit tests only (no root needed once set up)"
	@echo "make integration  Mininet/namespace integration tests only (root)"
	@echo "make lint         ruff over the tree"
	@echo "make endpoint     compile the endpoint's per-packet modules with mypyc (into a cache)"
	@echo "make bench        run the benchmarks and print their figures"
	@echo "make soak         the k=4 lab through churn for SOAK_MINUTES (60) minutes (root)"
	@echo "make fuzz         FUZZ_FRAMES (1 M) fuzzed frames, compiled vs Python pipeline and TM, ASan+UBSan"
	@echo "make clean        remove build/, stale Mininet state and leftover switch processes"

setup:
	@echo "== setup: scripts/setup.sh"
	@bash scripts/setup.sh

demo: setup
	@echo "== demo: fat-tree k=4 on p4emu (or BMv2 when installed), pingall, one sprayed transfer"
	@$(PY) scripts/demo.py

test: setup
	@echo "== test: pytest tests/ (unit + integration)"
	@$(PY) -m pytest tests $(PYTEST_ARGS)

unit:
	@echo "== unit: pytest tests/unit"
	@$(PY) -m pytest tests/unit $(PYTEST_ARGS)

integration: setup
	@echo "== integration: pytest tests/integration"
	@$(PY) -m pytest tests/integration $(PYTEST_ARGS)

endpoint:
	@echo "== endpoint: mypyc over the endpoint's per-packet modules (MRCLAB_ENDPOINT_COMPILED=0: the pure-Python ones)"
	@$(PY) -m mrclab.endpoint.accelerate build

lint:
	@echo "== lint: ruff check ."
	@$(PY) -m ruff check .

bench:
	@echo "== bench: p4emu pipeline, p4emu switch, endpoint, fabric bring-up"
	@$(PY) -m p4emu bench --pipeline both
	@$(PY) -m p4emu bench mrclab/p4src/mrc.p4 --entries scripts/bench_mrc.stf --pipeline both
	@$(PY) scripts/bench_switch.py
	@$(PY) scripts/bench_endpoint.py
	@$(PY) scripts/bench_fabric.py
	@echo "== bench: the simulator, native fabric (k = 4, 8, 12, 16; 8 planes of k=8), then the Python reference at k=8"
	@$(PY) scripts/bench_sim.py
	@$(PY) scripts/bench_sim.py --k 8 --planes 0 --fabric python

SOAK_MINUTES ?= 60
soak: setup
	@echo "== soak: fat-tree k=4, $(SOAK_MINUTES) min of transfers, link failures, switch and controller restarts"
	@$(PY) -m mrclab.lab.soak --minutes $(SOAK_MINUTES) --out results/soak

FUZZ_FRAMES ?= 1000000
FUZZ_MINUTES ?= 120
FUZZ_JOBS ?= 2
fuzz:
	@echo "== fuzz: $(FUZZ_FRAMES) frames (at most $(FUZZ_MINUTES) min), mrc.p4 and tests/p4, sanitized build, compiled vs Python"
	@nice $(PY) scripts/fuzz_native.py --frames $(FUZZ_FRAMES) --minutes $(FUZZ_MINUTES) --jobs $(FUZZ_JOBS)

clean:
	@echo "== clean: build/, Mininet leftovers, stray switch processes"
	@-$(PY) -m mrclab.lab.cleanup || mn -c >/dev/null 2>&1 || true
	@rm -rf build
