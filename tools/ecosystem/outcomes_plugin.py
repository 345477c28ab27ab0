"""A pytest plugin that writes each test's outcome to the JSON file named by
``ECOSYSTEM_OUTCOMES`` (``{node id: "passed" | "failed" | "skipped" | "xfailed" |
"error"}``), so that a library's own tests run under JAX and under glassjax can be
compared test by test (``suites.py``). Under xdist only the controller writes."""
import json
import os

_outcomes = {}


def pytest_runtest_logreport(report):
    if report.when == "call":
        outcome = report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "passed"
        _outcomes[report.nodeid] = outcome
    elif report.outcome != "passed":        # setup or teardown failed, or a skip in setup
        if report.nodeid not in _outcomes or report.failed:
            _outcomes[report.nodeid] = "error" if report.failed else report.outcome


def pytest_collectreport(report):
    if report.failed:
        _outcomes[report.nodeid or "<collection>"] = "error"


def pytest_sessionfinish(session):
    path = os.environ.get("ECOSYSTEM_OUTCOMES")
    if path and not hasattr(session.config, "workerinput"):
        with open(path, "w") as f:
            json.dump(dict(sorted(_outcomes.items())), f, indent=0)
