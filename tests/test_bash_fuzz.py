"""The differential fuzzer: generated Bash lines the permission layer auto-allows, run by real
Bash, must do no more than the layer claimed (tests/bashfuzz/).

Lines come from a grammar of Bash's node types (hypothesis, derandomized: the same lines on
every run). Each line the layer auto-allows — read-only in default mode, or a provable file
edit in acceptEdits — runs in a bubblewrap jail under strace, in a fresh workspace with files,
a git repository and links. The judge checks that Bash started only programs the analysis
listed and changed nothing a read-only line may not (or, for acceptEdits, nothing but files an
editing program changes strictly inside the workspace and outside its protected folders),
beside the incidental writes ``bashfuzz.known`` lists with why each is harmless.

A disagreement is a bug in the analyser. Those found and not fixed yet are listed in
``bashfuzz.known.FINDINGS``, each with its smallest reproduction, which runs here as a strict
xfail: the day the analyser gets it right, its test fails until the entry moves to ``FIXED``,
whose reproductions run as plain tests, so a fixed finding stays fixed. A disagreement
no entry explains fails the fuzzing test, with the line and what strace saw. The controls show
the judge can fail: a line doing more than a claim given by hand is caught, and an honest one
passes with its programs and its git bookkeeping seen.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bashfuzz.check import check
from bashfuzz.jail import Jail, Run, jails, missing
from bashfuzz.judge import Claim, claim_of, disagreements
from bashfuzz.known import FINDINGS, FIXED, Finding, explained
from bashfuzz.lines import generate

pytestmark = pytest.mark.skipif(
    missing() is not None, reason=f"the fuzzer needs bubblewrap and strace: {missing()}"
)
#: Lines the fuzzing test checks against Bash (auto-allowed lines), and lines it draws to
#: find them (between a quarter and a third of them are auto-allowed).
CHECKED, DRAWN = 1_000, 4_500


@pytest.fixture(scope="module")
def base() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="fuzz-bash-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def jail(base: Path) -> Jail:
    return jails(base / "controls", 1)[0]


def one(jail: Jail, line: str) -> Run:
    (run,) = jail.run([line])
    return run


def test_the_judge_catches_a_program_and_a_write_beyond_the_claim(jail: Jail) -> None:
    claim = Claim("read-only", frozenset({"ls"}))  # a claim given by hand, wrong on purpose
    found = disagreements(claim, one(jail, "ls; touch made.txt"), jail)

    assert found is not None
    assert any(s.startswith("started `touch`") for s in found.seen), found
    assert any("openat" in s and s.endswith("/ws/made.txt [O_WRONLY|O_CREAT|O_NOCTTY|O_NONBLOCK]")
               for s in found.seen), found  # fmt: skip


def test_the_judge_catches_an_edit_outside_the_workspace_and_one_into_git(jail: Jail) -> None:
    claim = Claim("acceptEdits", frozenset({"cp"}))
    outside = disagreements(claim, one(jail, "cp a.txt ../outside/x"), jail)
    into_git = disagreements(claim, one(jail, "cp a.txt gitlink/x"), jail)

    assert outside is not None and "not strictly inside" in outside.seen[0], outside
    assert into_git is not None and "/ws/.git/x" in into_git.seen[0], into_git


def test_an_honest_read_and_an_honest_edit_agree_with_what_bash_did(jail: Jail) -> None:
    read = "cat a.txt | wc -l; git status --short"
    edit = "mkdir -p sub/d && touch sub/d/new.txt && cp a.txt sub/copy.txt"
    read_claim = claim_of(read, workspace=jail.workspace, home=jail.home)
    edit_claim = claim_of(edit, workspace=jail.workspace, home=jail.home)
    assert read_claim is not None and read_claim.kind == "read-only"
    assert edit_claim is not None and edit_claim.kind == "acceptEdits"
    read_run, edit_run = jail.run([read, edit])

    assert sorted(e.argv[0] for e in read_run.trace.execs[1:]) == ["cat", "git", "wc"]
    # git refreshed its index: an incidental write, seen and excused
    assert any(c.path.endswith("/ws/.git/index.lock") for c in read_run.trace.changes)
    assert disagreements(read_claim, read_run, jail) is None
    changed = {c.path.rsplit("/ws/", 1)[-1] for c in edit_run.trace.changes}
    assert changed >= {"sub/d", "sub/d/new.txt", "sub/copy.txt"}
    assert disagreements(edit_claim, edit_run, jail) is None


def test_generated_lines_the_permission_layer_auto_allows_do_only_what_it_claimed(
    base: Path,
) -> None:
    report = check(generate(DRAWN), base=base / "fuzz", want=CHECKED)

    assert report.checked >= CHECKED, report
    assert report.read_only > CHECKED // 2 and report.accept_edits > CHECKED // 20, report
    assert report.new == [], "\n".join(str(found) for found in report.new)


@pytest.fixture(scope="module")
def repro_runs(base: Path) -> dict[str, tuple[Claim | None, Run | None, Jail]]:
    """Each finding's reproduction (open and fixed), claimed and (when claimed) run, in one
    batch."""
    jail = jails(base / "findings", 1)[0]
    every = (*FINDINGS, *FIXED)
    claims = {f.name: claim_of(f.repro, workspace=jail.workspace, home=jail.home)
              for f in every}  # fmt: skip
    claimed = [f for f in every if claims[f.name] is not None]
    runs = dict(zip((f.name for f in claimed), jail.run([f.repro for f in claimed]),
                    strict=True))  # fmt: skip
    return {f.name: (claims[f.name], runs.get(f.name), jail) for f in every}


def _xfail(finding: Finding) -> object:
    return pytest.param(finding, id=finding.name,
                        marks=pytest.mark.xfail(strict=True, reason=finding.about))  # fmt: skip


@pytest.mark.parametrize("finding", [*(_xfail(f) for f in FINDINGS), *FIXED],
                         ids=lambda f: f.name)  # fmt: skip
def test_a_finding_is_fixed(
    finding: Finding, repro_runs: dict[str, tuple[Claim | None, Run | None, Jail]]
) -> None:
    """Open findings (``FINDINGS``) fail here, as strict xfails; fixed ones (``FIXED``) pass,
    and must go on passing."""
    claim, run, jail = repro_runs[finding.name]
    if claim is None:
        return  # the layer asks now
    assert run is not None
    assert disagreements(claim, run, jail) is None


@pytest.mark.parametrize("finding", FINDINGS, ids=lambda f: f.name)
def test_a_listed_finding_explains_its_own_reproduction(
    finding: Finding, repro_runs: dict[str, tuple[Claim | None, Run | None, Jail]]
) -> None:
    """While a finding stands, its entry explains all its reproduction does (else the entry
    would excuse nothing, or something else)."""
    claim, run, jail = repro_runs[finding.name]
    found = disagreements(claim, run, jail) if claim is not None and run is not None else None
    if found is None:
        return
    assert found.claim == finding.claim
    unexplained, by = explained(found)
    assert unexplained == () and finding.name in by, found
