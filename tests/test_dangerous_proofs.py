"""The dangerous tier proves its targets: the verdict ``evaluate`` reaches in bypassPermissions
for each spelling of a recursive delete, a recursive chmod, a write that may reach a device and
a push that may force, and the ordinary commands that must still run.

A proven-catastrophic target is denied; a target the tier cannot prove harmless asks, with a
reason naming what could not be proved; a proven one runs. The workspace is a real folder
(``build/``, ``src/``, a ``.git`` whose ``origin/HEAD`` names ``develop`` as the default
branch, ``link_home`` -> the home folder); nothing here runs a command.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hookline._decisions import Decision
from hookline.permissions import DANGEROUS, PermissionPolicy, Verdict, evaluate
from hookline.permissions._rules import PermissionRule

# (line, verdict in bypassPermissions, a phrase its reason holds). @WS@: the workspace.
# fmt: off
ROWS = [
    # the brief's spellings: each asks or is denied, never runs
    ("cd nope 2>/dev/null; rm -rf ../*", "deny", "dangerous tier, rm-root"),
    ("hash -p /bin/rm ls; ls -rf ~/*", "deny", "rm-root"),
    ("trap -- 'rm -rf ~/*' EXIT", "deny", "rm-root"),
    ("trap 'rm -rf build' EXIT; cd /tmp", "ask", "`trap` runs `rm`"),
    # code run later or in a folder only run time knows: an absolute or ~ target is still known
    ("trap 'rm -rf /' EXIT", "deny", "rm-root"),
    ("trap \"chmod -R 777 ~\" INT", "deny", "chmod-root"),
    ("f() { rm -rf ~; }; cd /tmp; f", "deny", "rm-root"),
    ("cd $X && rm -rf /*", "deny", "rm-root"),
    ("cd $X; rm -rf ~", "deny", "rm-root"),
    ("cd $X && rm -rf ~root/*", "deny", "rm-root"),
    ("cd $X && eval 'rm -rf ~/*'", "deny", "rm-root"),
    ("cd $X && bash -c 'rm -rf /'", "deny", "rm-root"),
    ("find ~ -exec env rm -rf {} +", "deny", "rm-root"),
    ("flock f rm -rf ~/x", "ask", "outside the workspace"),
    ("flock -n f rm -rf ~/x", "ask", "outside the workspace"),
    ("chroot /mnt rm -rf x", "ask", "`chroot` runs `rm`"),
    ("f() { rm -rf build; }; cd /tmp; f", "ask", "`f` runs `rm`"),
    ("parallel rm -rf ::: a", "ask", "`parallel` runs `rm`"),
    ("rm -rf ~+", "deny", "rm-root"),
    ("rm -rf ~-/x", "ask", "`~-/x` is only known at run time"),
    ("find . -delete -name x", "deny", "rm-root"),
    ("find . -name x -o -delete", "deny", "rm-root"),
    ("find . -mtime -1 -delete", "ask", "the workspace root itself"),
    ("find . -path './*' -exec rm -rf {} +", "ask", "the workspace root itself"),
    ("x=~; rm -rf $x/*", "ask", "`$x/*` is only known at run time"),
    ("echo ~ | xargs -I{} rm -rf {}/x", "ask", "more targets at run time"),
    ("echo ~ | xargs rm -rf", "ask", "more targets at run time"),
    ("git push -f", "ask", "names no branch"),
    ("git push --force-w", "ask", "`git push --force-with-lease` may rewrite"),
    ("git push --force-w origin main", "deny", "force-push-main"),
    ("git push --mirr", "deny", "force-push-main"),
    ("git push --mirror", "deny", "force-push-main"),
    ("git push -f origin heads/main", "deny", "force-push-main"),
    ("git push -f origin @", "ask", "`@` does not name one literal branch"),
    ("git push -f origin HEAD", "ask", "`HEAD` does not name one literal branch"),
    ("git push origin +refs/heads/*:refs/heads/*", "ask", "does not name one literal branch"),
    ("git push origin +HEAD", "ask", "does not name one literal branch"),
    ("git push origin :main", "deny", "force-push-main"),
    ("git push --delete origin master", "deny", "force-push-main"),
    ("git push -f origin develop", "deny", "force-push-main"),  # the default branch
    ("git push -f origin refs/heads/develop", "deny", "force-push-main"),
    ("git push -f origin feature:develop", "deny", "force-push-main"),
    ("git -C . push -f origin main", "deny", "force-push-main"),
    ("git --no-pager push --force origin main", "deny", "force-push-main"),
    ("git -c color.ui=never push", "ask", "`git -c` settings may make the push force"),
    ("git push --forc origin main", "ask", "an option hookline does not know"),
    ("git push -f origin $BRANCH", "ask", "only known at run time"),
    ("cd $X && git push -f origin feature-x", "ask", "a repository only known at run time"),
    ("GIT_DIR=/x/.git git push -f origin feature-x", "ask", "a repository only known at run"),
    ("ssh host git push -f origin x", "ask", "`ssh` runs `git push`"),
    # a push that cannot force asks too when it may reach a protected branch
    ("git push origin main", "ask", "a push to the protected branch `main`"),
    ("git push origin heads/main", "ask", "a push to the protected branch `main`"),
    ("git push origin refs/heads/master", "ask", "a push to the protected branch `master`"),
    ("git push origin HEAD:develop", "ask", "a push to the protected branch `develop`"),
    ("git push origin feature-x main", "ask", "a push to the protected branch `main`"),
    ("git push", "ask", "the push names no branch"),
    ("git push origin", "ask", "the push names no branch"),
    ("git push origin HEAD", "ask", "destination `HEAD` does not name one literal branch"),
    ("git push --all origin", "ask", "`git push --all` pushes every branch"),
    ("git push --branches", "ask", "`git push --branches` pushes every branch"),
    ("git push --tags origin main", "ask", "a push to the protected branch `main`"),
    ("cd $X && git push origin feature-x", "ask", "a repository only known at run time"),
    ("git send-pack --force origin main", "deny", "force-push-main"),
    ("dd of=//dev/sda", "deny", "block-device"),
    ("> /proc/self/root/dev/sda", "deny", "block-device"),
    ("echo x > /dev/./sda", "deny", "block-device"),
    ("echo x >//dev//sda1", "deny", "block-device"),
    ("cat img | tee /dev/../dev/sda", "deny", "block-device"),
    ("cp img /dev/nvme0n1", "deny", "block-device"),
    ("echo b > /proc/sysrq-trigger", "ask", "leads into /dev, /proc or /sys"),
    ("> /proc/1/root/dev/sda", "deny", "block-device"),  # a link hookline may not read
    ("> /proc/1/task/1/root/dev/sda", "deny", "block-device"),
    ("> /proc/thread-self/root//dev/nvme0n1", "deny", "block-device"),
    ("echo x > /dev/shm/../sda", "deny", "block-device"),
    ("echo x > /proc/self/root/dev/shm/../sda", "deny", "block-device"),
    ("echo x > /dev/mqueue/q", "ask", "leads into /dev, /proc or /sys"),
    ("echo x > /proc/self/cwd/x", "ask", "leads into /dev, /proc or /sys"),
    ("npm exec -- dd of=/dev/sda", "deny", "block-device"),
    ("npm run x -- /dev/sda", "ask", "`npm` names `/dev/sda`, which it may write"),
    ("> /proc/self/root@WS@/a.txt", "ask", "leads into /dev, /proc or /sys"),
    ("dd if=x of=$DISK", "ask", "`of=$DISK` is only known at run time"),
    ("echo x > \"$OUT\"", "ask", "only known at run time"),
    ("cd $X && echo x > sda", "ask", "relative to a folder only known at run time"),
    ("ln -s /dev/sda d; echo x > d", "ask", "`ln` names `/dev/sda`"),
    ("ln -s \"$D\" d; echo x > d", "ask", "`ln` on the same line may change it first"),
    ("tee $(echo /dev/sda)", "ask", "only known at run time"),
    ("sort -o /dev/sda x", "ask", "`sort` names `/dev/sda`, which it may write"),
    ("curl --output=//dev/sda https://example.com", "ask", "`curl` names `//dev/sda`"),
    # more recursive deletes and changes that cannot be proven
    ("rm -rf \"$DIR\"", "ask", "only known at run time"),
    ("rm -rf $(pwd)/build", "ask", "only known at run time"),
    ("rm -rf /tmp/build", "ask", "outside the workspace"),
    ("rm -rf ~/project/build", "ask", "outside the workspace"),
    ("rm -rf link_home/", "ask", "outside the workspace"),
    ("rm -rf link_home/x", "ask", "outside the workspace"),
    ("cd nope && rm -rf x", "ask", "which does not exist"),
    ("cd $X && rm -rf build", "ask", "a folder only known at run time"),
    ("ln -s ~ h && rm -rf h/*", "ask", "`ln` on the same line may change it first"),
    ("ls() { rm -rf \"$@\"; }; ls ~/*", "ask", "`ls` runs `rm`"),
    ("rm $FLAGS build", "ask", "`$FLAGS` is only known at run time"),
    ("find -L . -name x -delete", "ask", "find -L"),
    ("find . -name x -exec ssh h rm -rf {} +", "ask", "cannot be proven harmless"),
    ("chmod -R 777 $D", "ask", "`$D` is only known at run time"),
    ("chown -R me /tmp/x", "ask", "outside the workspace"),
    ("chgrp --recursive staff ../", "deny", "chmod-root"),
    ("timeout 5 chmod -R 777 ~/x", "ask", "outside the workspace"),
    ("hash -p $P ls; ls -rf build", "ask", "`hash -p` makes a name run a program"),
    ("enable -f ./x.so rm; rm -rf build", "ask", "`enable -f` loads a builtin"),
    ("ls -rf build; hash -p /bin/rm ls; ls -rf ~/*", "deny", "rm-root"),
    ("bash -c 'x=~; rm -rf $x/*'", "ask", "only known at run time"),
    ("watch -n1 'rm -rf ~/x'", "ask", "outside the workspace"),
    # review round: my own attack pass
    ("unbuffer rm -rf ~/x", "ask", "`unbuffer` runs `rm` in a way hookline does not model"),
    ("(cd build); rm -rf ../x", "ask", "outside the workspace"),
    ("rm -rf */..", "deny", "rm-root"),
    ("find build -exec rm -rf {} ~ +", "deny", "rm-root"),
    ("chmod -R 777 ~+", "deny", "chmod-root"),
    ("cp --target-directory=/dev sda", "ask", "leads into /dev, /proc or /sys"),
    ("cp -t /dev sda", "ask", "leads into /dev, /proc or /sys"),
    ("mv build /dev/sda", "deny", "block-device"),
    ("git push -f origin MAIN", "deny", "force-push-main"),
    ("git push origin feature +main", "deny", "force-push-main"),
    ("git push --prune origin", "ask", "`git push --prune` may rewrite or delete branches"),
    # ordinary work that must still run in bypassPermissions
    ("echo x > /devices.txt", "allow", ""),
    ("rm -rf build/", "allow", ""),
    ("rm -rf build", "allow", ""),
    ("rm -rf ./build src/gen", "allow", ""),
    ("rm -rf @WS@/build", "allow", ""),
    ("cd build && rm -rf ../src/gen", "allow", ""),
    ("timeout 5 rm -rf build", "allow", ""),
    ("flock f rm -rf build", "allow", ""),
    ("rm -rf ~+/build", "allow", ""),
    ("bash -c 'rm -rf build'", "allow", ""),
    ("find . -name '*.pyc' -delete", "allow", ""),
    ("chmod -R 755 build", "allow", ""),
    ("chmod -R u+w build src", "allow", ""),
    ("chmod 644 a.txt", "allow", ""),
    ("rm a.txt", "allow", ""),
    ("mkdir -p build/x && rm -rf build/x", "allow", ""),
    ("git push origin feature-x", "allow", ""),
    ("git push -f origin feature-x", "allow", ""),
    ("git push --force-with-lease origin HEAD:feature-x", "allow", ""),
    ("git push --delete origin old-feature", "allow", ""),
    ("git push --tags", "allow", ""),  # tags only
    ("git push -u origin feature-x refs/heads/topic", "allow", ""),
    ("echo hi > out.txt", "allow", ""),
    ("make 2>&1 | tee build.log", "allow", ""),
    ("mv a.txt b.txt; cp -r src lib", "allow", ""),
    ("cat a.txt > /dev/null 2>&1", "allow", ""),
    ("dd if=/dev/zero of=out.img bs=1 count=1", "allow", ""),
    ("dd if=/dev/sda of=out.img", "allow", ""),
    ("sort -o out.txt a.txt", "allow", ""),
    ("echo rm -rf /", "allow", ""),
    # programs whose writes are not modelled: no write of theirs is called a device write
    ("npm install \"$PKG\"", "allow", ""),
    ("npm install --save-dev left-pad", "allow", ""),
    ("pip install -e .", "allow", ""),
    ("make install PREFIX=/opt/tool", "allow", ""),
    # shared memory is a folder of plain files, not a device
    ("echo x > /dev/shm/hookline-proof.txt", "allow", ""),
    ("ls -la", "allow", ""),
]
# fmt: on

#: Lines the tier proves (no entry denies or asks) though another check may ask for them:
#: hookline's protected-folder check asks for a write whose target run time supplies (``{}``),
#: the known subset for ``hash -p``.
# fmt: off
PROVEN = [
    "find . -name __pycache__ -exec rm -rf {} +", "find build -type f -exec rm {} \\;",
    "find . -type d -name '*.egg-info' -exec rm -r {} +", "hash -p /bin/rm del; del -rf build",
    "find build -mtime +7 -delete", "chmod -R go-w build", "rm -rf build/",
    "git push origin feature-x",
]
# fmt: on


@dataclass(frozen=True)
class Place:
    ws: str
    home: str


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    ws = tmp_path_factory.mktemp("ws").resolve()
    home = tmp_path_factory.mktemp("home").resolve()
    for folder in ("build", "src/gen", ".git/refs/remotes/origin"):
        (ws / folder).mkdir(parents=True)
    (ws / "a.txt").write_text("a\n")
    (ws / ".git/refs/remotes/origin/HEAD").write_text("ref: refs/remotes/origin/develop\n")
    os.symlink(home, ws / "link_home")
    return Place(str(ws), str(home))


def decide(place: Place, line: str, mode: str = "bypassPermissions", **rules: str) -> Verdict:
    parsed = {k: ((PermissionRule.parse(v), "project settings"),) for k, v in rules.items()}
    policy = PermissionPolicy(mode=mode, workspace=(place.ws,), **parsed)  # type: ignore[arg-type]
    command = line.replace("@WS@", place.ws)
    return evaluate(
        policy,
        tool_name="Bash",
        tool_input={"command": command},
        read_only=False,
        hook=Decision(),
        cwd=place.ws,
        home=place.home,
    )


def unproven(place: Place, line: str) -> str | None:
    """The first reason an entry of the built-in tier gives for not proving ``line``."""
    given = {"command": line.replace("@WS@", place.ws)}
    where = {"cwd": place.ws, "home": place.home, "roots": (place.ws,)}
    found = (d.unproven("Bash", given, **where) for d in DANGEROUS)
    return next((why for why in found if why), None)


def _id(line: str) -> str:
    return line.replace("\\", "\\\\")


@pytest.mark.parametrize(
    ("line", "expected", "phrase"), [pytest.param(*r, id=_id(r[0])) for r in ROWS]
)
def test_bypass_runs_only_what_the_tier_proves(
    place: Place, line: str, expected: str, phrase: str
) -> None:
    verdict = decide(place, line)
    said = f"{verdict.permission}: {verdict.reason} [{verdict.source}]"
    assert verdict.permission == expected, said
    if expected == "deny":
        assert verdict.source.startswith("tier:dangerous:") and phrase in verdict.reason, said
    elif expected == "ask":  # the tier's own reason (another check may have asked first)
        why = unproven(place, line)
        assert why is not None and phrase in why, (why, said)
    else:
        assert unproven(place, line) is None, said


@pytest.mark.parametrize("line", [pytest.param(line, id=_id(line)) for line in PROVEN])
def test_the_tier_proves_ordinary_work(place: Place, line: str) -> None:
    assert unproven(place, line) is None
    assert decide(place, line).source[:15] != "tier:dangerous:"


#: A workspace in shared memory (/dev/shm): its own files are plain files; a link in it to a
#: disk, or through a link to /dev, is still a disk.
SHARED_MEMORY = [
    ("echo hi > out.txt", "allow"), ("rm -rf build", "allow"), ("chmod -R 755 build", "allow"),
    ("make 2>&1 | tee build.log", "allow"), ("dd if=/dev/zero of=x.img count=1", "allow"),
    ("cp a.txt build/", "allow"), ("echo x > disk", "deny"), ("cp a.txt disk", "deny"),
    ("echo x > devdir/sda", "deny"), ("echo x > devdir/mqueue/q", "ask"),
    ("rm -rf @WS@", "deny"),
]  # fmt: skip


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    if not os.access("/dev/shm", os.W_OK):
        pytest.skip("no writable /dev/shm here")
    ws = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="hookline-ws-"))
    try:
        (ws / "build").mkdir()
        (ws / "a.txt").write_text("a\n")
        os.symlink("/dev/sda", ws / "disk")
        os.symlink("/dev", ws / "devdir")
        yield Place(str(ws), str(tmp_path_factory.mktemp("home").resolve()))
    finally:
        shutil.rmtree(ws)


@pytest.mark.parametrize(("line", "expected"), SHARED_MEMORY)
def test_a_workspace_in_shared_memory_is_not_a_device(
    shared: Place, line: str, expected: str
) -> None:
    verdict = decide(shared, line)
    assert verdict.permission == expected, f"{verdict.reason} [{verdict.source}]"
    if expected != "allow":
        assert verdict.source.startswith("tier:dangerous:"), verdict.source


def test_a_file_tool_in_shared_memory_writes_a_file_and_not_a_linked_disk(shared: Place) -> None:
    policy = PermissionPolicy(mode="bypassPermissions", workspace=(shared.ws,))
    verdicts = {
        name: evaluate(policy, tool_name="Write", tool_input={"file_path": f"{shared.ws}/{name}",
                       "content": "x"}, read_only=False, hook=Decision(), cwd=shared.ws,
                       home=shared.home).source
        for name in ("notes.txt", "disk")
    }  # fmt: skip
    assert verdicts["notes.txt"] == "mode:bypassPermissions"
    assert verdicts["disk"] == "tier:dangerous:block-device"


def test_the_table_covers_each_kind_with_ten_spellings_or_more() -> None:
    kinds = {"rm": 0, "chmod": 0, "push": 0, "dev": 0}
    for line, expected, _ in ROWS:
        if expected == "allow":
            continue
        kind = next((k for k in kinds if k in line), None) or ("dev" if ">" in line else "")
        if kind:
            kinds[kind] += 1
    assert kinds["rm"] >= 10 and kinds["push"] >= 10 and kinds["dev"] >= 10, kinds


UNPROVEN = [
    "git push -f origin",
    "x=~; rm -rf $x/*",
    "git push -f",
    'echo x > "$OUT"',
    "chmod -R 777 $D",
]


@pytest.mark.parametrize("line", UNPROVEN)
def test_an_unproven_target_asks_in_every_mode_and_no_allow_rule_lifts_it(
    place: Place, line: str
) -> None:
    assert unproven(place, line) is not None
    for mode in ("default", "acceptEdits", "bypassPermissions"):
        verdict = decide(place, line, mode, allow="Bash")
        assert verdict.permission == "ask", (mode, verdict)
    assert decide(place, line, "plan").permission != "allow"
    refused = decide(place, line, "dontAsk")
    assert refused.permission == "deny" and "dontAsk" in refused.reason


def test_plan_mode_refuses_what_the_tier_cannot_prove(place: Place) -> None:
    verdict = decide(place, "git push -f", "plan")
    assert verdict.permission == "deny" and verdict.source == "mode:plan"


def test_a_deny_rule_still_wins_over_the_ask(place: Place) -> None:
    verdict = decide(place, "x=~; rm -rf $x/*", deny="Bash(rm:*)")
    assert verdict.permission == "deny" and verdict.source.startswith("rule:deny:")


def test_the_default_branch_is_read_from_the_repository(place: Place, tmp_path: Path) -> None:
    """Without ``origin/HEAD`` only main and master are protected; with it, its branch too."""
    bare = tmp_path / "repo"
    (bare / ".git").mkdir(parents=True)
    line = f"git -C {bare} push -f origin trunk"
    assert decide(place, line).permission == "allow"
    (bare / ".git/refs/remotes/origin").mkdir(parents=True)
    (bare / ".git/refs/remotes/origin/HEAD").write_text("ref: refs/remotes/origin/trunk\n")
    assert decide(place, line).permission == "deny"


def test_a_link_to_a_disk_is_judged_where_it_leads(place: Place, tmp_path: Path) -> None:
    """A link made by an earlier call is resolved when the write is judged."""
    link = Path(place.ws) / "disk"
    os.symlink("/dev/sda", link)
    try:
        assert decide(place, "echo x > disk").permission == "deny"
        assert decide(place, "dd if=x of=./disk").permission == "deny"
    finally:
        link.unlink()
    assert decide(place, "echo x > disk").permission == "allow"


def test_dangerous_defaults_off_drops_the_proofs_too(place: Place) -> None:
    assert decide(place, "git push -f").permission == "ask"
    policy = PermissionPolicy(mode="bypassPermissions", workspace=(place.ws,), dangerous=())
    verdict = evaluate(
        policy,
        tool_name="Bash",
        tool_input={"command": "git push -f"},
        read_only=False,
        hook=Decision(),
        cwd=place.ws,
        home=place.home,
    )
    assert verdict.permission == "allow"


@pytest.mark.parametrize(
    ("tool", "path", "expected"),
    [("Write", "/dev/sda", "deny"), ("Write", "//dev/./sda", "deny"),
     ("Edit", "/proc/self/root/dev/sda", "deny"), ("Write", "/proc/sysrq-trigger", "ask"),
     ("NotebookEdit", "/sys/power/state", "ask"), ("Write", "/dev/null", "allow"),
     ("Write", "@WS@/out.txt", "allow")],
)  # fmt: skip
def test_a_file_tool_writing_a_device_is_judged_on_the_resolved_path(
    place: Place, tool: str, path: str, expected: str
) -> None:
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    policy = PermissionPolicy(mode="bypassPermissions", workspace=(place.ws,))
    given = {key: path.replace("@WS@", place.ws), "content": "x"}
    verdict = evaluate(
        policy, tool_name=tool, tool_input=given, read_only=False, hook=Decision(),
        cwd=place.ws, home=place.home,
    )  # fmt: skip
    assert verdict.permission == expected, verdict
    if expected != "allow":
        assert verdict.source == "tier:dangerous:block-device", verdict
