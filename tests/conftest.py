"""pytest set-up shared by all tests.

With DEPYF_FAIL_ON_SKIP=1 (set by scripts/test.sh, hence by CI) a run that skips any
test fails: CI installs torch, so a skipped torch test means something is broken.
"""

import os


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("DEPYF_FAIL_ON_SKIP") != "1":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and session.exitstatus == 0:
        reporter.write_line(
            f"DEPYF_FAIL_ON_SKIP: {len(skipped)} test(s) skipped; failing the run", red=True
        )
        session.exitstatus = 1
