"""The dangerous tier on the parsed Bash line: what each built-in entry refuses, and what not."""

from __future__ import annotations

import re

import pytest

from hookline.permissions._dangerous import DANGEROUS, Danger
from hookline.permissions._rules import PermissionRule

CWD, HOME, ROOT = "/work/project", "/home/dev", "/work/project"


def dangers(line: str, *, cwd: str = CWD, roots: tuple[str, ...] = (ROOT,)) -> list[str]:
    given = {"command": line}
    return [d.name for d in DANGEROUS if d.matches("Bash", given, cwd=cwd, home=HOME, roots=roots)]


REFUSED = [
    # recursive deletes: flags combined, separate or long; after quotes, ~, $HOME, cd, globs
    ("rm -rf /", "rm-root"), ("rm -fr /usr", "rm-root"), ("rm -r -f /etc", "rm-root"),
    ("rm --recursive --force /var", "rm-root"), ("rm -R /boot", "rm-root"),
    ("rm -rf -- /", "rm-root"), ("rm -rf '/'", "rm-root"), ("/bin/rm -rf /home", "rm-root"),
    ("rm -rf ~", "rm-root"), ("rm -rf ~/", "rm-root"), ('rm -rf "$HOME"', "rm-root"),
    ("rm -rf ${HOME}/", "rm-root"), ("rm -rf /home/dev/..", "rm-root"),
    ("rm -rf /*", "rm-root"), ("rm -rf /?*", "rm-root"), ("rm -rf /[a-z]*", "rm-root"),
    ("rm -rf ~/*", "rm-root"), ('rm -rf "$HOME"/*', "rm-root"), ("rm -rf ~/.*", "rm-root"),
    ("rm -rf /usr/*", "rm-root"), ("rm -rf /*/*", "rm-root"), ("rm -rf /us?", "rm-root"),
    ("cd / && rm -rf *", "rm-root"), ("cd /etc; rm -rf ./*", "rm-root"),
    ("cd ~ && rm -rf .", "rm-root"), ("cd .. && rm -rf project", "rm-root"),
    ('cd "$X" && rm -rf *', "rm-root"), ("cd $X && rm -rf .", "rm-root"),
    ("env -C / rm -rf *", "rm-root"),
    ("rm -rf .", "rm-root"), ("rm -rf ./", "rm-root"), ("rm -rf ../project", "rm-root"),
    ("rm -rf /work/project", "rm-root"), ("rm -rf /work", "rm-root"), ("rm -rf *", "rm-root"),
    ("rm $FLAGS /", "rm-root"),
    ("sudo rm -rf /", "rm-root"), ("timeout 5 nice -n 5 rm -rf ~/", "rm-root"),
    ("echo $(rm -rf /)", "rm-root"), ("bash -c 'rm -rf /'", "rm-root"),
    ('bash -c "rm -Rf $HOME"', "rm-root"), ("echo / | xargs rm -rf /", "rm-root"),
    ("find / -delete", "rm-root"), ("find ~ -exec rm -rf {} +", "rm-root"),
    ("find -L / -execdir rm {} \\;", "rm-root"), ("find . -delete", "rm-root"),
    ("find / -name '*.so' -delete", "rm-root"), ("find /usr -type f -delete", "rm-root"),
    ("chmod -R 777 /", "chmod-root"), ("chown -R nobody ~/", "chmod-root"),
    ("chgrp -R staff /usr", "chmod-root"), ("chmod --recursive 700 /etc", "chmod-root"),
    ("chmod -Rv 700 ~/*", "chmod-root"),
    # writes onto disks
    ("dd if=/dev/zero of=/dev/sda bs=1M", "block-device"),
    ("cat img > /dev/nvme0n1", "block-device"),
    ("echo x >/dev/mmcblk0p1", "block-device"), ("cp disk.img /dev/sdb", "block-device"),
    ("tee /dev/vda < x", "block-device"), ("dd of=/dev/mapper/root", "block-device"),
    ("cat x > /dev/disk/by-id/usb-1", "block-device"), ("cd /dev && dd of=sda", "block-device"),
    ("echo x > /dev/sd*", "block-device"), ("shred /dev/xvda", "block-device"),
    ("dd if=x of=/dev/loop0", "block-device"), ("cat x > /dev/dm-0", "block-device"),
    # filesystems and partitions
    ("mkfs -t ext4 /dev/sdb1", "mkfs"), ("mkfs.ext4 /dev/sda1", "mkfs"), ("mke2fs x", "mkfs"),
    ("mkswap /dev/sda2", "mkfs"), ("wipefs -a /dev/sda", "mkfs"), ("fdisk /dev/sda", "mkfs"),
    ("sfdisk /dev/sda < t", "mkfs"), ("parted /dev/sda mklabel gpt", "mkfs"),
    ("blkdiscard /dev/nvme0n1", "mkfs"), ("sgdisk -Z /dev/sda", "mkfs"),
    (":(){ :|:& };:", "fork-bomb"), ("bomb(){ bomb | bomb & }; bomb", "fork-bomb"),
    ("shutdown -h now", "shutdown"), ("reboot", "shutdown"), ("poweroff", "shutdown"),
    ("halt", "shutdown"), ("init 0", "shutdown"), ("telinit 6", "shutdown"),
    ("systemctl reboot", "shutdown"), ("systemctl -i poweroff", "shutdown"),
    ("systemctl kexec", "shutdown"),
    ("git push --force origin main", "force-push-main"),
    ("git push -f origin master", "force-push-main"),
    ("git push origin +master -f", "force-push-main"), ("git push origin +main", "force-push-main"),
    ("git push --force-with-lease origin main", "force-push-main"),
    ("git push --force-with-lease=main:abc origin main", "force-push-main"),
    ("git push -f origin HEAD:main", "force-push-main"),
    ("git push -f origin refs/heads/main", "force-push-main"),
    ("git -C repo push -uf origin main", "force-push-main"),
    ("git push origin :main", "force-push-main"),
    ("git push origin --delete master", "force-push-main"),
    ("git push --force --all", "force-push-main"), ("git push --mirror", "force-push-main"),
    ("sudo apt-get install x", "privilege"), ("su -c 'ls'", "privilege"), ("doas ls", "privilege"),
    ("pkexec ls", "privilege"), ("run0 ls", "privilege"), ("su", "privilege"),
]  # fmt: skip

ALLOWED = [
    "rm -rf build", "rm -rf ./node_modules", "rm -rf /work/project/build", "rm -rf /tmp/build",
    "rm -rf ~/project/build", "rm -rf \"$DIR\"", "rm -rf $DIR/*", "rm -rf '/*'", "rm -rf '*'",
    "rm /", "rm -f ~/*", "rmdir /tmp/x", "rm -rf /usr/local/lib/x", "rm -rf ~/.cache",
    "rm -rf /*.log", "rm -rf ~/*.tmp", "cd $X && rm -rf build", "cd / && rm -rf tmp/x",
    "chmod -R 755 ./dist", "chmod 755 /", "chmod -r ~", "chown -R me ./build",
    "find . -name '*.pyc' -delete", "find ~ -name '*.pyc' -delete", "find build -delete",
    "find / -name x -print", "find . -exec grep x {} +", "find $DIR -delete",
    "dd if=/dev/zero of=out.img", "dd if=/dev/sda of=/dev/null", "echo > /dev/null",
    "echo x > /dev/stderr", "cat x > /dev/tty", "ls > /dev/fd/3", "cp a /dev/null",
    "lsblk", "fdisk -l", "parted -l", "systemctl status nginx", "echo reboot-check",
    "echo 'rm -rf /'", "init", "git push origin feature", "git push --force origin feature",
    "git push --force origin feature/main-fix", "git push origin main", "git push -f",
    "git push origin main:feature -f", "git log main", "sudoku", "echo sudo",
]  # fmt: skip


@pytest.mark.parametrize(("line", "name"), REFUSED)
def test_the_built_in_tier_refuses_each_wrecking_command_by_its_entry(line: str, name: str) -> None:
    assert dangers(line)[:1] == [name]


@pytest.mark.parametrize("line", ALLOWED)
def test_the_built_in_tier_leaves_ordinary_commands_alone(line: str) -> None:
    assert dangers(line) == []


def test_every_built_in_entry_has_a_kebab_case_name_and_an_about_phrase() -> None:
    assert [d.name for d in DANGEROUS] == [
        "rm-root", "chmod-root", "block-device", "mkfs", "fork-bomb", "shutdown",
        "force-push-main", "privilege",
    ]  # fmt: skip
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", d.name) and d.about for d in DANGEROUS)


def test_a_workspace_root_counts_only_when_it_is_given() -> None:
    assert dangers("rm -rf /srv2/app", roots=("/srv2/app",)) == ["rm-root"]
    assert dangers("rm -rf /srv2/app", roots=()) == []
    assert dangers("rm -rf *", cwd="/srv2/app", roots=()) == []


def test_the_checks_only_read_bash_commands() -> None:
    assert not DANGEROUS[0].matches("Write", {"command": "rm -rf /"}, cwd=CWD)
    assert not DANGEROUS[0].matches("Bash", {"command": ["rm", "-rf", "/"]}, cwd=CWD)


def test_settings_entries_are_regexes_on_the_raw_command_or_permission_rules() -> None:
    drop = Danger("drop-db", "dropping a database", re.compile(r"(?i)drop\s+database"))
    ssh = Danger("Read(~/.ssh/**)", "ssh keys", rule=PermissionRule.parse("Read(~/.ssh/**)"))

    assert drop.matches("Bash", {"command": 'psql -c "DROP DATABASE x"'}, cwd=CWD)
    assert not drop.matches("Bash", {"command": "psql -c 'select 1'"}, cwd=CWD)
    assert ssh.matches("Read", {"file_path": f"{HOME}/.ssh/id_rsa"}, cwd=CWD, home=HOME)
    assert not ssh.matches("Read", {"file_path": f"{HOME}/notes"}, cwd=CWD, home=HOME)
