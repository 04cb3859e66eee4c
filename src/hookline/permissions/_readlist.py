"""The read-only programs and every option each may take (GNU coreutils, grep, findutils,
util-linux, procps, ripgrep, the_silver_searcher, file, jq, tree, and Bash's builtins).

An option not listed here takes a command out of the read-only tier. ``harmful`` names what the
real program can write or run with, so the reason says so and no abbreviation reaches it.
Programs with ``any_words`` take no options that matter: their words are data (``echo``).
"""

from __future__ import annotations

from typing import Final

from hookline.permissions._readchecks import (
    command_check,
    date_check,
    find_check,
    jq_check,
    printf_check,
    test_check,
)
from hookline.permissions._readgit import git_check
from hookline.permissions._readspec import Spec

__all__ = ["PROGRAMS"]

_HELP = "--help --version"
_SUMS = Spec(
    "bctwz",
    long_flags=f"--binary --check --tag --text --zero --ignore-missing --quiet --status --strict "
    f"--warn {_HELP}",
)
_GREP = Spec(
    "EFGPiyvwxcLloqsbHhnTZzrRaIUV",
    "efmABCdD",
    "--extended-regexp --fixed-strings --basic-regexp --perl-regexp --ignore-case "
    "--no-ignore-case --invert-match --word-regexp --line-regexp --count --files-without-match "
    "--files-with-matches --only-matching --quiet --silent --no-messages --byte-offset "
    "--with-filename --no-filename --line-number --initial-tab --null --null-data --text "
    "--recursive --dereference-recursive --line-buffered --binary --color --colour "
    f"--no-group-separator {_HELP}",
    "--regexp --file --max-count --label --after-context --before-context --context "
    "--binary-files --devices --directories --exclude --exclude-from --exclude-dir --include "
    "--group-separator",
    numbers=True,
)


_PLAIN = Spec(long_flags=_HELP)
_DATA = Spec(any_words=True)
PROGRAMS: Final[dict[str, Spec]] = {
    "ls": Spec(
        "aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ1",
        "ITw",
        "--all --almost-all --author --escape --directory --dired --classify --file-type "
        "--full-time --group-directories-first --no-group --human-readable --si "
        "--dereference-command-line --dereference-command-line-symlink-to-dir "
        "--hide-control-chars --show-control-chars --inode --dereference --numeric-uid-gid "
        "--literal --kibibytes --quote-name --reverse --recursive --size --context --zero "
        f"--color --hyperlink --ignore-backups {_HELP}",
        "--block-size --format --hide --ignore --indicator-style --quoting-style --sort --time "
        "--time-style --tabsize --width",
    ),
    "cat": Spec(
        "AbeEnstTuv",
        long_flags="--show-all --number-nonblank --show-ends --number "
        f"--squeeze-blank --show-tabs --show-nonprinting {_HELP}",
    ),
    "head": Spec(
        "qvz",
        "cn",
        f"--quiet --silent --verbose --zero-terminated {_HELP}",
        "--bytes --lines",
        numbers=True,
    ),
    "tail": Spec(
        "fFqvz",
        "cns",
        f"--follow --retry --quiet --silent --verbose --zero-terminated {_HELP}",
        "--bytes --lines --max-unchanged-stats --pid --sleep-interval",
        numbers=True,
    ),
    "wc": Spec(
        "clmwL",
        "",
        f"--bytes --chars --lines --words --max-line-length {_HELP}",
        "--files0-from --total",
    ),
    "pwd": Spec("LP"),
    "echo": _DATA,
    "true": _DATA,
    "false": _DATA,
    ":": _DATA,
    "[[": _DATA,
    "sleep": _DATA,
    "printf": Spec(any_words=True, check=printf_check),
    "test": Spec(any_words=True, check=test_check),
    "[": Spec(any_words=True, check=test_check),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "stat": Spec(
        "Lft", "c", f"--dereference --file-system --terse {_HELP}", "--format --printf --cached"
    ),
    "which": Spec("as"),
    "type": Spec("afptP"),
    "whereis": Spec("bmsulf", "BMS"),
    "cut": Spec(
        "nsz",
        "bcdf",
        f"--complement --only-delimited --zero-terminated {_HELP}",
        "--bytes --characters --delimiter --fields --output-delimiter",
    ),
    "tr": Spec(
        "cCdst", long_flags=f"--complement --delete --squeeze-repeats --truncate-set1 {_HELP}"
    ),
    "diff": Spec(
        "abBdeEfiHnNpPqrsTtuvwyZ",
        "CDFILSUWxX",
        "--normal --brief --report-identical-files --context --unified --ed --rcs "
        "--side-by-side --left-column --suppress-common-lines --show-c-function --expand-tabs "
        "--initial-tab --suppress-blank-empty --new-file --unidirectional-new-file "
        "--ignore-case --ignore-tab-expansion --ignore-trailing-space --ignore-space-change "
        "--ignore-all-space --ignore-blank-lines --strip-trailing-cr --text --minimal "
        "--speed-large-files --recursive --no-dereference --ignore-file-name-case "
        f"--no-ignore-file-name-case --color {_HELP}",
        "--width --tabsize --show-function-line --label --ignore-matching-lines --exclude "
        "--exclude-from --starting-file --from-file --to-file --line-format --old-line-format "
        "--new-line-format --unchanged-line-format --old-group-format --new-group-format "
        "--changed-group-format --unchanged-group-format --horizon-lines --ifdef --palette",
        harmful="--paginate -l",
        does="runs another program",
    ),
    "cmp": Spec(
        "blsv",
        "in",
        f"--print-bytes --verbose --quiet --silent {_HELP}",
        "--ignore-initial --bytes",
    ),
    "du": Spec(
        "0abcDHhkLlmPSsx",
        "BdtX",
        "--null --all --apparent-size --bytes --total "
        "--dereference-args --human-readable --inodes --dereference --count-links "
        f"--no-dereference --separate-dirs --si --summarize --one-file-system --time {_HELP}",
        "--block-size --max-depth --threshold --time-style --exclude-from --exclude --files0-from",
    ),
    "df": Spec(
        "ahHiklPTv",
        "Btx",
        "--all --human-readable --si --inodes --local --no-sync "
        f"--portability --sync --total --print-type --output {_HELP}",
        "--block-size --type --exclude-type",
    ),
    "basename": Spec("az", "s", f"--multiple --zero {_HELP}", "--suffix"),
    "dirname": Spec("z", long_flags=f"--zero {_HELP}"),
    "realpath": Spec(
        "eLmPqsz",
        "",
        "--canonicalize-existing --canonicalize-missing --logical "
        f"--physical --quiet --strip --no-symlinks --zero {_HELP}",
        "--relative-to --relative-base",
    ),
    "readlink": Spec(
        "fEemnqsvz",
        long_flags="--canonicalize --canonicalize-existing "
        "--canonicalize-missing --no-newline --quiet --silent --verbose --zero "
        f"{_HELP}",
    ),
    "env": Spec("0i", "u", "--null --ignore-environment", "--unset"),
    "printenv": Spec("0", long_flags=f"--null {_HELP}"),
    "id": Spec(
        "aZgGnruz", long_flags=f"--context --group --groups --name --real --user --zero {_HELP}"
    ),
    "whoami": _PLAIN,
    "groups": _PLAIN,
    "nproc": Spec(long_flags=f"--all {_HELP}", long_values="--ignore"),
    "uname": Spec(
        "asnrvmpio",
        long_flags="--all --kernel-name --nodename --kernel-release "
        f"--kernel-version --machine --processor --hardware-platform --operating-system {_HELP}",
    ),
    "free": Spec(
        "bkmghltwvL",
        "cs",
        "--bytes --kilo --mega --giga --tera --peta --kibi --mebi "
        f"--gibi --tebi --pebi --human --wide --lohi --total --si --line --committed {_HELP}",
        "--count --seconds",
    ),
    "uptime": Spec("psV", long_flags=f"--pretty --since {_HELP}"),
    "ps": Spec(
        "AaCcdefFHjlLMNOrSTuvwxXyZ",
        "CGgopqstUuk",
        f"--forest --headers --no-headers --cumulative --deselect {_HELP}",
        "--format --pid --ppid --user --group --sort --cols --columns --lines --rows --tty --sid "
        "--quick-pid",
    ),
    "jq": Spec(check=jq_check, check_only=True),
    "md5sum": _SUMS,
    "sha1sum": _SUMS,
    "sha224sum": _SUMS,
    "sha256sum": _SUMS,
    "sha384sum": _SUMS,
    "sha512sum": _SUMS,
    "b2sum": Spec("bctwz", "l", _SUMS.long_flags, "--length"),
    "cksum": Spec(
        "bctwz",
        "al",
        f"{_SUMS.long_flags} --untagged --base64 --raw --debug",
        "--algorithm --length",
    ),
    "sum": Spec("rs", long_flags=f"--sysv {_HELP}"),
    "column": Spec(
        "tJxeLdV",
        "csoNOEHWRTnriplC",
        "--table --json --fillrows --keep-empty-lines "
        f"--table-noheadings --table-header-repeat {_HELP}",
        "--columns --separator --output-separator --table-columns --table-order --table-name "
        "--table-right --table-wrap --table-hide --table-noextreme --table-truncate --tree "
        "--tree-id --tree-parent --table-columns-limit",
    ),
    "nl": Spec(
        "p",
        "bdfhilnsvw",
        f"--no-renumber {_HELP}",
        "--body-numbering --section-delimiter --footer-numbering --header-numbering "
        "--line-increment --join-blank-lines --number-format --number-separator "
        "--starting-line-number --number-width",
    ),
    "rev": Spec("0", long_flags=f"--zero {_HELP}"),
    "seq": Spec("w", "fs", f"--equal-width {_HELP}", "--format --separator", numbers=True),
    "tac": Spec("br", "s", f"--before --regex {_HELP}", "--separator"),
    "comm": Spec(
        "123z",
        "",
        f"--check-order --nocheck-order --total --zero-terminated {_HELP}",
        "--output-delimiter",
    ),
    "paste": Spec("sz", "d", f"--serial --zero-terminated {_HELP}", "--delimiters"),
    "fold": Spec("bs", "w", f"--bytes --spaces {_HELP}", "--width", numbers=True),
    "od": Spec(
        "bcdfiloxsv",
        "AjNSt",
        f"--output-duplicates --traditional {_HELP}",
        "--address-radix --endian --skip-bytes --read-bytes --strings --format --width",
        attached="w",
    ),
    "hexdump": Spec("bcCdovxL", "efns"),
    "strings": Spec(
        "adfow",
        "nteTsU",
        f"--all --data --print-file-name --include-all-whitespace {_HELP}",
        "--bytes --radix --encoding --target --output-separator --unicode",
        numbers=True,
    ),
    "locale": Spec(
        "akmcv",
        long_flags=f"--all-locales --charmaps --category-name --keyword-name --verbose {_HELP}",
    ),
    "cd": _DATA,
    "pushd": _DATA,
    "popd": _DATA,
    "dirs": _DATA,
    "wait": Spec("fn", "p"),
    "lsblk": Spec("abdDfiJlmMnOpPrsStzAhVN", "eIoTxEwQ"),
    "rg": Spec(
        "nisSwxvclLuoFPqHbaUpN0",
        "egtTABCmjrEMf",
        "--hidden --no-ignore --files --type-list --json --vimgrep --no-heading --heading "
        "--color --line-number --column --no-line-number --files-with-matches "
        "--files-without-match --count --count-matches --only-matching --passthru --multiline "
        "--pcre2 --smart-case --case-sensitive --ignore-case --fixed-strings --word-regexp "
        "--line-regexp --invert-match --follow --no-messages --quiet --stats --trim --null "
        "--null-data --text --binary --crlf --no-filename --with-filename --pretty "
        "--one-file-system --unrestricted --no-ignore-vcs --no-ignore-parent --no-ignore-dot "
        "--no-ignore-global --no-config --block-buffered --line-buffered --byte-offset "
        "--no-unicode --sort-files --glob-case-insensitive --no-require-git "
        "--max-columns-preview"
        f" {_HELP}",
        "--regexp --glob --iglob --type --type-not --max-count --max-depth --max-filesize --sort "
        "--sortr --replace --context-separator --field-match-separator --encoding --max-columns "
        "--path-separator --threads --ignore-file --engine --colors --pre-glob --after-context "
        "--before-context --context --file",
        abbreviate=False,
        harmful="--pre --search-zip -z",
        does="runs another program",
    ),
    "ag": Spec(
        "aiswvclLQoFSUufHnt0",
        "ABCGgmpW",
        "--all-types --ignore-case --case-sensitive --smart-case --word-regexp --invert-match "
        "--count --files-with-matches --files-without-matches --literal --only-matching --hidden "
        "--unrestricted --follow --filename --no-filename --numbers --no-numbers --column "
        "--nocolor --color --noheading --heading --nobreak --break --group --nogroup --vimgrep "
        "--null --print0 --silent --stats --all-text --skip-vcs-ignores --one-device "
        "--list-file-types --multiline --nomultiline --print-long-lines",
        "--after --before --context --file-search-regex --max-count --path-to-ignore --ignore "
        "--ignore-dir --depth --width --color-line-number --color-match --color-path",
        harmful="--pager --search-zip -z",
        does="runs another program",
    ),
    "file": Spec(
        "bcdEhiIkLlNnrsS0",
        "efFmP",
        "--brief --checking-printout --debug --extension --apple --mime --mime-type "
        "--mime-encoding --keep-going --list --dereference --no-dereference --no-buffer "
        f"--no-pad --raw --special-files --no-sandbox --print0 {_HELP}",
        "--exclude --exclude-quiet --files-from --separator --magic-file --parameter",
        harmful="-C --compile -p --preserve-date -z --uncompress -Z --uncompress-noreport",
        does="writes a file or runs a program",
    ),
    "find": Spec(check=find_check, check_only=True),
    "sort": Spec(
        "bdfgiMhnRrVcCsmzu",
        "kSt",
        "--ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort "
        "--ignore-nonprinting --month-sort --human-numeric-sort --numeric-sort --random-sort "
        "--reverse --version-sort --check --merge --stable --unique --zero-terminated --debug "
        f"{_HELP}",
        "--key --field-separator --buffer-size --sort --random-source --parallel --batch-size "
        "--files0-from",
        harmful="-o --output --compress-program -T --temporary-directory",
    ),
    "uniq": Spec(
        "cdDiuz",
        "fsw",
        f"--count --repeated --all-repeated --ignore-case --unique --zero-terminated --group "
        f"{_HELP}",
        "--skip-fields --skip-chars --check-chars",
        max_operands=1,
        does="writes its output there",
    ),
    "tree": Spec(
        "adlfxiASnCXJQNpugshDFqvtcUr",
        "LPIHT",
        "--gitignore --ignore-case --matchdirs --metafirst --prune --info --noreport --inodes "
        f"--device --dirsfirst --filesfirst --si --du --fromfile --nolinks {_HELP}",
        "--filelimit --timefmt --sort --charset --hintro --houtro",
        abbreviate=False,
        harmful="-o -R",
        does="writes a file",
    ),
    "date": Spec(
        "uR",
        "dfr",
        f"--debug --rfc-email --universal --utc --iso-8601 {_HELP}",
        "--date --file --reference --rfc-3339 --resolution",
        attached="I",
        harmful="-s --set",
        does="sets the clock",
        check=date_check,
    ),
    "hostname": Spec(
        "aAdfiIsyv",
        "",
        "--alias --all-fqdns --domain --fqdn --long --ip-address "
        f"--all-ip-addresses --short --yp --nis {_HELP}",
        harmful="-F --file -b --boot",
        max_operands=0,
        does="sets the host name",
    ),
    "command": Spec(check=command_check, check_only=True),
    "git": Spec(check=git_check, check_only=True),
}
