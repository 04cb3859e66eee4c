"""Programs that run a command in a container or a pod: ``docker exec CONTAINER CMD``, ``docker
run IMAGE CMD`` (``create`` too, and the ``docker container ...`` spellings, ``podman`` alike) and
``kubectl exec POD -- CMD``.

``runs(name, args)`` reads one with the program's own option syntax (Docker's flags stop at the
container or image; kubectl's may come anywhere before ``--``) and gives the command it runs, to
be judged like a command of the line: deny rules meet it, and the dangerous tier never proves it
(it runs on another machine, where the image's entrypoint may prefix it). An option the tables do
not list, a health check (``--health-cmd``, shell code run later), ``docker compose exec/run``
and ``kubectl run/debug`` with a command make what runs unknown. ``mounts(args)`` lists the
host folders ``docker run``/``create`` mounts writable into the container, which the container
may write anything below (``hookline.permissions._writers`` judges them as written whole).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from hookline.permissions.bash._options import Options, Read, read
from hookline.permissions.bash._runners import Runs
from hookline.permissions.bash._words import Word

__all__ = ["mounts", "runs"]

_DOCKER = Options.of(
    "Dv",
    "cHl",
    "--debug --tls --tlsverify --version",
    "--config --context --host --log-level --tlscacert --tlscert --tlskey",
)
_EXEC = Options.of(
    "dit",
    "euw",
    "--detach --interactive --privileged --tty",
    "--detach-keys --env --env-file --user --workdir",
)
_RUN = Options.of(
    "diPqt",
    "acehlmpuvw",
    "--detach --disable-content-trust --init --interactive --no-healthcheck --oom-kill-disable "
    "--privileged --publish-all --quiet --read-only --rm --sig-proxy --tty --use-api-socket",
    "--add-host --annotation --attach --blkio-weight --blkio-weight-device --cap-add --cap-drop "
    "--cgroup-parent --cgroupns --cidfile --cpu-count --cpu-percent --cpu-period --cpu-quota "
    "--cpu-rt-period --cpu-rt-runtime --cpu-shares --cpus --cpuset-cpus --cpuset-mems "
    "--detach-keys --device --device-cgroup-rule --device-read-bps --device-read-iops "
    "--device-write-bps --device-write-iops --dns --dns-option --dns-search --domainname "
    "--entrypoint --env --env-file --expose --gpus --group-add --health-cmd --health-interval "
    "--health-retries --health-start-interval --health-start-period --health-timeout --hostname "
    "--io-maxbandwidth --io-maxiops --ip --ip6 --ipc --isolation --kernel-memory --label "
    "--label-file --link --link-local-ip --log-driver --log-opt --mac-address --memory "
    "--memory-reservation --memory-swap --memory-swappiness --mount --name --network "
    "--network-alias --oom-score-adj --pid --pids-limit --platform --publish --pull --restart "
    "--runtime --security-opt --shm-size --stop-signal --stop-timeout --storage-opt --sysctl "
    "--tmpfs --ulimit --user --userns --uts --volume --volume-driver --volumes-from --workdir",
)
_DOCKER_VERBS: Final = {"exec": _EXEC, "run": _RUN, "create": _RUN}
_KUBECTL = Options.of(
    "itq",
    "nsvcf",
    "--disable-compression --insecure-skip-tls-verify --match-server-version "
    "--warnings-as-errors --stdin --tty --quiet",
    "--as --as-group --as-uid --cache-dir --certificate-authority --client-certificate "
    "--client-key --cluster --context --kubeconfig --log-flush-frequency --namespace --password "
    "--profile --profile-output --request-timeout --server --tls-server-name --token --user "
    "--username --v --vmodule --container --filename --pod-running-timeout",
)


def runs(name: str, args: tuple[Word, ...]) -> Runs | None:
    """What ``name args`` runs in a container or pod; None when it runs none there."""
    if name in ("docker", "podman"):
        return _docker(name, args)
    if name == "kubectl":
        return _kubectl(args)
    return None


def _docker(name: str, args: tuple[Word, ...]) -> Runs | None:
    given = read(args, _DOCKER, first_operand_ends=True)
    words = list(given.operands)
    verb = words.pop(0).value if words else ""
    if verb == "container" and words:
        verb = words.pop(0).value
    if verb == "compose" and any(w.value in ("exec", "run") or w.value is None for w in words):
        return Runs(unknown=f"`{name} compose` runs a command hookline does not read")
    if given.unknown and _names(args, _DOCKER_VERBS):  # the option may have taken a word
        return _unknown(name, given)
    spec = _DOCKER_VERBS.get(verb or "")
    if spec is None:
        return None
    inner = read(words, spec, first_operand_ends=True)
    if inner.unknown:
        return _unknown(f"{name} {verb}", inner)
    if inner.named("--health-cmd"):
        return Runs(unknown=f"`{name} {verb} --health-cmd` runs code hookline does not read")
    command = list(inner.operands[1:])
    entrypoint = inner.named("--entrypoint")
    if entrypoint and entrypoint.value:
        command.insert(0, entrypoint.value)
    if not command:
        return None
    # `run` and `create` do more than run the command (mounts: ``writers``), `exec` does not
    return Runs(command=tuple(command), label=f"{name} {verb}", wrapper=verb == "exec")


def mounts(args: Sequence[Word]) -> list[Word]:
    """The host folders ``docker run/create`` (``podman`` alike) mounts writable into the
    container, as words (one only run time knows as it is): the source of each ``-v SRC:DST``
    without ``:ro`` and each ``--mount type=bind,source=SRC`` without ``readonly``."""
    given = read(args, _DOCKER, first_operand_ends=True)
    words = list(given.operands)
    verb = words.pop(0).value if words else ""
    if verb == "container" and words:
        verb = words.pop(0).value
    if verb not in ("run", "create"):
        return []
    found = []
    for option in read(words, _RUN, first_operand_ends=True).options:
        if option.name in ("v", "--volume", "--mount") and option.value is not None:
            source = _mounted(option.value, bind=option.name == "--mount")
            if source is not None:
                found.append(source)
    return found


def _mounted(word: Word, *, bind: bool) -> Word | None:
    """The host path a ``-v``/``--mount`` value mounts writable; None for a named volume or a
    read-only mount."""
    value = word.value
    if value is None:  # `"$PWD":/app:ro`: its mode is still the last field
        return None if not bind and re.search(r":ro[\"']?$", word.raw) else word
    if bind:
        fields = dict(f.partition("=")[::2] for f in value.split(","))
        if fields.get("type", "volume") != "bind" or fields.get("readonly", fields.get("ro")) in (
            "",
            "true",
            "1",
        ):
            return None
        source = fields.get("source", fields.get("src", ""))
    else:
        source, _, rest = value.partition(":")
        if "ro" in rest.partition(":")[2].split(","):
            return None
    if not source.startswith(("/", ".", "~")):
        return None  # a named volume, Docker's own
    return Word(
        source,
        raw=source,
        tilde=word.tilde and source.startswith("~"),
        mask=word.mask[: len(source)] if not bind else "q" * len(source),
    )


def _kubectl(args: tuple[Word, ...]) -> Runs | None:
    words = list(args)
    dash = next((i for i, w in enumerate(words) if w.value == "--"), len(words))
    given = read(words[:dash], _KUBECTL)
    operands = [w.value for w in given.operands]
    verb = next((v for v in operands if v is None or not v.startswith("-")), "")
    if verb in ("run", "debug") and (dash < len(words) or _overrides(words)):
        return Runs(unknown=f"`kubectl {verb}` runs a command in a pod hookline does not read")
    if given.unknown and _names(words[:dash], ("exec",)):  # the option may have taken a word
        return _unknown("kubectl exec", given)
    if verb != "exec":
        return None
    if dash < len(words):
        command = words[dash + 1 :]
    elif given.named("f", "--filename"):
        return Runs(unknown="`kubectl exec -f` without `--` runs words hookline cannot place")
    else:
        command = list(given.operands[2:])
    return Runs(command=tuple(command), label="kubectl exec", wrapper=True) if command else None


def _names(words: Sequence[Word], verbs: Iterable[str]) -> bool:
    """Whether one of ``verbs`` (or a word only run time knows) is among ``words``."""
    return any(w.value is None or w.value in verbs for w in words)


def _overrides(words: list[Word]) -> bool:
    return any((w.value or "--o").startswith(("--overrides", "--command")) for w in words)


def _unknown(label: str, given: Read) -> Runs:
    shown = given.unknown.shown if given.unknown else ""
    return Runs(unknown=f"`{label}` has an option hookline does not know: {shown}")
