"""Shared test settings: async tests run on asyncio through anyio's pytest plugin, property
tests are derandomized in CI so a landing never depends on which examples were drawn (locally
they explore fresh examples on every run), and every test has a home of its own.

The suite runs in parallel (``scripts/test``: pytest-xdist, one process per worker). Each
worker has its own temporary directory (``tmp_path`` lives under ``popen-gwN``) and each test
its own home and XDG directories, so tests never share files; what cannot share the machine
with another test (it arranges pids, or measures time against a loaded CPU) is marked
``serial`` and runs after the others, alone. A passing test's temporary directories are
removed as it ends (``tmp_path_retention_policy``): the sandbox lists the siblings of the
home's ancestors, and a base directory crowded by every earlier test made each sandboxed
command slower than the one before.
"""

from __future__ import annotations

import functools
import inspect
import os
import shutil
import signal
from collections.abc import Generator, Iterator

import anyio
import pytest
from hypothesis import settings

from tests.support.closing import close_all
from tests.support.homes import private_home

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C reaches the programs the tests start, however the suite itself was started: a
    shell starting a command in the background (``scripts/test &``, ``nohup``, a CI step
    with job control off) starts it with SIGINT ignored, which every program it runs would
    inherit across exec — and the tests that press Ctrl-C at a terminal would then wait for
    an exit that never comes."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def anyio_backend() -> str:
    """Run ``@pytest.mark.anyio`` tests on asyncio, the loop toolbelt ships on."""
    return "asyncio"


_passed = pytest.StashKey[dict[str, bool]]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember whether each phase passed, for the fixtures that clean up after a pass."""
    report = yield
    item.stash.setdefault(_passed, {})[report.when] = report.passed
    return report


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Generator[None, object, object]:
    """An async test ends by closing the sessions it left open, in its own event loop
    (``tests/support/closing.py`` says why)."""
    test = pyfuncitem.obj
    if not inspect.iscoroutinefunction(test) or hasattr(test, "hypothesis"):
        return (yield)

    @functools.wraps(test)
    async def closing(*args: object, **kwargs: object) -> None:
        try:
            await test(*args, **kwargs)
        finally:
            with anyio.CancelScope(shield=True):
                await close_all()

    pyfuncitem.obj = closing
    try:
        return (yield)
    finally:
        pyfuncitem.obj = test


@pytest.fixture(autouse=True)
def _private_home(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[None]:
    """Every test gets a home and XDG directories of its own (inherited by the CLIs and servers
    it starts): nothing of the real user's configuration — ``~/.config/toolbelt/mcp.json``,
    settings, trust, tokens — reaches a test, and nothing a test writes reaches the user.
    Removed after a passing test, kept after a failing one (as ``tmp_path`` is)."""
    base = tmp_path_factory.mktemp("user")
    for variable, value in private_home(base).items():
        monkeypatch.setenv(variable, value)
    # Edit results are checked word for word: the tests of diagnostics after edits turn them on.
    monkeypatch.setenv("TOOLBELT_DIAGNOSTICS", "0")
    yield
    if request.node.stash.get(_passed, {}).get("call", False):
        shutil.rmtree(base, ignore_errors=True)
