# The two quick-start commands, and the helpers around them.
#   make run    configure + build (Release), run the default benchmark suite (GPU if present, else CPU),
#               write results/bench.{json,csv,md}, the plots results/*.png and a rendered scene,
#               results/render.png
#   make test   configure + build, run every test with ctest, in parallel (GPU tests skip without a GPU)
# Both install missing Debian packages when run as root (scripts/deps), else print the install line.
PRESET ?= release
SWATH := build/$(PRESET)/swath
RESULTS ?= results
# A Python that has matplotlib: the one on PATH, or Debian's (python3-matplotlib).
PYTHON ?= $(shell for p in python3 /usr/bin/python3; do $$p -c 'import matplotlib' >/dev/null 2>&1 && { echo $$p; break; }; done)

.PHONY: run test build sanitize model plots docs sass clean

build:
	cmake --preset $(PRESET)
	cmake --build --preset $(PRESET)

run:
	scripts/deps run
	$(MAKE) --no-print-directory build
	mkdir -p $(RESULTS)
	$(SWATH) bench all --json $(RESULTS)/bench.json --csv $(RESULTS)/bench.csv --md $(RESULTS)/bench.md
	$(SWATH) render --scene scenes/spheres.json --out $(RESULTS)/render.png
	$(MAKE) --no-print-directory plots

# ctest runs one test process per core, each with an OpenMP team of cores / jobs threads (one on a machine
# where jobs = cores), so tests never oversubscribe the cores; `make sanitize` runs them one at a time
# with the full team, so the multi-thread paths of the OpenMP steps stay covered. Measured on 2 cores
# (CPU tests): serial with 2 threads 21.0 s, 2 jobs of 1 thread 20.4 s; every test of the cpu preset, the
# consumers included: serial 66.9 s, parallel 62.9 s.
TEST_JOBS ?= $(shell nproc)
TEST_THREADS ?= $(shell echo $$(( $$(nproc) / $(TEST_JOBS) > 1 ? $$(nproc) / $(TEST_JOBS) : 1 )))
test:
	scripts/deps build
	$(MAKE) --no-print-directory build
	OMP_NUM_THREADS=$(TEST_THREADS) OMP_WAIT_POLICY=passive ctest --preset $(PRESET) --parallel $(TEST_JOBS)

# The CPU backend under AddressSanitizer and UndefinedBehaviorSanitizer (CI runs this after `make test`).
sanitize:
	scripts/deps build
	cmake --preset sanitize
	cmake --build --preset sanitize
	ctest --preset sanitize

# The cache model against cachegrind's simulated cache (CI runs this too): a build without -march=native
# (valgrind cannot run AVX-512) and the ctest label `model`.
model:
	scripts/deps model
	cmake --preset model
	cmake --build --preset model
	ctest --preset model
	@cat build/model/model-checks/cachegrind-stencil.md
	@cat build/model/model-checks/cachegrind-iterate.md

plots:
	@if [ -n "$(PYTHON)" ]; then $(PYTHON) tools/plot.py $(RESULTS)/bench.json --out $(RESULTS); \
	else echo "plots skipped: no Python with matplotlib (install: sudo apt-get install python3-matplotlib)"; fi

# Regenerate the README's and docs/' results tables and plots from bench/results/<gpu>/*.json.
docs:
	$(PYTHON) tools/tables.py

# The SGEMM slice loops as ptxas scheduled them in this build (needs the CUDA toolkit's cuobjdump):
# instruction counts and a digest per kernel, to compare with the ones measured (docs/gemm.md).
sass: build
	python3 tools/sass_loops.py $$(find build/$(PRESET)/src -path '*cuda/gemm/*.o' | sort)

clean:
	rm -rf build results
