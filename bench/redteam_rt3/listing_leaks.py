"""Red-team harness (rt3): do grep/glob reveal names or contents read_file refuses?

Run: .venv/bin/python bench/redteam_rt3/listing_leaks.py  (everything in /tmp, private HOME)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TB = str(Path(__file__).resolve().parents[2] / ".venv/bin/toolbelt")
CASES = 0
FINDINGS: list[str] = []


def call(tool: str, args: dict, root: Path, env: dict, *extra: str) -> tuple[int, str]:
    p = subprocess.run(
        [TB, "call", tool, json.dumps(args), "--root", str(root), *extra],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
        cwd=str(root),
    )
    return p.returncode, p.stdout + p.stderr


def setup() -> tuple[Path, Path, dict]:
    home = Path(tempfile.mkdtemp(prefix="rt3home"))
    ws = home / "proj"
    ws.mkdir()
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "LANG": "C.UTF-8"}
    return home, ws, env


def plant(path: Path, marker: str, binary: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = f"line one\n{marker} value\n".encode()
    if binary:
        data = b"\x00\x01" + data
    path.write_bytes(data)


GREP_VARIANTS = [
    {"output_mode": "files_with_matches"},
    {"output_mode": "files_with_matches", "head_limit": 0},
    {"output_mode": "content", "head_limit": 0},
    {"output_mode": "content"},
    {"output_mode": "content", "head_limit": 1},
    {"output_mode": "content", "head_limit": 1, "offset": 1},
    {"output_mode": "count", "head_limit": 0},
    {"output_mode": "count"},
    {"output_mode": "content", "case_insensitive": True, "head_limit": 0},
    {"output_mode": "content", "multiline": True, "head_limit": 0},
    {"output_mode": "content", "glob": "**", "head_limit": 0},
    {"output_mode": "content", "context": 3, "head_limit": 0},
]


def probe(
    name: str,
    ws: Path,
    env: dict,
    rel: str,
    marker: str,
    extra=(),
    grep_path=None,
    glob_path=None,
    leak_names=None,
) -> None:
    """rel: path (relative to ws, or absolute) of the secret; checks read_file refuses, then
    that no grep/glob output shows the marker or the name."""
    global CASES
    rc, out = call("read_file", {"path": rel}, ws, env, *extra)
    refused = rc != 0 or marker not in out
    if not refused:
        print(f"[info] {name}: read_file shows it (rc={rc}); not a secret here")
        return
    base = os.path.basename(rel)
    names = leak_names or [base]
    for v in GREP_VARIANTS:
        pats = [marker] if v.get("output_mode") == "content" else [marker, "line one"]
        if v.get("multiline"):
            pats = ["one\\n" + marker]
        for pat in pats:
            args = {"pattern": pat, **v}
            if grep_path:
                args["path"] = grep_path
            CASES += 1
            rc2, out2 = call("grep", args, ws, env, *extra)
            leaked = marker in out2 or any(n in out2 for n in names)
            if leaked:
                FINDINGS.append(f"{name}: grep {json.dumps(args)} rc={rc2}\n{out2[:600]}")
                print(f"[LEAK] {name}: grep {json.dumps(args)}\n{out2[:400]}")
    for gp in ("**/*", "**/" + base, "**/.*"):
        args = {"pattern": gp, "include_ignored": True}
        if glob_path:
            args["path"] = glob_path
        for a in (args,):
            CASES += 1
            rc2, out2 = call("glob", a, ws, env, *extra)
            if any(n in out2 for n in names):
                FINDINGS.append(f"{name}: glob {json.dumps(a)} rc={rc2}\n{out2[:600]}")
                print(f"[LEAK] {name}: glob {json.dumps(a)}\n{out2[:400]}")


def main() -> None:
    only = sys.argv[1:]
    scen = []

    def scenario(f):
        scen.append(f)
        return f

    @scenario
    def env_names():
        for i, n in enumerate(
            [
                ".env",
                ".ENV",
                ".Env.Local",
                ".env.",
                ".env ",
                ".env..",
                ".env.production ",
                "sub/deep/.env.test",
                ".en\u00adv",
                ".env\u200b",
                "\uff0eenv",
                ".e\u0301nv",
                "Ｅ.env",
            ]
        ):
            _home, ws, env = setup()
            m = f"SEKRETenv{i}"
            plant(ws / n, m)
            probe(f"name {n!r}", ws, env, n, m)

    @scenario
    def env_binary():
        _home, ws, env = setup()
        plant(ws / ".env.bin", "SEKRETbin", binary=True)
        plant(ws / "sub/.env", "SEKRETbin2", binary=True)
        probe("binary .env.bin", ws, env, ".env.bin", "SEKRETbin")
        probe("binary sub/.env", ws, env, "sub/.env", "SEKRETbin2")

    @scenario
    def hardlinks():
        home, ws, env = setup()
        plant(home / ".ssh/id_rsa", "SEKRETssh")
        os.link(home / ".ssh/id_rsa", ws / "notes.txt")
        probe(
            "hardlink ~/.ssh/id_rsa as notes.txt",
            ws,
            env,
            "notes.txt",
            "SEKRETssh",
            leak_names=["notes.txt"],
        )
        home, ws, env = setup()
        plant(ws / ".env", "SEKRETtwin")
        (ws / "d").mkdir()
        os.link(ws / ".env", ws / "d/plain.py")
        probe(
            "hardlink .env as d/plain.py",
            ws,
            env,
            "d/plain.py",
            "SEKRETtwin",
            leak_names=["plain.py"],
        )
        home, ws, env = setup()
        plant(home / ".aws/credentials", "SEKRETaws")
        os.link(home / ".aws/credentials", ws / "we\nird")
        probe(
            "hardlink ~/.aws/credentials as 'we\\nird'",
            ws,
            env,
            "we\nird",
            "SEKRETaws",
            leak_names=["we\nird", "ird"],
        )
        home, ws, env = setup()
        plant(home / ".netrc", "SEKRETnetrc")
        os.link(home / ".netrc", ws / "a:1:b")
        probe("hardlink ~/.netrc as 'a:1:b'", ws, env, "a:1:b", "SEKRETnetrc", leak_names=["a:1:b"])

    @scenario
    def home_is_ws():
        home, ws, env = setup()
        ws = home
        secrets = {
            ".ssh/id_rsa": "SEKREThomessh",
            ".netrc": "SEKREThomenetrc",
            ".aws/credentials": "SEKREThomeaws",
            ".kube/config": "SEKREThomekube",
            ".docker/config.json": "SEKREThomedocker",
            ".pypirc": "SEKREThomepypi",
            ".git-credentials": "SEKREThomegitc",
            ".config/toolbelt/settings.json": "SEKREThometb",
            ".gnupg/x": "SEKREThomegpg",
            ".claude/.credentials.json": "SEKRETclaude",
        }
        for rel, m in secrets.items():
            plant(ws / rel, m)
        (ws / ".config/toolbelt/settings.json").write_text('{"x_SEKREThometb": 1}')
        for rel, m in secrets.items():
            probe(
                f"home-as-root {rel}",
                ws,
                env,
                rel,
                m,
                extra=("--yes",) if False else (),
                leak_names=[os.path.basename(rel) if "/" not in rel else rel],
            )

    @scenario
    def grep_home_from_ws():
        home, ws, env = setup()
        plant(home / ".ssh/id_ed25519", "SEKRETgh1")
        plant(home / ".netrc", "SEKRETgh2")
        plant(home / "backup/key.txt", "SEKRETgh3")
        os.unlink(home / "backup/key.txt")
        os.link(home / ".ssh/id_ed25519", home / "backup/key.txt")
        plant(home / ".config/toolbelt/trusted.json", "SEKRETgh4")
        for rel, m in [
            (".ssh/id_ed25519", "SEKRETgh1"),
            (".netrc", "SEKRETgh2"),
            ("backup/key.txt", "SEKRETgh1"),
            (".config/toolbelt/trusted.json", "SEKRETgh4"),
        ]:
            probe(
                f"grep path=~ --yes {rel}",
                ws,
                env,
                str(home / rel),
                m,
                extra=("--yes",),
                grep_path=str(home),
                glob_path=str(home),
                leak_names=[rel],
            )

    @scenario
    def xdg_in_ws():
        _home, ws, env = setup()
        env["XDG_CONFIG_HOME"] = str(ws / "cfg")
        env["XDG_RUNTIME_DIR"] = str(ws / "run")
        plant(ws / "cfg/toolbelt/hooks.json", "SEKRETxdg1")
        plant(ws / "run/toolbelt/mcp-8080.token", "SEKRETxdg2")
        probe("xdg config in ws", ws, env, "cfg/toolbelt/hooks.json", "SEKRETxdg1")
        probe("xdg runtime in ws", ws, env, "run/toolbelt/mcp-8080.token", "SEKRETxdg2")

    @scenario
    def deny_rules():
        _home, ws, env = setup()
        (ws / ".toolbelt").mkdir()
        (ws / ".toolbelt/settings.json").write_text(
            json.dumps(
                {
                    "permissions": {
                        "deny": [
                            "Read(./private/**)",
                            "Read(./dirdeny)",
                            "Read(*.key)",
                            "Read(/top.ini)",
                            "Read(**/Secret*.txt)",
                        ]
                    }
                }
            )
        )
        plant(ws / "private/a/b.txt", "SEKRETdeny1")
        plant(ws / "dirdeny/c.txt", "SEKRETdeny2")
        plant(ws / "x/y/z.key", "SEKRETdeny3")
        plant(ws / "top.ini", "SEKRETdeny4")
        plant(ws / "q/SecretStuff.txt", "SEKRETdeny5")
        plant(ws / "q/SECRETSTUFF.TXT", "SEKRETdeny6")
        for rel, m in [
            ("private/a/b.txt", "SEKRETdeny1"),
            ("dirdeny/c.txt", "SEKRETdeny2"),
            ("x/y/z.key", "SEKRETdeny3"),
            ("top.ini", "SEKRETdeny4"),
            ("q/SecretStuff.txt", "SEKRETdeny5"),
            ("q/SECRETSTUFF.TXT", "SEKRETdeny6"),
        ]:
            probe(f"deny {rel}", ws, env, rel, m)

    @scenario
    def symlinks():
        home, ws, env = setup()
        plant(home / ".ssh/id_rsa", "SEKRETsym1")
        out = Path(tempfile.mkdtemp(prefix="rt3out"))
        plant(out / "secret.txt", "SEKRETsym2")
        os.symlink(home / ".ssh/id_rsa", ws / "l1.txt")
        os.symlink(home / ".ssh", ws / "sshdir")
        os.symlink(out, ws / "outdir")
        os.symlink(out / "secret.txt", ws / "l2.txt")
        probe(
            "symlink file -> ~/.ssh/id_rsa", ws, env, "l1.txt", "SEKRETsym1", leak_names=["l1.txt"]
        )
        probe(
            "symlink dir -> ~/.ssh", ws, env, "sshdir/id_rsa", "SEKRETsym1", leak_names=["sshdir/"]
        )
        probe(
            "symlink dir -> outside",
            ws,
            env,
            "outdir/secret.txt",
            "SEKRETsym2",
            leak_names=["outdir/"],
        )
        probe("symlink file -> outside", ws, env, "l2.txt", "SEKRETsym2", leak_names=["l2.txt"])
        probe(
            "grep path=sshdir",
            ws,
            env,
            "sshdir/id_rsa",
            "SEKRETsym1",
            grep_path="sshdir",
            glob_path="sshdir",
            leak_names=["id_rsa"],
        )

    for f in scen:
        if only and f.__name__ not in only:
            continue
        print(f"== {f.__name__}", flush=True)
        f()
    print(f"cases={CASES} findings={len(FINDINGS)}")


if __name__ == "__main__":
    main()
