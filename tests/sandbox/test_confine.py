"""The sandbox's profiles, enforced by the kernel: real bash under the confine launcher (or
bwrap), probing what a command can and cannot do."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from toolbelt.sandbox.landlock import abi_version
from toolbelt.sandbox.profiles import cover
from toolbelt.sandbox.sandbox import Sandbox, SandboxSettings, choose_backend
from toolbelt.sandbox.seccomp import program

needs_landlock = pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)")


@dataclass
class Box:
    workspace: Path
    home: Path
    outside: Path
    sandbox: Sandbox

    def run(self, command: str, profile: str = "workspace") -> subprocess.CompletedProcess[str]:
        argv = self.sandbox.wrap(["bash", "-c", command], profile, cwd=self.workspace)  # type: ignore[arg-type]
        env = self.sandbox.environment({"PATH": os.environ["PATH"], "HOME": str(self.home)})
        return subprocess.run(
            argv, cwd=self.workspace, env=env, capture_output=True, text=True, timeout=60
        )


def make_box(tmp_path: Path, mode: str, network: str | tuple[str, ...] = "off") -> Box:
    workspace, home, outside = tmp_path / "ws", tmp_path / "home", tmp_path / "outside"
    for directory in (workspace / "src", workspace / ".git" / "hooks", home / ".ssh", outside):
        directory.mkdir(parents=True)
    (workspace / "src" / "a.txt").write_text("in the workspace\n")
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    (home / "notes.txt").write_text("my notes\n")
    (outside / "secret.txt").write_text("TOPSECRET\n")
    state = tmp_path / "state"
    state.mkdir()
    (state / "exports.sh").touch()
    sandbox = Sandbox(
        SandboxSettings(mode=mode, network=network),
        [workspace],
        temp_dir=state / "tmp",
        state_dir=state,
        home=home,
    )
    return Box(workspace, home, outside, sandbox)


@pytest.fixture(params=["landlock", "bwrap"])
def box(request: pytest.FixtureRequest, tmp_path: Path) -> Box:
    if request.param == "landlock" and abi_version() < 4:
        pytest.skip("needs Landlock ABI 4 (Linux 6.7+)")
    if request.param == "bwrap" and not _bwrap_available():
        pytest.skip("bubblewrap is not installed or cannot create namespaces here")
    return make_box(tmp_path, request.param)


def _bwrap_available() -> bool:
    try:
        choose_backend("bwrap")
    except Exception:
        return False
    return True


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    yield server.getsockname()[1]
    server.close()


def test_workspace_profile_writes_only_inside_the_workspace(box: Box) -> None:
    result = box.run(
        f"echo new > src/b.txt && echo WROTE; touch {box.outside}/p1; touch /etc/evil; "
        "mkdir -p .git/hooks && echo x > .git/hooks/x; echo T > $TMPDIR/t && cat $TMPDIR/t"
    )
    assert result.stdout == "WROTE\nT\n"
    assert (box.workspace / "src" / "b.txt").read_text() == "new\n"
    assert not (box.outside / "p1").exists()
    assert not Path("/etc/evil").exists()
    assert not (box.workspace / ".git" / "hooks" / "x").exists()


def test_workspace_profile_hides_the_users_secrets_but_not_the_rest_of_home(box: Box) -> None:
    result = box.run("cat ~/.ssh/id_rsa; cat ~/notes.txt; cat /etc/hostname >/dev/null && echo SYS")
    assert "PRIVATE KEY" not in result.stdout
    assert result.stdout == "my notes\nSYS\n"


def test_no_network_no_signals_no_foreign_environ(box: Box, listener: int) -> None:
    outside = subprocess.Popen(["sleep", "60"], env={"SECRET_MARK": "abc123"})
    try:
        result = box.run(
            f"echo hi > /dev/tcp/127.0.0.1/{listener} && echo CONNECTED; "
            f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {listener}))' "
            f"2>/dev/null && echo PY_CONNECTED; cat /proc/{outside.pid}/environ; "
            f"kill -TERM {outside.pid} && echo KILLED; echo done"
        )
        assert result.stdout == "done\n"
        assert outside.poll() is None  # the process outside is untouched
        assert "abc123" not in result.stdout
    finally:
        outside.kill()
        outside.wait()


def test_shared_memory_is_the_sandboxs_own(box: Box) -> None:
    name = f"tb-shm-{os.getpid()}"
    code = "import multiprocessing; multiprocessing.Lock(); print('LOCK')"
    result = box.run(f'{sys.executable} -S -c "{code}" && touch /dev/shm/{name} && echo SHM')
    assert result.stdout == "LOCK\nSHM\n"  # Python's multiprocessing works...
    assert not Path("/dev/shm", name).exists()  # ...on a /dev/shm that is not the machine's


def test_readonly_profile_writes_nothing_and_reads_only_roots_and_system(box: Box) -> None:
    result = box.run(
        f"cat src/a.txt; touch src/new; touch {box.outside}/p; cat {box.outside}/secret.txt; "
        "cat ~/notes.txt; echo x >/dev/null && echo NULL; ls /usr/bin >/dev/null && echo SYS",
        "readonly",
    )
    assert result.stdout == "in the workspace\nNULL\nSYS\n"
    assert not (box.workspace / "src" / "new").exists()
    assert not (box.outside / "p").exists()


@needs_landlock
def test_network_port_list_allows_only_those_ports(tmp_path: Path, listener: int) -> None:
    other = socket.socket()
    other.bind(("127.0.0.1", 0))
    other.listen(1)
    try:
        box = make_box(tmp_path, "landlock", network=(f"localhost:{listener}",))
        port = other.getsockname()[1]
        result = box.run(
            f"echo a > /dev/tcp/127.0.0.1/{listener} && echo ALLOWED; "
            f"echo b > /dev/tcp/127.0.0.1/{port} && echo OTHER"
        )
        assert result.stdout == "ALLOWED\n"
    finally:
        other.close()


def test_protected_entries_stay_read_only_and_the_root_stays_writable(box: Box) -> None:
    (box.workspace / ".mcp.json").write_text("{}")
    result = box.run("echo '{\"x\":1}' > .mcp.json; touch newfile && rm src/a.txt && echo OK")
    assert (box.workspace / ".mcp.json").read_text() == "{}"
    assert (box.workspace / "newfile").exists()
    assert result.stdout == "OK\n"


@needs_landlock
def test_without_a_mount_namespace_landlock_grants_the_roots_entries_one_by_one(
    tmp_path: Path,
) -> None:
    from toolbelt.sandbox.confine import launcher_argv

    box = make_box(tmp_path, "landlock")
    grants = box.sandbox.grants("workspace")
    spec = {
        "landlock": {
            "read": grants.read,
            "list_only": grants.list_only,
            "write": grants.write,
            "mount": True,
            "roots": grants.roots,
            "entries": grants.entries,
            "protected": [str(tmp_path / "gone")],  # cannot be mounted: the fallback is used
        },
        "seccomp_network": False,
    }
    command = "touch src/b && echo SRC; touch newfile; touch .git/hooks/x; echo done"
    result = subprocess.run(
        launcher_argv(spec, ["bash", "-c", command]),
        cwd=box.workspace,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.stdout == "SRC\ndone\n"
    assert not (box.workspace / "newfile").exists()
    assert not (box.workspace / ".git" / "hooks" / "x").exists()


@needs_landlock
def test_tiocsti_and_ptrace_are_refused(tmp_path: Path) -> None:
    box = make_box(tmp_path, "landlock")
    code = (
        "import ctypes, fcntl, termios\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.ptrace(16, 1, 0, 0), ctypes.get_errno())\n"  # PTRACE_ATTACH to pid 1
        "try:\n    fcntl.ioctl(0, termios.TIOCSTI, b'x')\nexcept OSError as e: print(e.errno)\n"
    )
    result = box.run(f'{sys.executable} -S -c "{code}"')
    assert result.stdout == "-1 1\n1\n"  # EPERM from the filter, not ENOTTY from the pipe


def test_a_sandbox_that_cannot_apply_refuses_to_run(tmp_path: Path) -> None:
    from toolbelt.sandbox.confine import EXIT_UNCONFINED, launcher_argv

    argv = launcher_argv({"landlock": None, "seccomp_network": None}, ["/nonexistent/x"])
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert result.returncode == EXIT_UNCONFINED
    assert (
        result.stderr
        == "toolbelt sandbox: cannot run '/nonexistent/x': No such file or directory\n"
    )


def test_cover_reaches_everything_but_the_hidden_paths(tmp_path: Path) -> None:
    for name in ("a/b/secret", "a/b/other", "a/c", "d"):
        (tmp_path / name).mkdir(parents=True)
    readable, listable = cover(tmp_path, [tmp_path / "a" / "b" / "secret"])
    assert readable == [str(tmp_path / p) for p in ("a/b/other", "a/c", "d")]
    assert listable == [str(tmp_path / p) for p in ("", "a", "a/b")]


def test_seccomp_program_jumps_forward_and_refuses_sockets_when_offline() -> None:
    offline, online = program(network=False), program(network=True)
    assert all(jt >= 0 and jf >= 0 for _, jt, jf, _ in offline + online)
    assert len(online) == len(offline) + 4  # unix, inet, inet6, netlink allowed


def test_auto_without_any_backend_warns_once_and_explicit_choices_refuse(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolbelt.core.errors import UsageError
    from toolbelt.sandbox import backends

    monkeypatch.setattr(backends, "abi_version", lambda: 0)
    monkeypatch.setattr(backends, "_bwrap_works", lambda: False)
    monkeypatch.setattr(backends, "_warned", False)
    assert choose_backend("auto") is None
    assert choose_backend("auto") is None
    assert capsys.readouterr().err.count("WARNING: no OS sandbox is available") == 1
    with pytest.raises(UsageError, match="this kernel has no Landlock"):
        choose_backend("landlock")
    assert choose_backend("off") is None


@needs_landlock
def test_metadata_outside_cannot_change_where_the_launcher_can_mount(tmp_path: Path) -> None:
    from toolbelt.sandbox.backends import namespaces_work

    if not namespaces_work():
        pytest.skip("user namespaces are refused here: Landlock alone does not rule chmod")
    box = make_box(tmp_path, "landlock")
    target = box.outside / "secret.txt"
    target.chmod(0o600)
    before = target.stat()
    result = box.run(f"chmod 666 {target}; touch -d 2001-01-01 {target}; chmod +x src/a.txt")
    assert "Read-only file system" in result.stderr
    after = target.stat()
    assert (after.st_mode, after.st_mtime) == (before.st_mode, before.st_mtime)
    assert (box.workspace / "src" / "a.txt").stat().st_mode & 0o100  # inside: allowed
    readonly = box.run(f"chmod 666 {target}; chmod 600 src/a.txt", "readonly")
    assert readonly.stderr.count("Read-only file system") == 2
    assert target.stat().st_mode == before.st_mode
    assert (box.workspace / "src" / "a.txt").stat().st_mode & 0o100


@needs_landlock
def test_a_workspace_that_holds_the_secrets_still_hides_them(tmp_path: Path) -> None:
    box = make_box(tmp_path, "landlock")
    at_home = Sandbox(
        SandboxSettings(mode="landlock"),
        [box.home],  # the workspace is the home directory
        temp_dir=tmp_path / "state" / "tmp",
        state_dir=tmp_path / "state",
        home=box.home,
    )
    argv = at_home.wrap(
        ["bash", "-c", "cat .ssh/id_rsa; echo k > .ssh/new; echo n > notes.txt && echo OK"],
        "workspace",
        cwd=box.home,
    )
    result = subprocess.run(argv, cwd=box.home, capture_output=True, text=True, check=False)
    assert result.stdout == "OK\n"
    assert sorted(os.listdir(box.home / ".ssh")) == ["id_rsa"]
    assert (box.home / "notes.txt").read_text() == "n\n"


def test_links_renames_and_proc_paths_do_not_reach_outside(box: Box) -> None:
    secret = box.outside / "secret.txt"
    result = box.run(
        f"ln -s {secret} link && echo x > link; ln {secret} hard; mv {secret} moved; "
        f"cat /proc/self/root{box.home}/.ssh/id_rsa; cat link; echo end"
    )
    assert secret.read_text() == "TOPSECRET\n"  # not written through the link, not moved
    assert not (box.workspace / "hard").exists()  # (mv may copy it: outside is readable)
    assert "PRIVATE KEY" not in result.stdout
    assert result.stdout.endswith("end\n")


def test_udp_and_unix_sockets_do_not_reach_the_host(box: Box, tmp_path: Path) -> None:
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)  # noqa: FBT003 - socket's own API
    path = str(box.outside / "agent.sock")
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(path)
    unix.listen(1)
    unix.setblocking(False)  # noqa: FBT003 - socket's own API
    port = udp.getsockname()[1]
    code = (
        "import socket\n"
        "for family, kind, address in ((socket.AF_INET, socket.SOCK_DGRAM, "
        f"('127.0.0.1', {port})), (socket.AF_UNIX, socket.SOCK_STREAM, {path!r})):\n"
        "    try:\n"
        "        s = socket.socket(family, kind); s.connect(address); s.send(b'leak')\n"
        "        print('SENT')\n"
        "    except OSError as e: print(e.errno)\n"
    )
    try:
        result = box.run(f'{sys.executable} -S -c "{code}"')
        with pytest.raises(BlockingIOError):
            udp.recvfrom(10)
        with pytest.raises(BlockingIOError):
            unix.accept()
        assert "SENT" not in result.stdout
    finally:
        udp.close()
        unix.close()
