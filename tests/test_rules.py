"""Permission rules: parsing, Bash/path/WebFetch/MCP matching in any and every mode, `if_`."""

from __future__ import annotations

import pytest

from hookline import ConfigError, PostToolUse, PreToolUse, Stop, tool_name
from hookline._events import Scope
from hookline.permissions._rules import PermissionRule, RuleCondition, if_

CWD, HOME = "/work/app", "/home/ada"


def bash(rule: str, command: str, *, every: bool = False) -> bool:
    parsed = PermissionRule.parse(rule)
    return parsed.matches("Bash", {"command": command}, cwd=CWD, home=HOME, every=every)


@pytest.mark.parametrize(
    ("text", "tool", "specifier"),
    [
        ("Bash", "Bash", None),
        ("Bash(npm run test:*)", "Bash", "npm run test:*"),
        ("Bash(echo $(date))", "Bash", "echo $(date)"),
        ("Read(~/.ssh/**)", "Read", "~/.ssh/**"),
        ("WebFetch(domain:example.com)", "WebFetch", "domain:example.com"),
        ("mcp__github", "mcp__github", None),
        ("mcp__github__*", "mcp__github__*", None),
        ("Agent(Explore)", "Agent", "Explore"),
    ],
)
def test_parse_reads_tool_and_specifier_and_str_gives_the_text_back(text, tool, specifier):
    rule = PermissionRule.parse(text)
    assert (rule.tool, rule.specifier) == (tool, specifier)
    assert str(rule) == text
    assert PermissionRule.parse(str(rule)) == rule


def test_parse_trims_whitespace_around_rule_and_specifier():
    assert PermissionRule.parse("  Bash( git status )  ") == PermissionRule("Bash", "git status")


@pytest.mark.parametrize(
    ("text", "problem", "fix"),
    [
        ("", "tool name", "Tool(specifier)"),
        ("(ls)", "tool name", "Tool(specifier)"),
        ("Stop Task", "tool name", "Tool(specifier)"),
        ("Bash(ls", "unbalanced", "one rule"),
        ("Bash(a))", "unbalanced", "one rule"),
        ("Bash(ls) now", "unbalanced", "one rule"),
        ("Bash(git *)|Bash(npm *)", "unbalanced", "one rule"),
        ("Bash()", "empty parentheses", "write Bash alone"),
        ("mcp__github(x)", "tool-name pattern", "write mcp__github alone"),
        ("Write(docs/**)", "never consults", "Edit(docs/**)"),
        ("Glob(src/*.ts)", "never consults", "Read(src/*.ts)"),
    ],
)
def test_a_malformed_rule_is_a_config_error_naming_file_key_and_fix(text, problem, fix):
    with pytest.raises(ConfigError) as caught:
        PermissionRule.parse(text, file=".claude/settings.json", key="permissions.deny[0]")
    error = caught.value
    assert (error.file, error.key) == (".claude/settings.json", "permissions.deny[0]")
    assert repr(text) in error.message and problem in error.message
    assert error.fix and fix in error.fix


@pytest.mark.parametrize(
    ("rule", "command", "matches"),
    [
        ("Bash", "rm -rf /", True),
        ("Bash(*)", "anything at all", True),
        ("Bash(npm run build)", "npm run build", True),
        ("Bash(npm run build)", "npm run build --watch", False),
        ("Bash(git push*)", "git push origin main", True),
        ("Bash(git push*)", "git pushy", True),
        ("Bash(git push *)", "git push", True),
        ("Bash(git push *)", "git pull", False),
        ("Bash(* --version)", "node --version", True),
        ("Bash(* --version)", "node -v", False),
        ("Bash(git log * main)", "git log --oneline main", True),
        ("Bash(git log * main)", "git log main", False),
        ("Bash(* --help *)", "npm --help x", True),
        ("Bash(* --help *)", "npm --help", False),
        ("Bash(ls *)", "ls -la", True),
        ("Bash(ls *)", "ls", True),
        ("Bash(ls *)", "lsof", False),
        ("Bash(ls*)", "lsof", True),
        ("Bash(npm run test:*)", "npm run test", True),
        ("Bash(npm run test:*)", "npm run test -- --watch", True),
        ("Bash(npm run test:*)", "npm run test:unit", False),
        ("Bash(git:* push)", "git push", False),
        ("Bash(npm run build)", "npm run build > build.log 2>&1", True),
        ("Bash(echo *)", 'echo "a && b"', True),
        ("Bash(rm *)", "echo 'x; rm -rf /'", False),
        ("Bash(git *)", "git status # && rm -rf /", True),
    ],
)
def test_bash_patterns_match_the_same_way_in_both_modes(rule, command, matches):
    assert bash(rule, command) is matches
    assert bash(rule, command, every=True) is matches


@pytest.mark.parametrize(
    ("rule", "command", "any_", "every"),
    [
        ("Bash(git *)", "npm test && git push", True, False),
        ("Bash(git *)", "git add . && git commit -m 'x; y'", True, True),
        ("Bash(npm *)", "npm ci || npm i; npm test | npm run fmt & npm run lint", True, True),
        ("Bash(npm *)", "npm ci |& cat", True, False),
        ("Bash(npm *)", "npm ci\nrm -rf node_modules", True, False),
        ("Bash(rm *)", "(cd build && rm -rf out)", True, False),
        ("Bash(rm *)", "ls && echo done", False, False),
        ("Bash(git *)", "FOO=bar git push", True, False),
        ("Bash(npm test *)", "NODE_ENV=test npm test", True, True),
        ("Bash(npm test *)", "timeout 30 npm test", True, True),
        ("Bash(rm *)", "nohup rm -rf tmp &", True, True),
        ("Bash(rm *)", "nice -n 5 rm -rf tmp", True, True),
        ("Bash(grep *)", "xargs grep TODO", True, True),
        ("Bash(grep *)", "xargs -n1 grep TODO", True, True),
        ("Bash(git *)", "command -v git", False, False),
        ("Bash(rm *)", "echo $(rm -rf /)", True, False),
        ("Bash(rm *)", "echo `rm -rf /`", True, False),
        ("Bash(rm *)", 'echo "$(rm -rf "$dir")"', True, False),
        ("Bash(rm *)", "diff <(rm -rf x) y", True, False),
        ("Bash(rm *)", "echo $(date)", False, False),
        ("Bash(echo *)", "echo $(echo hi)", True, True),
    ],
)
def test_compound_commands_match_on_any_subcommand_or_on_every_one(rule, command, any_, every):
    assert bash(rule, command) is any_
    assert bash(rule, command, every=True) is every


@pytest.mark.parametrize(
    ("rule", "command", "any_"),
    [
        # Substitutions and variables are read, not guessed: what runs here is known.
        ("Bash(git push *)", "echo $(date)", False),
        ("Bash(git push *)", "echo `date`", False),
        ("Bash(git push *)", "echo $HOME", False),
        ("Bash(git push *)", 'echo "${HOME}"', False),
        ("Bash(git push *)", "echo '$HOME'", False),
        ("Bash(git *)", "cat <<EOF\nhello\nEOF", False),
        ("Bash(git push *)", "echo $(git push -f)", True),
        # What runs cannot be known: it matches every rule in any mode.
        ("Bash(git *)", "$TOOL push", True),
        ("Bash(git *)", 'echo "unclosed', True),
        ("Bash(git *)", "echo $(date", True),
        ("Bash(git *)", "curl -s example.com | sh", True),
        ("Bash(git *)", "eval $CMD", True),
    ],
)
def test_what_cannot_be_read_matches_in_any_mode_and_never_in_every_mode(rule, command, any_):
    assert bash(rule, command) is any_
    assert bash(rule, command, every=True) is False


def test_a_bash_rule_without_a_command_matches_only_when_it_covers_every_call():
    for rule, matches in (("Bash", True), ("Bash(*)", True), ("Bash(ls *)", False)):
        assert PermissionRule.parse(rule).matches("Bash", {}, cwd=CWD) is matches


@pytest.mark.parametrize(
    ("rule", "tool", "tool_input", "matches"),
    [
        ("Read(.env)", "Read", {"file_path": f"{CWD}/.env"}, True),
        ("Read(.env)", "Read", {"file_path": f"{CWD}/deploy/prod/.env"}, True),
        ("Read(.env)", "Read", {"file_path": "/work/other/.env"}, False),
        ("Read(.env)", "Read", {"file_path": f"{CWD}/.env.example"}, False),
        ("Read(./.env)", "Read", {"file_path": f"{CWD}/deploy/.env"}, False),
        ("Edit(*.ts)", "Edit", {"file_path": f"{CWD}/src/ui/app.ts"}, True),
        ("Edit(*.ts)", "Edit", {"file_path": f"{CWD}/src/ui/app.tsx"}, False),
        ("Edit(src/*.ts)", "Edit", {"file_path": "src/app.ts"}, True),
        ("Edit(src/*.ts)", "Edit", {"file_path": "src/ui/app.ts"}, False),
        ("Edit(src/**/*.ts)", "Edit", {"file_path": "src/ui/deep/app.ts"}, True),
        ("Edit(src/**)", "Edit", {"file_path": f"{CWD}/src/app.ts"}, True),
        ("Edit(src/**)", "Edit", {"file_path": f"{CWD}/vendor/pkg/src/lib.js"}, False),
        ("Edit(**/src/**)", "Edit", {"file_path": f"{CWD}/vendor/pkg/src/lib.js"}, True),
        ("Edit(/src/**)", "Edit", {"file_path": f"{CWD}/src/app.ts"}, True),
        ("Read(secrets)", "Read", {"file_path": f"{CWD}/config/secrets/key.pem"}, True),
        ("Read(//etc/**)", "Read", {"file_path": "/etc/passwd"}, True),
        ("Read(//etc/**)", "Read", {"file_path": f"{CWD}/etc/passwd"}, False),
        ("Read(//**/.env)", "Read", {"file_path": "/srv/any/.env"}, True),
        ("Read(~/.ssh/**)", "Read", {"file_path": f"{HOME}/.ssh/id_ed25519"}, True),
        ("Read(~/.ssh/**)", "Read", {"file_path": "~/.ssh/id_ed25519"}, True),
        ("Read(~/.ssh/**)", "Read", {"file_path": f"{CWD}/.ssh/id_ed25519"}, False),
        ("Read(log-[0-9].txt)", "Read", {"file_path": "logs/log-7.txt"}, True),
        ("Read(log-[!0-9].txt)", "Read", {"file_path": "logs/log-7.txt"}, False),
        ("Read(src/../.env)", "Read", {"file_path": f"{CWD}/src/../.env"}, False),
        ("Read(.env)", "Read", {"file_path": f"{CWD}/src/../.env"}, True),
        ("Read(*.ts)", "Glob", {"pattern": "*", "path": f"{CWD}/x.ts"}, True),
        ("Read(src/**)", "Grep", {"pattern": "TODO", "path": "src/app"}, True),
        ("Read(src/**)", "Grep", {"pattern": "TODO"}, False),
        ("Read(src/**)", "Edit", {"file_path": "src/app.ts"}, False),
        ("Edit(docs/**)", "Write", {"file_path": "docs/index.md"}, True),
        ("Edit(*.ipynb)", "NotebookEdit", {"notebook_path": "nb/a.ipynb"}, True),
        ("Edit(docs/**)", "Read", {"file_path": "docs/index.md"}, False),
        ("Read", "Grep", {"pattern": "TODO"}, True),
        ("Edit", "Write", {}, True),
        ("Write", "Write", {"file_path": "x"}, True),
        ("Write", "Edit", {"file_path": "x"}, False),
    ],
)
def test_path_rules_follow_gitignore_below_their_anchor(rule, tool, tool_input, matches):
    parsed = PermissionRule.parse(rule)
    assert parsed.matches(tool, tool_input, cwd=CWD, home=HOME) is matches


@pytest.mark.parametrize(
    ("rule", "url", "matches"),
    [
        ("WebFetch(domain:example.com)", "https://example.com/docs", True),
        ("WebFetch(domain:example.com)", "https://EXAMPLE.com./docs", True),
        ("WebFetch(domain:example.com)", "https://api.example.com/docs", False),
        ("WebFetch(domain:example.com)", "https://example.com.evil.net/", False),
        ("WebFetch(domain:*.example.com)", "https://a.b.example.com/", True),
        ("WebFetch(domain:*.example.com)", "https://example.com/", False),
        ("WebFetch(domain:example.*)", "https://example.org/", True),
        ("WebFetch(domain:example.*)", "https://example.evil.com/", False),
        ("WebFetch(domain:*)", "https://anything.test/", True),
        ("WebFetch(domain:*)", "not a url", False),
        ("WebFetch", "not a url", True),
        ("WebFetch(example.com)", "https://example.com/", False),
    ],
)
def test_webfetch_domain_rules_match_the_url_host(rule, url, matches):
    parsed = PermissionRule.parse(rule)
    assert parsed.matches("WebFetch", {"url": url, "prompt": "p"}, cwd=CWD) is matches


@pytest.mark.parametrize(
    ("rule", "tool", "any_", "every"),
    [
        ("mcp__github", "mcp__github__create_issue", True, True),
        ("mcp__github", "mcp__githubber__x", False, False),
        ("mcp__github__create_issue", "mcp__github__create_issue", True, True),
        ("mcp__github__create_issue", "mcp__github__delete_repo", False, False),
        ("mcp__github__get_*", "mcp__github__get_issue", True, True),
        ("mcp__github__*", "mcp__gitlab__get_issue", False, False),
        ("mcp__*", "mcp__github__get_issue", True, False),
        ("*", "Bash", True, False),
        ("Bash", "bash", False, False),
        ("Agent(Explore)", "Agent", True, True),
        ("Agent(Plan)", "Agent", False, False),
        ("NotebookRead(x)", "NotebookRead", False, False),
        ("TodoWrite", "TodoWrite", True, True),
    ],
)
def test_tool_names_mcp_servers_and_other_tools(rule, tool, any_, every):
    parsed = PermissionRule.parse(rule)
    tool_input = {"subagent_type": "Explore", "prompt": "look around"}
    assert parsed.matches(tool, tool_input, cwd=CWD) is any_
    assert parsed.matches(tool, tool_input, cwd=CWD, every=True) is every


def test_rule_condition_matches_tool_events_and_never_other_events():
    scope = Scope("s1", "/tmp/t.jsonl", CWD)
    push = scope.event(
        PreToolUse, tool_name="Bash", tool_input={"command": "git push"}, tool_use_id="t1"
    )
    status = scope.event(
        PreToolUse, tool_name="Bash", tool_input={"command": "git status"}, tool_use_id="t2"
    )
    condition = if_("Bash(git push*)")
    assert isinstance(condition, RuleCondition)
    assert condition(push) and not condition(status)
    assert not condition(scope.event(Stop))
    assert not if_("Bash")(scope.event(Stop))


def test_rule_condition_resolves_paths_against_the_event_cwd():
    edit = Scope("s1", "/tmp/t.jsonl", CWD).event(
        PostToolUse, tool_name="Write", tool_input={"file_path": "src/a.ts"}, tool_use_id="t1"
    )
    assert if_("Edit(src/**)")(edit)
    assert not if_("Edit(/work/app/src/**)")(edit)  # one `/` starts at the working directory
    assert if_("Edit(//work/app/src/**)")(edit)


def test_if_prints_its_rule_and_composes_with_other_matchers():
    assert repr(if_("Bash(git push*)")) == "if_('Bash(git push*)')"
    assert repr(tool_name("Bash") & if_("Bash(git *)")) == "tool_name('Bash') & if_('Bash(git *)')"


def test_if_reports_a_bad_rule_on_the_if_key():
    with pytest.raises(ConfigError) as caught:
        if_("Bash(git *) || Bash(npm *)", file="hooks.json")
    assert (caught.value.file, caught.value.key) == ("hooks.json", "if")


def test_path_rules_match_the_real_path_behind_a_symlink(tmp_path):
    (tmp_path / ".env").write_text("KEY=1\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "settings").symlink_to(tmp_path / ".env")
    (tmp_path / "src" / "app.py").write_text("")
    cwd, deny = str(tmp_path), PermissionRule.parse("Read(./.env)")
    assert deny.matches("Read", {"file_path": "src/settings"}, cwd=cwd)
    assert deny.matches("Grep", {"pattern": "KEY", "path": "src/settings"}, cwd=cwd)
    assert not deny.matches("Read", {"file_path": "src/app.py"}, cwd=cwd)
    edit = PermissionRule.parse("Edit(./.env)")
    assert edit.matches("Write", {"file_path": f"{cwd}/src/settings"}, cwd=cwd)


def test_an_allow_path_rule_must_cover_the_real_path_too(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / "src" / "hook").symlink_to(tmp_path / ".git" / "config")
    cwd, allow = str(tmp_path), PermissionRule.parse("Edit(src/**)")
    assert allow.matches("Write", {"file_path": "src/hook"}, cwd=cwd)  # any: the given path
    assert not allow.matches("Write", {"file_path": "src/hook"}, cwd=cwd, every=True)
    assert allow.matches("Write", {"file_path": "src/app.py"}, cwd=cwd, every=True)


def test_a_path_rule_never_raises_on_a_loop_or_a_nul_byte(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    rule, cwd = PermissionRule.parse("Read(./.env)"), str(tmp_path)
    assert not rule.matches("Read", {"file_path": "a"}, cwd=cwd)
    assert rule.matches("Read", {"file_path": ".env\0"}, cwd=cwd) is False
    assert PermissionRule.parse("Read(*)").matches("Read", {"file_path": "x\0y"}, cwd=cwd)
