"""Programs that run code given on the line: what they run is read like a command on the line,
and where it cannot be read the line is outside the known subset (``Analysis.unknown``)."""

from __future__ import annotations

import pytest

from hookline.permissions._command_rules import command_matches, cover
from hookline.permissions.bash import analyze


def texts(line: str) -> list[str]:
    return [c.text.replace("\0", "?") for c in analyze(line).commands]


@pytest.mark.parametrize(
    ("line", "runs"),
    [
        ("git ls-remote --upload-pack='touch x' .", "touch x"),
        ("git ls-remote --upload-p='touch x' .", "touch x"),  # git takes an abbreviation
        ("git ls-remote -u 'touch x' .", "touch x"),
        ("git ls-remote -qu'touch x' .", "touch x"),
        ("git -C . fetch --upload-pack 'touch x' origin", "touch x"),
        ("git clone -u 'touch x' src dst", "touch x"),
        ("git push --receive-pack='touch x' origin", "touch x"),
        ("git push --exec='touch x' origin", "touch x"),
        ("git archive --remote=. --exec='touch x' HEAD", "touch x"),
        ("git rebase -x 'touch x' HEAD~1", "touch x"),
        ("git rebase --exec='touch x' HEAD~1", "touch x"),
        ("git difftool --extcmd='touch x'", "touch x"),
        ("git grep -O'touch x' pattern", "touch x"),
        ("git grep --open-files-in-pager='touch x' pattern", "touch x"),
        ("git filter-branch --tree-filter 'touch x' HEAD", "touch x"),
        ("git submodule foreach 'touch x'", "touch x"),
        ("git submodule --quiet foreach --recursive touch x", "touch x"),
        ("git bisect run touch x", "touch x"),
        ("npx -c 'touch x'", "touch x"),
        ("npm exec -- touch x", "touch x"),
        ("npm x --yes -- touch x", "touch x"),
        ("pnpm dlx touch x", "touch x"),
        ("npx --package=y touch x", "touch x"),
        ("flock f touch x", "touch x"),
        ("flock -w 5 f -c 'touch x'", "touch x"),
        ("ssh host touch x", "touch x"),
        ("ssh -p 22 -l me host 'touch x'", "touch x"),
        ("script -qc 'touch x' /dev/null", "touch x"),
        ("script --command='touch x'", "touch x"),
        ("strace -f -o /tmp/o touch x", "touch x"),
        ("chroot / touch x", "touch x"),
        ("unshare -r touch x", "touch x"),
        ("fakeroot touch x", "touch x"),
        ("parallel touch ::: x", "touch ?"),
        ("parallel 'touch {}' ::: x", "touch ? ?"),
        ("echo x | xargs -I{} touch {}", "touch ?"),
        ("echo x | xargs -IF touch F/y", "touch ?"),
        ("sudo -s 'true; touch x'", "touch x"),
        ("sudo -i touch x", "touch x"),
        ("runuser -u bob -- touch x", "touch x"),
        ("runuser -c 'touch x' bob", "touch x"),
        ("setpriv --reuid 1 touch x", "touch x"),
        ("nsenter -t 1 -m touch x", "touch x"),
        ("systemd-run --user touch x", "touch x"),
        ("sg wheel 'touch x'", "touch x"),
        ("sg wheel -c 'touch x'", "touch x"),
        ("uv run touch x", "touch x"),
        ("poetry run touch x", "touch x"),
        ("bundle exec touch x", "touch x"),
        ("direnv exec . touch x", "touch x"),
        ("nix-shell --run 'touch x'", "touch x"),
        ("prlimit --nofile=10 touch x", "touch x"),
        ("xvfb-run -a touch x", "touch x"),
        # each runner read with its real option syntax: an option's value is never the command
        ("prlimit --nofile touch x", "touch x"),  # --RESOURCE[=LIMITS]: only attached
        ("prlimit --nofile=10 -n touch x", "touch x"),
        ("nsenter -t 1 -u -r touch x", "touch x"),  # -r[DIR], -w[DIR]: only attached
        ("nsenter -t 1 --mount --wd touch x", "touch x"),
        ("nsenter -t 1 -W /srv touch x", "touch x"),
        ("strace -A -o /dev/null touch x", "touch x"),  # -A is a flag
        ("strace --quiet --decode-pids comm touch x", "touch x"),
        ("unshare -S 0 touch x", "touch x"),  # -S takes a value
        ("unshare -r --mount --fork touch x", "touch x"),
        ("script -qec'touch x' /dev/null", "touch x"),
        ("script --comm='touch x' -q /dev/null", "touch x"),  # getopt_long abbreviates
        ("script /dev/null -c 'touch x'", "touch x"),  # and permutes
        ("watch -tn 1 touch x", "touch x"),
        ("watch -d --interval=2 -x touch x", "touch x"),
        ("systemd-run -r touch x", "touch x"),  # -r is --remain-after-exit
        ("systemd-run -H me@host --on-active=5 touch x", "touch x"),
        ("setarch -R touch x", "touch x"),  # the architecture is optional
        ("setarch x86_64 -R touch x", "touch x"),
        ("runuser root -c 'touch x'", "touch x"),  # su's options, anywhere
        ("runuser -u root touch x", "touch x"),
        ("runuser -u root -- touch x -c y", "touch x -c y"),
        ("ionice -c 3 -n 7 touch x", "touch x"),
        ("chrt --fifo 10 touch x", "touch x"),
        ("taskset --cpu-list 0 touch x", "touch x"),
        ("setsid -w touch x", "touch x"),
        ("stdbuf -oL -e0 touch x", "touch x"),
        ("nohup touch x", "touch x"),
        ("time -p touch x", "touch x"),
        ("busybox touch x", "touch x"),
        ("doas -u bob touch x", "touch x"),
        ("pkexec --user bob touch x", "touch x"),
        ("unbuffer -p touch x", "touch x"),
        ("docker exec c touch x", "touch x"),
        ("docker exec -it -u root -w /app c touch x", "touch x"),
        ("docker run --rm -e A=1 -v /tmp:/t alpine touch x", "touch x"),
        ("docker run --entrypoint touch alpine x", "touch x"),
        ("docker container exec c touch x", "touch x"),
        ("docker --context prod -H tcp://h exec c touch x", "touch x"),
        ("podman exec c touch x", "touch x"),
        ("kubectl exec -it pod -- touch x", "touch x"),
        ("kubectl -n ns exec pod -c app -- touch x", "touch x"),
        ("kubectl exec pod touch x", "touch x"),
    ],
)
def test_the_code_a_runner_is_given_is_read_as_a_command_of_the_line(line: str, runs: str) -> None:
    analysis = analyze(line)
    assert analysis.known, analysis.unknown
    assert runs in texts(line)
    assert command_matches("touch:*", line, every=False)  # a deny rule meets it
    assert not command_matches("git:*", line, every=True) or line.startswith(("npx", "npm", "pnpm"))


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("python3 -c 'print(1)'", "`python3 -c` runs inline code"),
        ("python3 -Bc 'print(1)'", "`python3 -B` runs inline code"),
        ("python3 -W ignore -c 'x'", "`python3 -c` runs inline code"),
        ("python3 -X dev -c 'x'", "`python3 -c` runs inline code"),
        ('python3 -c "$CODE"', "runs inline code"),
        ("perl -e 'system 1'", "`perl -e` runs inline code"),
        ("perl -lne 'print'", "`perl -l` runs inline code"),
        ("perl -M'POSIX;system 1' x.pl", "`perl -M` runs inline code"),
        ("ruby -e 'x'", "`ruby -e` runs inline code"),
        ("node -e 'x'", "`node -e` runs inline code"),
        ("node --require ./a --eval 'x'", "`node --` runs inline code"),
        ("node --ev 'x'", "`node --` runs inline code"),
        ("php -r 'x'", "`php -r` runs inline code"),
        ("deno eval 'x'", "`deno eval` runs code"),
        ("awk 'BEGIN{system(\"touch x\")}'", "uses `system`"),
        ("awk '{print > \"out\"}' f", "uses `>`"),
        ("awk '{print | \"sh\"}' f", "uses `|`"),
        ("awk 'BEGIN{\"date\" | getline d}'", "uses `|`"),
        ("gawk '@load \"x\"; {}'", "uses `@`"),
        ("gawk -l x '{}'", "`gawk -l` is an awk option"),
        ("awk -e '{}'", "`awk -e` is an awk option"),
        ("sed '1e touch x' f", "the `sed` command `e` runs a command"),
        ("sed 's/a/touch x/e' f", "the `sed s///e` flag"),
        ("sed -n 's/a/b/w out' f", "the `sed s///w` flag writes a file"),
        ("sed -e p -e '$w out' f", "the `sed` command `w` writes a file"),
        ("sed --expression='1W out' f", "the `sed` command `W` writes a file"),
        ('sed "$SCRIPT" f', "`sed` runs a script only run time knows"),
        ("git -c core.pager='touch x' log", "`git -c core.pager` may make git run a program"),
        ("git -c alias.st='!touch x' st", "`git -c alias.st` may make git run a program"),
        ("git -c core.fsmonitor='touch x' status", "`git -c core.fsmonitor` may make git run"),
        ("git -c include.path=/tmp/c status", "`git -c include.path` may make git run"),
        ("git --config-env=core.pager=X log", "`git --config-env` takes a setting"),
        ("git --exec-path=/tmp status", "`git --exec-path=` runs git's commands"),
        ("git clone -c core.hooksPath=h src dst", "`git clone -c core.hooksPath`"),
        ("git clone --config=core.fsmonitor=x src dst", "`git clone -c core.fsmonitor`"),
        ("git --no-pag push", "`git --no-pag` is not a git option"),
        ('git rebase -x "$CMD" HEAD~1', "`git rebase` runs a command only run time knows"),
        ("make --eval='x:=$(shell touch x)' all", "`make --eval` runs makefile code"),
        ("make SHELL=/tmp/evil test", "`make SHELL=` sets code"),
        ("make 'CC=$(shell touch x)' all", "`make CC=` sets code"),
        ('npx -c "$CMD"', "`npx -c` runs a command only run time knows"),
        ("ssh -o ProxyCommand='touch x' host", "`ssh -o ProxyCommand=touch x` may run a local"),
        ("ssh -oLocalCommand=x -oPermitLocalCommand=yes h", "may run a local command"),
        ("ssh -Z host", "`ssh` has an option hookline does not know"),
        ('flock f -c "$CMD"', "`flock -c` runs a string only run time knows"),
        ("ls | parallel", "`parallel` runs commands it reads from its input"),
        ("parallel --frob x ::: a", "`parallel` has an option hookline does not know"),
        ("expect -c 'spawn x'", "`expect -c` runs Tcl code"),
        ("strace -Q touch x", "`strace` has an option hookline does not know"),
        ("uv run --frob x touch y", "`uv` has an option hookline does not know: --frob"),
        ('runuser -c "$CMD" bob', "`runuser` runs a string only run time knows"),
        ("tmux new -d 'touch x'", "`tmux new` runs commands hookline cannot read"),
        ("tmux send-keys 'touch x' Enter", "`tmux send-keys` runs commands"),
        ("screen -dm touch x", "`screen -dm` runs commands hookline cannot read"),
        ("vim -c '!touch x' f", "`vim -c` runs commands hookline cannot read"),
        ("nvim --cmd 'lua os.execute(1)'", "`nvim --cmd` runs commands"),
        ("vi '+!touch x' f", "`vi +!touch x` runs commands"),
        ("gdb -batch -ex 'shell touch x'", "`gdb -batch` runs commands"),
        ("emacs --eval '(shell-command \"touch x\")'", "`emacs --eval` runs commands"),
        ("gdb -eval-command='shell touch x'", "`gdb -eval-command=shell touch x` runs commands"),
        ("gdb --init-eval-command='shell touch x'", "runs commands hookline cannot read"),
        ("gdb --ev 'shell touch x'", "`gdb --ev` runs commands hookline cannot read"),
        ("gdb -iex 'shell touch x' -q", "`gdb -iex` runs commands hookline cannot read"),
        ("systemd-run -p ExecStartPre='/bin/touch x' true", "`systemd-run -p` may run a command"),
        ("runuser root touch x", "`runuser USER ARGS` gives its words to a shell"),
        ("runuser -s /usr/bin/python3 root -c 'print(1)'", "`runuser -s` runs the code with"),
        ("watch --frob touch x", "`watch` has an option hookline does not know: --frob"),
        ("script --frob -c 'touch x'", "`script` has an option hookline does not know"),
        ("docker run --health-cmd 'touch x' alpine", "`docker run --health-cmd` runs code"),
        ("docker run --frob alpine touch x", "`docker run` has an option hookline does not know"),
        ("docker compose exec web touch x", "`docker compose` runs a command hookline does not"),
        ("kubectl run x --image=alpine -- touch x", "`kubectl run` runs a command in a pod"),
        ("kubectl exec -f pod.yaml touch x", "`kubectl exec -f` without `--` runs words"),
    ],
)
def test_code_that_cannot_be_read_puts_the_line_outside_the_known_subset(
    line: str, reason: str
) -> None:
    analysis = analyze(line)
    assert any(reason in why for why in analysis.unknown), analysis.unknown
    assert command_matches("rm:*", line, every=False)  # every deny rule meets it
    assert not command_matches(f"{line.split()[0]}:*", line, every=True)  # no allow rule proves it


@pytest.mark.parametrize(
    "line",
    [
        "make test", "npm run build", "python3 tool.py -c x", "python3 -m pytest -q",
        "./deploy.sh", "awk '{print $1}' f", "awk -F: -v n=1 '$3 == 0 {print \"a>b\"}' f",
        "awk -f prog.awk f", "sed -n p f", "sed 's/e/w/g' f", "sed -e 's/a/b/' -e '/x/d' f",
        "sed --sandbox 's/a/b/e' f", "perl script.pl -e", "node app.js", "git log --oneline",
        "git -c color.ui=never log", "git -C sub status", "make CC=clang all", "yarn test",
        "docker ps -a", "docker build -t x .", "docker run --rm alpine", "gdb -q ./prog",
        "kubectl get pods --selector app=x", "ionice -p 123", "chrt -p 123", "taskset -p 1 123",
        "setpriv --dump", "prlimit -p 123 --nofile",
    ],
)  # fmt: skip
def test_a_program_that_runs_a_file_or_only_reads_its_input_is_judged_as_itself(line: str) -> None:
    analysis = analyze(line)
    assert analysis.known, analysis.unknown
    assert len(analysis.commands) == 1
    assert command_matches(f"{analysis.commands[0].name}:*", line, every=True) or line[0] == "."


def test_an_awk_comparison_outside_a_string_is_not_told_from_a_redirect_so_it_asks() -> None:
    """`>` outside a string may be `print > file`: the model does not parse awk, it refuses."""
    assert analyze("awk '$3 > 0' f").unknown


@pytest.mark.parametrize(
    ("rule", "line"),
    [
        ("git:*", "git ls-remote --upload-pack='touch x' ."),
        ("git:*", "git -c core.sshCommand='touch x' fetch"),
        ("flock:*", "flock f touch x"),
        ("ssh:*", "ssh host 'touch x'"),
        ("npx:*", "npx -c 'touch x'"),
        ("xargs:*", "xargs -I{} touch {}"),
        ("python3:*", "python3 -c 'print(1)'"),
        ("awk:*", "awk 'BEGIN{system(\"touch x\")}'"),
        ("sed:*", "sed '1e touch x' f"),
        ("make:*", "make --eval='x:=$(shell touch x)'"),
    ],
)
def test_an_allow_rule_on_a_runner_is_no_proof_for_what_it_runs(rule: str, line: str) -> None:
    assert not command_matches(rule, line, every=True)
    assert cover([rule], line) is None
    assert command_matches("touch:*", line, every=False) or analyze(line).unknown


def test_allow_rules_that_name_every_command_prove_a_runner_line() -> None:
    assert cover(["flock:*", "touch:*"], "flock f touch x") == [0, 1]
    assert cover(["git ls-remote:*", "touch:*"], "git ls-remote --upload-pack='touch x' .")
