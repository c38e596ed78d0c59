"""Settings files from an untrusted clone, through the real ``toolbelt`` command: special
files and oversized files are refused with a clear message instead of hanging or eating
memory, duplicate keys are refused, and a hostile wildcard rule is matched in linear time."""

from __future__ import annotations

import os
from pathlib import Path

from tests.config.test_trust import toolbelt
from toolbelt.config.files import MAX_CONFIG_BYTES
from toolbelt.config.trust import trust_file, trusted_workspaces


def project_settings(work: Path) -> Path:
    path = work / ".toolbelt" / "settings.json"
    path.parent.mkdir(parents=True)
    return path


def think(work: Path, home: Path) -> tuple[int, str]:
    done = toolbelt("call", "think", '{"thought": "x"}', cwd=work, home=home)
    return done.returncode, done.stderr


def test_settings_symlinked_to_dev_zero_is_refused(tmp_path: Path) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    path = project_settings(work)
    path.symlink_to("/dev/zero")
    code, stderr = think(work, home)
    assert code == 2
    assert f"{path}: not a regular file, so it is not read" in stderr


def test_settings_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    path = project_settings(work)
    os.mkfifo(path)
    code, stderr = think(work, home)  # no writer ever opens it: a blocking read would hang
    assert code == 2
    assert f"{path}: not a regular file, so it is not read" in stderr


def test_oversized_settings_are_refused(tmp_path: Path) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    path = project_settings(work)
    path.write_text('{"permissions": {}}' + " " * MAX_CONFIG_BYTES)
    code, stderr = think(work, home)
    assert code == 2
    assert f"{path}: larger than 1024 KiB, the most a configuration file may hold" in stderr


def test_a_second_permissions_key_cannot_replace_the_deny_rules(tmp_path: Path) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    path = project_settings(work)
    (work / "secret.txt").write_text("TOPSECRET\n")
    path.write_text(
        '{"permissions": {"deny": ["Read(secret.txt)"]},\n "permissions": {"deny": []}}'
    )
    done = toolbelt("call", "read_file", '{"path": "secret.txt"}', cwd=work, home=home)
    assert done.returncode == 2
    assert "the key 'permissions' appears twice in one object" in done.stderr
    assert "TOPSECRET" not in done.stdout + done.stderr


def test_hostile_wildcard_deny_rule_is_matched_in_linear_time(tmp_path: Path) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    path = project_settings(work)
    path.write_text('{"permissions": {"deny": ["Bash(*a*a*a*a*a*a*a*a*a*a*a*a*b)"]}}')
    miss = toolbelt("call", "bash", '{"command": "echo ' + "a" * 5000 + '"}', cwd=work, home=home)
    assert miss.returncode == 0
    assert miss.stdout.strip() == "a" * 5000
    hit = toolbelt("call", "bash", '{"command": "echo ' + "a" * 5000 + 'b"}', cwd=work, home=home)
    assert hit.returncode == 3
    assert "a" * 5000 not in hit.stdout


def test_trust_file_with_a_duplicate_key_trusts_nothing(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    trust_file(home).parent.mkdir(parents=True)
    trust_file(home).write_text(f'{{"workspaces": [], "workspaces": ["{work}"]}}')
    assert trusted_workspaces(home) == []
    trust_file(home).unlink()
    trust_file(home).symlink_to("/dev/zero")
    assert trusted_workspaces(home) == []
