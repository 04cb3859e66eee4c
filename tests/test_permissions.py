"""The permission layer: Claude Code's evaluation order, modes, rules from settings, the tiers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookline._claude.settings import load_settings
from hookline._decisions import NO_DECISION, Decision
from hookline._events import PermissionMode
from hookline.permissions import DANGEROUS, PermissionPolicy, Verdict, evaluate
from hookline.permissions._rules import PermissionRule

CWD, HOME = "/work/project", "/home/dev"
ALLOW, DENY, ASK, DEFER = (
    Decision.allow("hook says yes"),
    Decision.deny("hook says no"),
    Decision.ask("hook asks"),
    Decision.defer("later"),
)


def policy(
    mode: PermissionMode = "default",
    *,
    allow: tuple[str, ...] = (),
    ask: tuple[str, ...] = (),
    deny: tuple[str, ...] = (),
    **tiers: Any,
) -> PermissionPolicy:
    def sourced(texts: tuple[str, ...]) -> tuple[tuple[PermissionRule, str], ...]:
        return tuple((PermissionRule.parse(text), "project settings") for text in texts)

    return PermissionPolicy(sourced(allow), sourced(ask), sourced(deny), mode, **tiers)


def decide(
    chosen: PermissionPolicy,
    tool: str,
    hook: Decision = NO_DECISION,
    *,
    read_only: bool = False,
    **tool_input: Any,
) -> Verdict:
    return evaluate(
        chosen,
        tool_name=tool,
        tool_input=tool_input,
        read_only=read_only,
        hook=hook,
        cwd=CWD,
        home=HOME,
    )


def bash(command: str) -> dict[str, Any]:
    return {"command": command}


def edit(path: str) -> dict[str, Any]:
    return {"file_path": path, "old_string": "a", "new_string": "b"}


DENY_RM = {"deny": ("Bash(rm *)",)}
DENIED_RM = "rule:deny:Bash(rm *) (project settings)"
ASK_PUSH = {"ask": ("Bash(git push *)",)}
ALLOW_GIT = {"allow": ("Bash(git *)",)}

# mode, rules, hook, tool, tool input -> behavior, source
ORDER = [
    # 1. a hook's deny or defer, in every mode
    ("bypassPermissions", {}, DENY, "Bash", bash("ls"), "deny", "hook:PreToolUse"),
    ("dontAsk", ALLOW_GIT, DENY, "Bash", bash("git status"), "deny", "hook:PreToolUse"),
    ("default", {}, DEFER, "Bash", bash("ls"), "defer", "hook:PreToolUse"),
    ("default", DENY_RM, DEFER, "Bash", bash("rm x"), "defer", "hook:PreToolUse"),
    # 2. deny rules, even over a hook's allow or ask, and in bypassPermissions
    ("default", DENY_RM, ALLOW, "Bash", bash("rm x"), "deny", DENIED_RM),
    ("default", DENY_RM, ASK, "Bash", bash("rm x"), "deny", DENIED_RM),
    ("bypassPermissions", DENY_RM, ALLOW, "Bash", bash("ls && rm x"), "deny", DENIED_RM),
    ("acceptEdits", DENY_RM, NO_DECISION, "Bash", bash("rm build/x"), "deny", DENIED_RM),
    ("default", {**DENY_RM, "allow": ("Bash(rm *)",)}, NO_DECISION, "Bash", bash("rm x"), "deny",
     DENIED_RM),
    # 3. the dangerous tier: like a deny rule, above modes, allow rules and hooks
    ("bypassPermissions", {"allow": ("Bash",)}, ALLOW, "Bash", bash("rm -rf /"), "deny",
     "tier:dangerous:rm-root"),
    ("default", {}, NO_DECISION, "Bash", bash("sudo mkfs.ext4 /dev/sda1"), "deny",
     "tier:dangerous:mkfs"),
    ("default", {"allow": ("Bash(rm *)",)}, NO_DECISION, "Bash", bash("rm -rf ~"), "deny",
     "tier:dangerous:rm-root"),
    # 4. ask rules: a hook's allow and bypassPermissions do not skip them
    ("default", ASK_PUSH, ALLOW, "Bash", bash("git push origin x"), "ask",
     "rule:ask:Bash(git push *) (project settings)"),
    ("bypassPermissions", ASK_PUSH, NO_DECISION, "Bash", bash("git push"), "ask",
     "rule:ask:Bash(git push *) (project settings)"),
    ("default", {**ASK_PUSH, **ALLOW_GIT}, NO_DECISION, "Bash", bash("git status; git push"), "ask",
     "rule:ask:Bash(git push *) (project settings)"),
    # 5. a hook's ask, over an allow rule
    ("default", ALLOW_GIT, ASK, "Bash", bash("git status"), "ask", "hook:PreToolUse"),
    ("bypassPermissions", {}, ASK, "Bash", bash("ls"), "ask", "hook:PreToolUse"),
    # 6. the mode
    ("bypassPermissions", {}, NO_DECISION, "Bash", bash("make deploy"), "allow",
     "mode:bypassPermissions"),
    ("plan", {}, NO_DECISION, "Write", {"file_path": f"{CWD}/a"}, "deny", "mode:plan"),
    ("plan", ALLOW_GIT, ALLOW, "Bash", bash("git commit -m x"), "deny", "mode:plan"),
    ("plan", {}, NO_DECISION, "Read", {"file_path": f"{CWD}/a"}, "allow", "tier:read-only"),
    ("acceptEdits", {}, NO_DECISION, "Edit", edit(f"{CWD}/src/a.py"), "allow", "mode:acceptEdits"),
    ("acceptEdits", {}, NO_DECISION, "Bash", bash("mkdir -p build && touch build/x"), "allow",
     "mode:acceptEdits"),
    ("acceptEdits", {}, NO_DECISION, "Edit", edit("/etc/hosts"), "ask", "tier:mutating"),
    ("acceptEdits", {}, NO_DECISION, "Bash", bash("npm test"), "ask", "tier:mutating"),
    # dontAsk: whatever would ask is denied; what is allowed still runs
    ("dontAsk", ASK_PUSH, NO_DECISION, "Bash", bash("git push"), "deny", "mode:dontAsk"),
    ("dontAsk", {}, ASK, "Bash", bash("ls"), "deny", "mode:dontAsk"),
    ("dontAsk", {}, NO_DECISION, "Write", {"file_path": f"{CWD}/a"}, "deny", "mode:dontAsk"),
    ("dontAsk", ALLOW_GIT, NO_DECISION, "Bash", bash("git status"), "allow",
     "rule:allow:Bash(git *) (project settings)"),
    ("dontAsk", {}, NO_DECISION, "Grep", {"pattern": "x"}, "allow", "tier:read-only"),
    # 7. a hook's allow, then allow rules (every subcommand)
    ("default", {}, ALLOW, "Bash", bash("make"), "allow", "hook:PreToolUse"),
    ("auto", ALLOW_GIT, NO_DECISION, "Bash", bash("git log | git shortlog"), "allow",
     "rule:allow:Bash(git *) (project settings)"),
    ("default", ALLOW_GIT, NO_DECISION, "Bash", bash("git status && make"), "ask", "tier:mutating"),
    # 8. the tiers
    ("default", {}, NO_DECISION, "Glob", {"pattern": "*.py"}, "allow", "tier:read-only"),
    ("default", {}, NO_DECISION, "Write", {"file_path": f"{CWD}/a"}, "ask", "tier:mutating"),
    ("default", {}, NO_DECISION, "mcp__db__query", {}, "ask", "tier:mutating"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("mode", "rules", "hook", "tool", "tool_input", "behavior", "source"), ORDER
)
def test_the_evaluation_order_of_hooks_rules_dangerous_tier_mode_and_tiers(
    mode: PermissionMode,
    rules: dict[str, tuple[str, ...]],
    hook: Decision,
    tool: str,
    tool_input: dict[str, Any],
    behavior: str,
    source: str,
) -> None:
    verdict = decide(policy(mode, **rules), tool, hook, **tool_input)

    assert (verdict.permission, verdict.source) == (behavior, source)
    assert verdict.reason


def test_a_hook_allow_never_overrides_a_deny_rule_and_a_hook_ask_cannot_downgrade_it() -> None:
    """Claude Code #39344: a PreToolUse ask once turned a permissions.deny into a prompt."""
    rules = policy(deny=("Bash(git push *)",))
    for hook in (ALLOW, ASK, Decision.allow(updated_input={"command": "git push -f"})):
        verdict = decide(rules, "Bash", hook, command="git status && git push origin main")
        assert verdict.permission == "deny"
        assert verdict.source == "rule:deny:Bash(git push *) (project settings)"
    assert "do not retry" in verdict.reason
    assert "project settings rule Bash(git push *)" in verdict.reason


def test_bypass_permissions_still_honours_a_hook_deny_and_deny_rules() -> None:
    bypass = policy("bypassPermissions", deny=("Read(.env)",))

    assert decide(bypass, "Bash", DENY, command="ls").reason == "hook says no"
    assert decide(bypass, "Read", read_only=True, file_path=f"{CWD}/.env").permission == "deny"
    assert decide(bypass, "Write", file_path="/etc/passwd").permission == "allow"


def test_plan_mode_denies_a_write_telling_the_model_why_and_allows_a_read() -> None:
    plan = policy("plan")

    write = decide(plan, "Write", file_path=f"{CWD}/a.py", content="x")
    read = decide(plan, "Read", read_only=True, file_path=f"{CWD}/a.py")

    assert write.permission == "deny"
    assert "plan mode" in write.reason
    assert "do not retry it until the user leaves plan mode" in write.reason
    assert (read.permission, read.source) == ("allow", "tier:read-only")


@pytest.mark.parametrize(
    ("tool", "tool_input", "behavior"),
    [
        ("Edit", edit(f"{CWD}/src/a.py"), "allow"),
        ("Write", {"file_path": "src/new.py", "content": ""}, "allow"),
        ("NotebookEdit", {"notebook_path": f"{CWD}/n.ipynb", "new_source": ""}, "allow"),
        ("Edit", edit("/work/elsewhere/a.py"), "ask"),
        ("Edit", edit(f"{CWD}/../project2/a.py"), "ask"),
        ("Edit", edit("~/notes.md"), "ask"),
        ("Bash", bash("mv a.py b.py; cp -r src lib"), "allow"),
        ("Bash", bash("touch 'a b.txt' && mkdir -p out/x"), "allow"),
        # Not provable: a recursive delete, and sed (`e` and `w` run code and write anywhere).
        ("Bash", bash("rm -rf build"), "ask"),
        ("Bash", bash("sed -i s/a/b/ x.txt"), "ask"),
        ("Bash", bash("cp a.py /etc/"), "ask"),
        ("Bash", bash("cp -t/etc a.py"), "ask"),
        ("Bash", bash("cp --target-directory=/etc a.py"), "ask"),
        ("Bash", bash("touch a > /etc/motd"), "ask"),
        ("Bash", bash("touch $TARGET"), "ask"),
        ("Bash", bash("mkdir x && curl example.com"), "ask"),
    ],
)
def test_accept_edits_runs_edits_and_filesystem_commands_only_below_the_workspace(
    tool: str, tool_input: dict[str, Any], behavior: str
) -> None:
    verdict = decide(policy("acceptEdits"), tool, **tool_input)

    assert verdict.permission == behavior
    asked = ("tier:mutating", "tier:protected")  # `touch $TARGET`: a write not proven outside
    assert verdict.source in (("mode:acceptEdits",) if behavior == "allow" else asked)


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions", "default"])
@pytest.mark.parametrize("path", [f"{CWD}/.git/config", f"{CWD}/.claude/settings.json"])
def test_writing_a_protected_folder_asks_in_every_mode(mode: str, path: str) -> None:
    verdict = decide(policy(mode), "Edit", **edit(path))
    assert (verdict.permission, verdict.source) == ("ask", "tier:protected")


def test_accept_edits_uses_the_policy_workspace_not_the_current_directory() -> None:
    rooted = policy("acceptEdits", workspace=("/work/project",))
    verdict = evaluate(
        rooted,
        tool_name="Edit",
        tool_input=edit("../lib/a.py"),
        read_only=False,
        hook=NO_DECISION,
        cwd="/work/project/src",
    )
    assert verdict.source == "mode:acceptEdits"


def test_dont_ask_turns_every_ask_into_a_deny_that_says_so() -> None:
    dont_ask = policy("dontAsk", ask=("Bash(git push *)",))

    for verdict in (
        decide(dont_ask, "Bash", command="git push"),
        decide(dont_ask, "Bash", ASK, command="ls"),
        decide(dont_ask, "Edit", **edit(f"{CWD}/a.py")),
    ):
        assert (verdict.permission, verdict.source) == ("deny", "mode:dontAsk")
        assert "dontAsk mode" in verdict.reason
    assert "Bash(git push *)" in decide(dont_ask, "Bash", command="git push").reason


@pytest.mark.parametrize(
    ("command", "behavior"),
    [
        ("git status && npm test", "allow"),
        ("npm test | git diff", "allow"),
        ("git status && npm test && make", "ask"),
        ("git status; curl x | sh", "ask"),
        ("npm test $(make)", "ask"),
        ("git status 'unclosed", "ask"),
    ],
)
def test_a_compound_command_needs_every_subcommand_covered_by_some_allow_rule(
    command: str, behavior: str
) -> None:
    rules = policy(allow=("Bash(git *)", "Bash(npm test)"))

    verdict = decide(rules, "Bash", command=command)

    assert verdict.permission == behavior
    if behavior == "allow":
        assert "rule:allow:Bash(git *) (project settings)" in verdict.source
        assert "rule:allow:Bash(npm test) (project settings)" in verdict.source


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("rm -rf /", "rm-root"),
        ("rm -fr --no-preserve-root /", "rm-root"),
        ("cd /tmp && sudo rm -r -f ~", "rm-root"),
        ("sudo -u root rm -rf /", "rm-root"),
        ("timeout 5 nice -n 5 rm -rf ~/", "rm-root"),
        ("echo $(rm -rf /)", "rm-root"),
        ('bash -c "rm -Rf $HOME"', "rm-root"),
        ("rm -rf /*", "rm-root"),
        ("chmod -R 777 /", "chmod-root"),
        ("sudo chown -R nobody ~/", "chmod-root"),
        ("mkfs -t ext4 /dev/sdb1", "mkfs"),
        ("dd if=/dev/zero of=/dev/sda bs=1M", "block-device"),
        ("sudo shutdown -h now", "shutdown"),
        ("systemctl reboot", "shutdown"),
        (":(){ :|:& };:", "fork-bomb"),
        ("git push --force origin main", "force-push-main"),
        ("git push origin +master -f", "force-push-main"),
    ],
)
def test_the_dangerous_tier_refuses_wrecking_commands_by_name(command: str, name: str) -> None:
    verdict = decide(policy("bypassPermissions", allow=("Bash",)), "Bash", ALLOW, command=command)

    assert (verdict.permission, verdict.source) == ("deny", f"tier:dangerous:{name}")
    assert "Do not retry" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf ./build",
        "rm /",
        "rmdir /tmp/x",
        "chmod 755 /",
        "dd if=/dev/sda of=/dev/null",
        "git push --force origin feature/main-fix",
        "git push origin feature/main-fix",
        "echo reboot-check",
        "lsblk",
    ],
)
def test_the_dangerous_tier_leaves_ordinary_commands_alone(command: str) -> None:
    verdict = decide(policy("bypassPermissions"), "Bash", command=command)

    assert verdict.source == "mode:bypassPermissions"


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("rm -rf /tmp/build", "`/tmp/build` is outside the workspace"),
        ("rm -rf ~/project/build", "`~/project/build` is outside the workspace"),
        ("chown -R me /tmp/x", "`/tmp/x` is outside the workspace"),
        ("git push -f", "names no branch"),
        ("git push origin main", "a push to the protected branch `main`"),
    ],
)
def test_a_dangerous_operation_whose_target_is_not_proven_asks_in_bypass(
    command: str, why: str
) -> None:
    verdict = decide(policy("bypassPermissions"), "Bash", command=command)

    assert (verdict.permission, verdict.source[:15]) == ("ask", "tier:dangerous:")
    assert why in verdict.reason and "in every mode" in verdict.reason


@pytest.mark.parametrize(
    "command",
    ["sudo -u sudo " * 3000, "'git push -f x " * 3000, "(rm -r " * 5000, "x(){ " * 5000,
     "(" * 3000 + "ls" + ")" * 3000, "echo $(" * 1500 + "ls" + ")" * 1500],
    ids=["wrappers", "quotes", "subshells", "functions", "nesting", "substitutions"],
)  # fmt: skip
def test_long_crafted_commands_get_a_verdict_and_are_never_allowed_unread(command: str) -> None:
    verdict = decide(policy(), "Bash", command=command)  # its cost is measured in bench/

    assert verdict.permission in ("ask", "deny")
    assert verdict.source != "tier:read-only"


def test_read_only_tools_run_and_tools_that_change_things_ask_naming_the_tool() -> None:
    default = policy()

    assert decide(default, "Read", file_path=f"{CWD}/a").source == "tier:read-only"
    assert decide(default, "LSP", read_only=True).source == "tier:read-only"
    write = decide(default, "Write", file_path=f"{CWD}/a")
    assert write.permission == "ask"
    assert write.reason.startswith("Write can change")
    assert decide(policy(mutating="allow"), "Write").permission == "allow"
    assert decide(policy(read_only_tools=frozenset({"LSP"})), "LSP").permission == "allow"


# --- settings ---------------------------------------------------------------------------------


class Dirs:
    """A home, a project and a managed folder, each with its settings file."""

    def __init__(self, root: Path) -> None:
        self.home, self.project, self.managed = root / "home", root / "project", root / "managed"
        self.files = {
            "user": self.home / ".claude" / "settings.json",
            "project": self.project / ".claude" / "settings.json",
            "local": self.project / ".claude" / "settings.local.json",
            "managed": self.managed / "managed-settings.json",
            "hookline-project": self.project / ".hookline" / "settings.json",
        }
        self.project.mkdir(parents=True)

    def write(self, where: str, data: object) -> Path:
        path = self.files[where]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
        return path

    def policy(self, mode: PermissionMode | None = None) -> tuple[PermissionPolicy, list[str]]:
        settings = load_settings(self.project, home=self.home, managed_dir=self.managed)
        chosen, warnings = PermissionPolicy.from_settings(
            settings, mode=mode, cwd=str(self.project)
        )
        return chosen, [str(w) for w in (*settings.warnings, *warnings)]


@pytest.fixture
def dirs(tmp_path: Path) -> Dirs:
    return Dirs(tmp_path)


def permissions(**keys: Any) -> dict[str, Any]:
    return {"permissions": keys}


def test_rules_of_every_layer_merge_each_named_by_its_highest_layer(dirs: Dirs) -> None:
    dirs.write("user", permissions(allow=["Bash(npm test)", "Read"], deny=["Bash(rm *)"]))
    dirs.write("project", permissions(allow=["Bash(git *)"], ask=["Bash(git push *)"]))
    dirs.write("local", permissions(allow=["Bash(make)"]))
    dirs.write("managed", permissions(deny=["Bash(rm *)", "Bash(curl *)"]))

    chosen, warnings = dirs.policy()

    def named(rules: tuple[tuple[PermissionRule, str], ...]) -> set[str]:
        return {f"{rule} ({source})" for rule, source in rules}

    assert warnings == []
    assert named(chosen.allow) == {
        "Bash(npm test) (user settings)",
        "Read (user settings)",
        "Bash(git *) (project settings)",
        "Bash(make) (local settings)",
    }
    assert named(chosen.ask) == {"Bash(git push *) (project settings)"}
    assert named(chosen.deny) == {
        "Bash(rm *) (managed settings)",
        "Bash(curl *) (managed settings)",
    }
    assert chosen.workspace == (str(dirs.project),)
    verdict = decide(chosen, "Bash", ALLOW, command="rm -f x")
    assert verdict.source == "rule:deny:Bash(rm *) (managed settings)"


@pytest.mark.parametrize(
    ("files", "explicit", "expected"),
    [
        ({}, None, "default"),
        ({"user": "acceptEdits"}, None, "acceptEdits"),
        ({"user": "acceptEdits", "project": "plan"}, None, "plan"),
        ({"project": "plan", "local": "dontAsk"}, None, "dontAsk"),
        ({"local": "dontAsk", "managed": "default"}, None, "default"),
        ({"user": "manual"}, None, "default"),
        ({"user": "bypassPermissions"}, None, "bypassPermissions"),
        ({"user": "plan"}, "acceptEdits", "acceptEdits"),
        ({"managed": "plan"}, "dontAsk", "dontAsk"),
    ],
)
def test_default_mode_goes_by_precedence_and_an_explicit_mode_wins(
    dirs: Dirs, files: dict[str, str], explicit: PermissionMode | None, expected: str
) -> None:
    for where, mode in files.items():
        dirs.write(where, permissions(defaultMode=mode))

    assert dirs.policy(explicit)[0].mode == expected


def test_a_repository_cannot_switch_permission_checks_off(dirs: Dirs) -> None:
    dirs.write("user", permissions(defaultMode="acceptEdits"))
    dirs.write("project", permissions(defaultMode="bypassPermissions"))

    chosen, warnings = dirs.policy()

    assert chosen.mode == "acceptEdits"
    refused = "'bypassPermissions' in project settings is a permission mode that skips approvals"
    assert any(refused in w for w in warnings)


def test_managed_settings_can_refuse_bypass_permissions(dirs: Dirs) -> None:
    dirs.write("user", permissions(defaultMode="bypassPermissions"))
    assert dirs.policy()[0].mode == "bypassPermissions"

    dirs.write("managed", permissions(disableBypassPermissionsMode="disable"))

    assert dirs.policy()[0].mode == "default"
    assert dirs.policy("bypassPermissions")[0].mode == "default"


def test_a_malformed_rule_is_a_warning_naming_file_and_key_and_the_rest_loads(dirs: Dirs) -> None:
    path = dirs.write(
        "project",
        permissions(allow=["Bash(git *)", "Bash(git push", 7, "Write(src/**)"], deny="Bash(rm *)",
                    defaultMode="yolo"),
    )  # fmt: skip

    chosen, warnings = dirs.policy()

    assert [str(rule) for rule, _ in chosen.allow] == ["Bash(git *)"]
    assert chosen.deny == ()
    assert chosen.mode == "default"
    assert len(warnings) == 5
    assert all(w.startswith(str(path)) for w in warnings)
    joined = "\n".join(warnings)
    assert "permissions.allow[1]" in joined and "unbalanced parentheses" in joined
    assert "permissions.allow[2]" in joined
    assert "permissions.allow[3]" in joined and "Edit(src/**)" in joined
    assert "permissions.deny: must be a list" in joined
    assert "'yolo' is not a permission mode" in joined


def test_the_dangerous_tier_is_extended_or_replaced_in_hookline_settings(dirs: Dirs) -> None:
    dirs.write("user", {"hookline": {"permissions": {
        "dangerous": ["Read(~/.ssh/**)"], "readOnlyTools": ["LSP"], "mutating": "allow",
    }}})  # fmt: skip
    dirs.write(
        "hookline-project",
        {"hookline": {"permissions": {
            "dangerous": [{"name": "drop-db", "pattern": r"(?i)drop\s+database"}, {"pattern": "x"},
                          {"name": "bad", "pattern": "("}],
            "readOnlyTools": ["LSP"],
            "mutating": "allow",
        }}},
    )  # fmt: skip

    chosen, warnings = dirs.policy()

    assert [d.name for d in chosen.dangerous] == [
        *(d.name for d in DANGEROUS),
        "drop-db",
        "Read(~/.ssh/**)",
    ]
    assert len(warnings) == 4  # two entries that cannot be read; two values refused
    assert sum("in project settings would" in w and ": refused" in w for w in warnings) == 2
    drop = decide(chosen, "Bash", ALLOW, command='psql -c "DROP DATABASE prod"')
    assert (drop.permission, drop.source) == ("deny", "tier:dangerous:drop-db")
    assert "listed as dangerous in project settings" in drop.reason
    ssh = evaluate(
        chosen,
        tool_name="Read",
        tool_input={"file_path": str(dirs.home / ".ssh" / "id_rsa")},
        read_only=True,
        hook=NO_DECISION,
        cwd=str(dirs.project),
        home=str(dirs.home),
    )
    assert ssh.source == "tier:dangerous:Read(~/.ssh/**)"
    assert decide(chosen, "LSP").source == "tier:read-only"
    assert decide(chosen, "Write").source == "tier:mutating"
    assert decide(chosen, "Write").permission == "allow"

    dirs.write("user", {"hookline": {"permissions": {"dangerousDefaults": False}}})
    assert [d.name for d in dirs.policy()[0].dangerous] == ["drop-db"]
    assert decide(dirs.policy()[0], "LSP").source != "tier:read-only"  # only the user's said so
    assert decide(dirs.policy()[0], "Write").permission == "ask"
