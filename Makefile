# One entry point per job; each installs what it needs into .venv first (only python3 assumed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test fuzz golden bench bench-build bench-checkpoint bench-jacobian bench-ints \
	bench-dask docs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/quickstart.py

# two workers (pytest-xdist), each test file on one of them (a few files count what ran before)
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

# random NumPy programs against srcad's derivatives (tests/fuzz); shrunk failures in fuzz-failures/
COUNT ?= 2000
SEED ?=
fuzz: $(STAMP)
	SRCAD_VERIFY=1 $(BIN)/python -m tests.fuzz --count $(COUNT) $(if $(SEED),--seed $(SEED)) --out fuzz-failures

golden: $(STAMP)
	SRCAD_UPDATE_GOLDEN=1 $(BIN)/python -m pytest tests/test_golden.py

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python benchmarks/run.py

# memory and time of reverse mode through loops of 10,000 turns, with srcad.checkpoint and without
bench-checkpoint: $(STAMP)
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python benchmarks/checkpointing.py

# whole Jacobians and Hessians in one sweep against one sweep per row or column
bench-jacobian: $(STAMP)
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python benchmarks/jacobian.py

# dask's computations per gradient call on chunked dask arrays (0: lazy), installs the dask extra
bench-dask: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dask]"
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python benchmarks/dask_counts.py

# cold build time against function size and loop nesting (benchmarks/build_time.py; FULL=1 adds
# 10,000 statements)
FULL ?=
bench-build: $(STAMP)
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python benchmarks/build_time.py $(if $(FULL),--full)

# a step counter that changes every call: one build, against one build per call (int_args.py)
bench-ints: $(STAMP)
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python benchmarks/int_args.py

docs: $(STAMP)
	$(BIN)/python docs/generate.py

clean:
	rm -rf $(VENV) build *.egg-info
