"""Which paths read-deny rules hand to the OS sandbox to hide."""

from __future__ import annotations

from pathlib import Path

from toolbelt.policy.rules import RuleSet, parse_rule


def test_rules_that_name_a_whole_tree_map_to_its_path_and_name_picks_do_not(
    tmp_path: Path,
) -> None:
    texts = [
        "Read(./secret/**)",  # a directory's tree
        "Read(//tmp/out/*)",  # absolute, everything in it
        "Read(./k.txt)",  # one file
        "Read(~/notes/**)",  # from home
        "Read(./keys/*.pem)",  # names picked by wildcard: no single path
        "Read(.env.local)",  # at any depth: no single path
        "Edit(./drafts/**)",  # not about reading
        "Bash(cat:*)",  # not a path rule
    ]
    rules = RuleSet(deny=[parse_rule(t) for t in texts], cwd=tmp_path, home=tmp_path / "home")
    assert rules.hidden_reads() == (
        tmp_path / "secret",
        Path("/tmp/out"),
        tmp_path / "k.txt",
        tmp_path / "home" / "notes",
    )
    assert RuleSet(allow=[parse_rule("Read(./a/**)")], cwd=tmp_path).hidden_reads() == ()
