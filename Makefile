# The two commands: `make demo` and `make test`. Both install what they need.
.PHONY: demo test test-fast bench install clean

install:
	@bash scripts/bootstrap.sh

demo: install
	.venv/bin/farm run suites/demo --devices browser:2

# Three pytest processes (FARM_TEST_WORKERS=N for N; 0: the tests in make's own process): most of
# an integration test's time is spent waiting for a browser, a worker or a server, so on 2 cores
# two processes kept the cores 46% busy, three 61% (wall time 0.72x two's), four 75% (0.61x).
# A module's tests stay in one process (its browser fixture is module-scoped).
test: install
	.venv/bin/python -m pytest tests -q -p no:cacheprovider --durations=25 \
	  -n $${FARM_TEST_WORKERS:-3} --dist loadfile

test-fast: install
	.venv/bin/python -m pytest tests/unit -q

bench: install
	.venv/bin/python bench/startup.py
	.venv/bin/python bench/load.py
	.venv/bin/python bench/agent_loop.py --reply-mb 0
	.venv/bin/python bench/screenshot.py
	.venv/bin/python bench/hierarchy.py
	.venv/bin/python bench/scroll.py
	.venv/bin/python bench/locate_tiers.py
	.venv/bin/python bench/scheduler.py --seeds 10
	.venv/bin/python bench/dispatch.py
	.venv/bin/python bench/metrics.py
	.venv/bin/python bench/replay.py
	.venv/bin/python bench/report.py
	.venv/bin/python bench/vs_playwright.py --pairs 5
	.venv/bin/python bench/cpu_profile.py
	.venv/bin/python bench/messages.py
	.venv/bin/python bench/floors.py
	.venv/bin/python bench/console.py

clean:
	rm -rf .farm .venv *.egg-info
