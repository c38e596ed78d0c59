"""``webFetch.allowPrivateOrigins`` and ``gitCommit.trailer``: from the user's settings or a
trusted workspace only, validated with the file and line named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolbelt.config.settings import load_settings, untrusted_notice
from toolbelt.core.errors import SettingsError


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


def test_user_and_trusted_workspace_origins_apply(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "work"
    write(
        home / ".config/toolbelt/settings.json",
        {"webFetch": {"allowPrivateOrigins": ["http://127.0.0.1:8080"]}},
    )
    write(
        root / ".toolbelt/settings.json",
        {
            "webFetch": {"allowPrivateOrigins": ["http://10.0.0.5"]},
            "gitCommit": {"trailer": "Co-authored-by: bot <bot@example.test>"},
        },
    )
    trusted = load_settings(root, home=home, trusted=True)
    assert trusted.private_origins == ["http://127.0.0.1:8080", "http://10.0.0.5"]
    assert trusted.commit_trailer == "Co-authored-by: bot <bot@example.test>"


def test_untrusted_workspace_origins_and_trailer_are_ignored_and_said(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    write(
        root / ".toolbelt/settings.json",
        {
            "webFetch": {"allowPrivateOrigins": ["http://169.254.169.254"]},
            "gitCommit": {"trailer": "Signed-off-by: someone"},
        },
    )
    settings = load_settings(root, home=home, trusted=False)
    assert settings.private_origins == [] and settings.commit_trailer is None
    notice = untrusted_notice(settings)
    assert notice is not None and "1 private origin, a commit trailer" in notice


@pytest.mark.parametrize(
    ("origin", "message"),
    [
        (
            "http://127.0.0.1:8080/admin",
            "'http://127.0.0.1:8080/admin' is not an origin; write it as 'http://127.0.0.1:8080'",
        ),
        (
            "file:///etc",
            "'file:///etc' is not an origin: web_fetch reads only http:// and https://",
        ),
    ],
)
def test_bad_origin_names_file_and_line(tmp_path: Path, origin: str, message: str) -> None:
    home, root = tmp_path / "home", tmp_path / "work"
    settings_file = home / ".config/toolbelt/settings.json"
    write(settings_file, {"webFetch": {"allowPrivateOrigins": [origin]}})
    with pytest.raises(SettingsError) as caught:
        load_settings(root, home=home)
    assert str(caught.value).startswith(
        f"{settings_file}, line 3: `webFetch.allowPrivateOrigins`: "
    )
    assert message in str(caught.value)
