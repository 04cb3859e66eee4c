"""Redaction on a corpus of planted secrets, through a real agent run with the audit on: no
secret value reaches the audit file or the store on disk, ordinary text is left alone, team
patterns come from the ``redact`` settings key, and adversarial input stays linear."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hookline
from hookline import Agent, ScriptedModel
from hookline._agent.saved.hidden import revealed
from hookline._claude.settings import load_settings
from hookline._errors import ConfigError
from hookline._settings_layers import Layer
from hookline.audit._redact import MASK, LineMasker, Redactor, patterns_from_settings
from hookline.storage import open_store
from postgres_schema import fresh_schema, rows_as_text

#: (what the model runs or sends, the secret in it). Strings go through ``echo``; dicts through
#: ``configure``, as JSON values.
CORPUS: list[tuple[str | dict[str, Any], str]] = [
    # URL userinfo
    ("psql postgres://admin:Pg5ecretV4lue@db.internal:5432/app", "Pg5ecretV4lue"),
    ("redis-cli -u redis://:R3disPassw0rdX@cache:6379/0", "R3disPassw0rdX"),
    ("git clone https://deploy:GhCl0neT0kenZ9@git.example.com/org/repo.git", "GhCl0neT0kenZ9"),
    ({"database_url": "mysql://app:MyUrlPw77q@10.0.0.5/shop"}, "MyUrlPw77q"),
    # curl -u user:pass, wget --password
    ("curl -u alice:CurlPw1234abc https://api.example.com/v1", "CurlPw1234abc"),
    ("curl --user bob:CurlUserPw99z https://x.example.com", "CurlUserPw99z"),
    ("curl -ucarol:CurlTightPw55 https://y.example.com", "CurlTightPw55"),
    ("wget --user=dave --password=WgetPw4455x https://z.example.com", "WgetPw4455x"),
    # mysql -pPASS
    ("mysql -u root -pMyS3cretRoot shop", "MyS3cretRoot"),
    ("mysqldump -uadmin -pDumpPw8899 --all-databases > all.sql", "DumpPw8899"),
    ("mariadb -h db -p'Maria Pw 77' shop", "Maria Pw 77"),
    # --password[=] X
    ("pg_dump --password PgDumpPw321 mydb", "PgDumpPw321"),
    ("tool login --password=LoginPw6543", "LoginPw6543"),
    ("vault login --db-password 'Vault Pw 909'", "Vault Pw 909"),
    ("gpg --batch --passphrase GpgPhrase1234 -d x.gpg", "GpgPhrase1234"),
    # Stripe
    ("export STRIPE=sk_live_51HqLyjWDarjtT1zdp7dcXYZ", "51HqLyjWDarjtT1zdp7dcXYZ"),
    ({"stripe": "rk_live_51AbCdEfGhIjKlMnOpQrSt"}, "51AbCdEfGhIjKlMnOpQrSt"),
    ("stripe charges list --api-key sk_test_26PHem9AhJZvU623DfE1x4sd", "26PHem9AhJZvU623DfE1x4sd"),
    # Google
    ("gcloud run --set-env-vars MAPS=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "9tSrke72PouQMnMX"),
    ("https://maps.googleapis.com/api/geocode?key=AIzaSyB1cDeFgHiJkLmNoPqRsTuVwXyZ012345&a=x",
     "B1cDeFgHiJkLmNoPqRsTuVwXyZ012345"),
    # GitLab
    ("git clone https://oauth2:glpat-Xy9zAbCdEfGhIjKlMnOp@gitlab.com/g/p.git",
     "Xy9zAbCdEfGhIjKlMnOp"),
    ("echo glpat-1a2B3c4D5e6F7g8H9i0J | glab auth login --stdin", "1a2B3c4D5e6F7g8H9i0J"),
    ("curl -H 'PRIVATE-TOKEN: glpat-QwErTyUiOpAsDfGhJkLz' https://gitlab.com/api",
     "QwErTyUiOpAsDfGhJkLz"),
    # npm
    ("echo //registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 >> .npmrc",
     "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ({"registry": {"auth": "npm_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"}},
     "ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"),
    # Slack
    ("SLACK=xoxb-123456789012-abcdefGHIJKL ./notify.sh", "123456789012-abcdefGHIJKL"),
    ("curl -d token=xoxp-987654321098-ZyXwVuTsRq https://slack.com/api", "987654321098-ZyXwVuTsRq"),
    ({"hook": "xoxa-2-AbCdEf1234567890"}, "AbCdEf1234567890"),
    # GitHub
    ("git push https://ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789@github.com/o/r",
     "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
    ("GH=gho_16C7e42F292c6912E7710c838347Ae178B4a gh api user",
     "16C7e42F292c6912E7710c838347Ae178B4a"),
    ({"installation": "ghs_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"}, "AbCdEfGhIjKlMnOpQrStUvWxYz012"),
    ("gh auth login --with-token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzAB",
     "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzAB"),
    # *_KEY= / *_SECRET= / *_TOKEN= / *_PASSWORD= assignments
    ("SECRET_KEY_BASE=8f4b2c1d9e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c rails s",
     "8f4b2c1d9e7a6b5c4d3e2f1a"),
    ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "wJalrXUtnFEMI/K7MDENG"),
    ("DB_PASSWORD=hunter2hunter2 ./manage.py migrate", "hunter2hunter2"),
    ("STRIPE_API_KEY=stripeApiPlain77 npm start", "stripeApiPlain77"),
    ('export GITHUB_TOKEN="plain token value 99"', "plain token value 99"),
    ("SMTP_PASS: smtpPassValue42", "smtpPassValue42"),
    ('{"SERVICE_SECRET": "svcSecretValue31"}', "svcSecretValue31"),
    ({"env": {"SECRET_KEY_BASE": "dictSecretKeyBase55"}}, "dictSecretKeyBase55"),
    ("PGPASSWORD=pgEnvPass808 psql -h db", "pgEnvPass808"),
    # JWTs, headers, bearer tokens
    ("Cookie: s=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.S1gNaTuReJwTxYz0123",
     "S1gNaTuReJwTxYz0123"),
    ({"id_token": "opaqueIdTokenValue12"}, "opaqueIdTokenValue12"),
    ("curl -H 'Authorization: Bearer abcDEF123456ghiJKL789' https://api", "abcDEF123456ghiJKL789"),
    ('curl -H "X-Api-Key: plainHeaderKey77" https://api', "plainHeaderKey77"),
    ("AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"),
    # PEM blocks
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n"
     "-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU"),
    ({"key": "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIPemKeyBodyEc99\n"
             "-----END EC PRIVATE KEY-----"},
     "MHcCAQEEIPemKeyBodyEc99"),
    ("-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBGPgpBodyZZ42\n"
     "-----END PGP PRIVATE KEY BLOCK-----",
     "lQOYBGPgpBodyZZ42"),
    # the team's own pattern, from the redact settings key
    ("ship order ACME-INTERNAL-4471-ZQ today", "ACME-INTERNAL-4471-ZQ"),
    # forms that passed in clear before (issue 25), as text any tool may carry
    ("aws configure set aws_secret_access_key AwsCfgSecret0099x", "AwsCfgSecret0099x"),
    ("[default]\naws_session_token = AwsSessTok77zz\n", "AwsSessTok77zz"),
    ("machine api.example.com login alice password NetrcPw5150", "NetrcPw5150"),
    ("machine h\n  login bob\n  password NetrcLine42\n", "NetrcLine42"),
    ("sshpass -p SshPassPw31 ssh deploy@host", "SshPassPw31"),
    ("docker login -u ci -p DockerLoginPw8 registry.io", "DockerLoginPw8"),
    ("redis-cli -a RedisCliPw66 -h cache ping", "RedisCliPw66"),
    ("openssl rsa -in k.pem -passin pass:OsslPassIn12", "OsslPassIn12"),
    ("htpasswd -b .htpasswd admin HtpasswdPw4", "HtpasswdPw4"),
    ("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=AzAcctKey0Base64==;"
     "EndpointSuffix=core.windows.net", "AzAcctKey0Base64=="),
    ("curl -X POST https://hooks.slack.com/services/T0AB12CD3/B0EF45GH6/SlackHookSecret9xYz",
     "SlackHookSecret9xYz"),
    ({"type": "service_account", "private_key_id": "5f3c2b1a0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a"},
     "5f3c2b1a0d9e8f7a6b5c4d3e"),
    ('"private_key_id": "gcpKeyIdInText0042"', "gcpKeyIdInText0042"),
    ("TWILIO=SK2a7c9e1f3b5d7f9a1c3e5a7c9e1f3b5d", "2a7c9e1f3b5d7f9a1c3e5a7c9e1f3b5d"),
    ("curl -H 'Cookie: session=CookieSess1on77' https://app", "CookieSess1on77"),
]  # fmt: skip

#: (a Bash line, the password in it) run through a tool whose input key is ``command``: the
#: password options of known programs, read from the parsed line wherever they stand.
COMMANDS: list[tuple[str, str]] = [
    ("sshpass -o StrictHostKeyChecking=no -p 'Ssh Pw 5' ssh host", "Ssh Pw 5"),
    ("sudo docker login registry.io -u ci --password DkrPw9 && docker push x", "DkrPw9"),
    ("podman login -p PodmanPw3 -u me quay.io", "PodmanPw3"),
    ("redis-cli --tls -a RedisTlsPw7 ping", "RedisTlsPw7"),
    ("htpasswd -c -b /etc/nginx/.htpasswd admin HtPwSplit8", "HtPwSplit8"),
    ("env AWS_PROFILE=x aws configure set aws_secret_access_key 'Aws Quoted 1'", "Aws Quoted 1"),
    ("x=$(openssl enc -d -aes256 -in f -passin 'pass:Ossl Quoted 2')", "Ossl Quoted 2"),
    ("keytool -list -keystore ks.jks -storepass KeyStorePw6", "KeyStorePw6"),
    ("ldapsearch -x -D cn=admin -w LdapBindPw3 -b dc=x", "LdapBindPw3"),
    ("rabbitmqctl add_user svc RabbitUserPw2", "RabbitUserPw2"),
    ("deploy --api-token ApiTokOpt99 --region eu", "ApiTokOpt99"),
    ("curl -b 'session=CurlCookieVal5' https://app", "CurlCookieVal5"),
]

#: Ordinary text that looks a little like a secret: recorded exactly as it was.
NEGATIVES = [
    "python task_live_session.py --ask_user",
    "git checkout 3f786850e387550fdab836ed7e6dc881de23001b",
    "id 123e4567-e89b-12d3-a456-426614174000",
    "python password_reset.py --dry-run",
    "mkdir -p build/out && sort -u names.txt",
    "docker run -u 1000:1000 alpine",
    "MAX_TOKENS=4096 PWD=/home/dev TOKENIZERS_PARALLELISM=false",
    "npm_config_cache=/tmp/npm npm ci",
    "git push -u origin main",
    "open https://example.com/path?q=1#top",
    "KEYS_DIR=/etc/keys MONKEY=banana",
    "docker login --password-stdin < token.txt",
    "the key of the dict is monkey_key",
]
TEAM_PATTERN = r"ACME-INTERNAL-\d{4}-[A-Z]{2}"


@hookline.tool
def echo(text: str) -> str:
    """Say the text back."""
    return "ok"


@hookline.tool
def configure(settings: dict[str, Any]) -> str:
    """Take some settings."""
    return "ok"


@hookline.tool
def shell(command: str) -> str:
    """Take a Bash line (not run)."""
    return "ok"


def _calls() -> list[dict[str, Any]]:
    turns = []
    for n, (value, _) in enumerate(CORPUS):
        name, args = (
            ("echo", {"text": value})
            if isinstance(value, str)
            else ("configure", {"settings": value})
        )
        turns.append({"tool_calls": [{"id": f"s{n}", "name": name, "input": args}]})
    for n, text in enumerate(NEGATIVES):
        turns.append({"tool_calls": [{"id": f"n{n}", "name": "echo", "input": {"text": text}}]})
    for n, (line, _) in enumerate(COMMANDS):
        turns.append({"tool_calls": [{"id": f"c{n}", "name": "shell",
                                      "input": {"command": line}}]})  # fmt: skip
    return [*turns, {"text": "done"}]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def recorded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, dict[str, Any]]]:
    """A real run with the audit on and the team pattern in .hookline/settings.json, its store
    SQLite or PostgreSQL: the state folder, each tool call's audit record (from audit.jsonl) by
    tool_use_id, and every byte the audit and the store held while open and after."""
    if request.param == "sqlite":
        yield _recorded(tmp_path_factory.mktemp("work"))
        return
    with fresh_schema("hookline_corpus") as (schema, url):
        yield _recorded(tmp_path_factory.mktemp("work"), url, schema)


def _recorded(work: Path, url: str | None = None, schema: str = "") -> tuple[Path, dict[str, Any]]:
    (work / ".hookline").mkdir()
    (work / ".hookline" / "settings.json").write_text(json.dumps({"redact": [TEAM_PATTERN]}))
    settings = load_settings(work, home=work / "home", managed_dir=work / "managed")
    calls = len(CORPUS) + len(NEGATIVES) + len(COMMANDS)
    agent = Agent(ScriptedModel(_calls()), tools=[echo, configure, shell], cwd=work, audit=True,
                  max_turns=calls + 2, redact=patterns_from_settings(settings.layers),
                  store=url)  # fmt: skip
    result = agent.run_sync("go")
    assert [c.status for c in result.tool_calls] == ["executed"] * calls
    state = work / ".hookline" / "state"
    on_disk = _state_bytes(state, sqlite=url is None)  # the WAL too, before close folds it in
    asyncio.run(agent.close())
    closed = _state_bytes(state, sqlite=url is None)
    if url:  # the rows themselves, as the server keeps them
        closed += rows_as_text(url, schema)
        assert b"tool_started" in closed and result.session_id.encode() in closed
    lines = (state / "audit.jsonl").read_text().splitlines()
    records = {r["tool_use_id"]: r for r in map(json.loads, lines) if r["kind"] == "tool"}
    return state, {"records": records, "open": on_disk, "closed": closed}


def _state_bytes(state: Path, *, sqlite: bool) -> bytes:
    """Every file of the audit and the store, as bytes (transcripts keep raw inputs, by design)."""
    files = [p for p in state.iterdir() if p.is_file()]
    assert {"audit.jsonl", *(["hookline.db"] if sqlite else [])} <= {p.name for p in files}
    return b"\n".join(p.read_bytes() for p in files)


@pytest.mark.parametrize("n", range(len(CORPUS)), ids=lambda n: str(CORPUS[n][1])[:16])
def test_no_planted_secret_reaches_the_audit_file_or_the_store(recorded, n):
    _, seen = recorded
    _, secret = CORPUS[n]
    assert secret.encode() not in seen["open"]
    assert secret.encode() not in seen["closed"]
    assert MASK in json.dumps(seen["records"][f"s{n}"]["data"]["input"])


@pytest.mark.parametrize("n", range(len(COMMANDS)), ids=lambda n: COMMANDS[n][1][:16])
def test_a_password_option_of_a_known_program_is_masked_from_the_parsed_line(recorded, n):
    _, seen = recorded
    line, secret = COMMANDS[n]
    assert secret.encode() not in seen["open"] and secret.encode() not in seen["closed"]
    shown = seen["records"][f"c{n}"]["data"]["input"]["command"]
    assert MASK in shown and line.split()[0] in shown  # the rest of the line stays readable


def test_the_corpus_is_large_enough():
    assert len(CORPUS) >= 40 and len({secret for _, secret in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("n", range(len(NEGATIVES)), ids=lambda n: NEGATIVES[n][:20])
def test_ordinary_text_is_recorded_as_it_was(recorded, n):
    _, seen = recorded
    assert seen["records"][f"n{n}"]["data"]["input"] == {"text": NEGATIVES[n]}


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("psql postgres://admin:pw12345@db/app", "psql postgres://admin:…[REDACTED]@db/app"),
        ("pay with sk_live_51HqLyjWDarjtT1zdp7dc", "pay with sk_live_…[REDACTED]"),
        ("curl -u alice:pw12345 https://x", "curl -u alice:…[REDACTED] https://x"),
        ("mysql -pHunter22 db", "mysql -p…[REDACTED] db"),
        ("SECRET_KEY_BASE=abc123", "SECRET_KEY_BASE=…[REDACTED]"),
        ("x --password 'a b c' y", "x --password '…[REDACTED]' y"),
    ],
)
def test_a_mask_keeps_a_hint_of_what_was_there(text, kept):
    assert Redactor().text(text) == kept


def test_redact_settings_from_every_layer_are_joined_and_a_wrong_shape_is_refused():
    layers = [Layer("user", "u.json", {"redact": ["A-\\d+"]}),
              Layer("project", "p.json", {"redact": ["B-\\d+", "A-\\d+"]}),
              Layer("local", "l.json", {"other": 1})]  # fmt: skip
    assert patterns_from_settings(layers) == ("A-\\d+", "B-\\d+")
    with pytest.raises(ConfigError, match="list of regular expressions") as refused:
        patterns_from_settings([Layer("project", "p.json", {"redact": "A-\\d+"})])
    assert (refused.value.file, refused.value.key) == ("p.json", "redact")


#: Texts of 1 MB made to make a backtracking pattern try every start and every split.
ADVERSARIAL = ["a", "A_", " -u a", "://a:", "-----BEGIN ", "eyJa.", "Bearer a", "--pass ",
               "SECRET_", "KEY=", "passw", "'", "-p", "login a ", " password", "\n password ",
               "redis-cli -h a", "htpasswd -b a ", "pass:", "SK0", "sshpass -p",
               "aws_session_token "]  # fmt: skip
#: Every kind's marker, so every pattern runs on the adversarial text.
MARKERS = "private key sk- k_live_ AIza gh glpat- npm_ xox authorization bearer eyJ :// -u "
MARKERS += "mysql --pass KEY SECRET TOKEN PASS PWD CREDENTIAL _PAT aws_secret_access_key password "
MARKERS += "login sshpass redis-cli htpasswd pass: accountkey hooks.slack.com SK cookie private"


@pytest.mark.parametrize("unit", ADVERSARIAL)
def test_a_megabyte_of_adversarial_text_is_redacted(unit):
    """Timed in bench/bench_redact.py; here only the result is checked."""
    text = MARKERS + unit * ((1 << 20) // len(unit)) + " sk_live_51HqLyjWDarjtT1zdp7dc end"
    masked = Redactor([TEAM_PATTERN]).text(text)
    assert "51HqLyjWDarjtT1zdp7dc" not in masked and masked.endswith(" end")


#: Said by the model in its last message: text secrets, each on a line of its own.
SAID = [value for value, _ in CORPUS if isinstance(value, str) and "\n" not in value]


@pytest.mark.parametrize("output_format", ["text", "json", "stream-json"])
def test_no_planted_secret_reaches_the_output_or_the_state_of_hookline_run(tmp_path, output_format):
    """``hookline run`` (each output format, the audit on): the model asks for each Bash line
    of ``COMMANDS`` (none is run: each needs an approval nobody gives, and the refusal quotes
    the line) and then says every text secret. Neither stdout nor stderr nor any file of the
    state folder but the transcript holds one; the transcript is the raw record, private
    (0600). The JSON formats are data for programs and keep their shape: each refused call is
    there, its input masked."""
    from cli_runner import hookline as run_hookline

    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"b{n}", "name": "Bash", "input": {"command": line}}]}
        for n, (line, _) in enumerate(COMMANDS)
    ]
    turns.append({"text": "\n".join(SAID)})
    (tmp_path / "script.json").write_text(json.dumps({"turns": turns}))
    (tmp_path / ".hookline").mkdir()
    (tmp_path / ".hookline" / "settings.json").write_text(json.dumps({"redact": [TEAM_PATTERN]}))
    done = run_hookline("run", "go", "--model", "scripted:script.json", "--audit",
                        "--max-turns", str(len(turns) + 1), "--output-format", output_format,
                        cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    terminal = done.stdout + done.stderr
    if output_format == "text":
        assert terminal.count("needs approval") >= len(COMMANDS) - 1  # each line was quoted back
    else:
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        assert lines[-1]["type"] == "result" and lines[-1]["final_text"].count(MASK) >= len(SAID)
        refused = {c["tool_use_id"]: c for c in lines[-1]["tool_calls"]}
        assert set(refused) == {f"b{n}" for n in range(len(COMMANDS))}
        assert all(MASK in c["input"]["command"] for c in refused.values())
        if output_format == "stream-json":  # the model's calls, as they were streamed
            asked = [b for ln in lines if ln["type"] == "assistant"
                     for b in ln["message"]["content"] if b["type"] == "tool_use"]  # fmt: skip
            assert len(asked) == len(COMMANDS) and all(MASK in b["input"]["command"] for b in asked)
    state = tmp_path / ".hookline" / "state"
    transcripts = list((state / "transcripts").glob("*.jsonl"))
    assert len(transcripts) == 1 and transcripts[0].stat().st_mode & 0o777 == 0o600
    raw = transcripts[0].read_text()
    files = [p for p in state.rglob("*") if p.is_file() and p not in transcripts]
    kept = b"".join(p.read_bytes() for p in files)
    secrets = [secret for _, secret in COMMANDS] + [
        secret for value, secret in CORPUS if value in SAID
    ]
    for secret in secrets:
        assert secret in raw  # the transcript keeps the raw conversation, as it must
        assert secret not in terminal, secret
        assert secret.encode() not in kept, secret


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_paused_calls_lines_mask_its_secret_and_leave_the_edit_to_write(tmp_path, output_format):
    """The waiting call is shown masked, by the run and by ``sessions show``, and its
    ``--edit`` line asks for JSON to be written instead of carrying the masked input (which is
    not the one to run); the saved session keeps the real input, which ``--approve`` runs."""
    from cli_runner import hookline as run_hookline

    line = "mysql -u root -pPausedPw7731 shop"
    turns = [{"tool_calls": [{"id": "b1", "name": "Bash", "input": {"command": line}}]},
             {"text": "done"}]  # fmt: skip
    (tmp_path / "script.json").write_text(json.dumps({"turns": turns}))
    done = run_hookline("run", "go", "--model", "scripted:script.json", "--defer-asks",
                        "--output-format", output_format, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 4, done.stderr
    said = done.stderr if output_format == "json" else done.stdout
    assert "PausedPw7731" not in done.stdout + done.stderr
    assert f'Bash {{"command":"mysql -u root -p{MASK} shop"}}' in said.replace("…", "")
    assert said.rstrip().endswith("--edit JSON")
    session_id = said.split("paused: session ")[1].split()[0]
    for flags in ([], ["--json"]):  # sessions show masks it too; the state keeps it
        shown = run_hookline("sessions", "show", session_id, *flags, cwd=tmp_path)
        assert shown.returncode == 0 and MASK in shown.stdout, shown.stderr
        assert "PausedPw7731" not in shown.stdout + shown.stderr
    store = open_store(None, state_dir=tmp_path / ".hookline" / "state")
    record = store.get_session(session_id)
    store.close()
    assert record is not None and "PausedPw7731" in json.dumps(revealed(record.state))


#: Streamed by a real model's client a few characters at a time: no piece holds a whole secret.
STREAMED = ("Connect with postgres://app:StreamPw5150x@db/shop and pay with "
            "sk_live_51StreamStripeKey77 now.\n-----BEGIN RSA PRIVATE KEY-----\n"
            "MIIEpStreamedKeyBody0042\n-----END RSA PRIVATE KEY-----\nthe end")  # fmt: skip
STREAMED_SECRETS = ("StreamPw5150x", "51StreamStripeKey77", "MIIEpStreamedKeyBody0042")


@pytest.mark.parametrize("flags", [[], ["--output-format", "stream-json", "--verbose",
                                        "--include-partial-messages"]])  # fmt: skip
def test_a_secret_cut_across_streamed_pieces_is_masked_as_it_is_shown(tmp_path, flags):
    """The text of a streaming model, shown as it arrives (the text view, stream-json's
    partial messages), is masked a line at a time (a PEM block whole): a secret cut across
    pieces is whole when it is shown, and all the text is shown once."""
    from cli_runner import hookline as run_hookline
    from model_servers import Events, model_server, openai_chunks
    from model_servers import fragments as cut

    with model_server([Events(openai_chunks(cut(STREAMED, 3)))]) as server:
        env = {"OPENAI_BASE_URL": server.url("/v1"), "OPENAI_API_KEY": "sk-test"}
        done = run_hookline("run", "talk", "--model", "openai:test-model", *flags,
                            cwd=tmp_path, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    for secret in STREAMED_SECRETS:
        assert secret not in done.stdout + done.stderr
    if flags:
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        deltas = [ln["event"]["delta"]["text"] for ln in lines if ln["type"] == "stream_event"]
        shown = "".join(deltas)
        kinds = [ln["type"] for ln in lines if ln["type"] in ("stream_event", "assistant")]
        assert kinds == ["stream_event"] * len(deltas) + ["assistant"]  # the rest came first
    else:
        shown = "\n".join(ln.removeprefix("> ") for ln in done.stdout.splitlines()[:-1])
    assert shown == Redactor().text(STREAMED) and shown.count(MASK) == 3


def test_streamed_text_is_held_until_its_line_and_any_pem_block_in_it_are_whole():
    masker = LineMasker(Redactor())
    assert masker.feed("pay sk_live_51Ab") == ""
    assert masker.feed("CdEfGhIjKlMn now\nnext") == f"pay sk_live_…{MASK} now\n"
    block = "-----BEGIN EC PRIVATE KEY-----\nMHcBodyOfTheKey\n-----END EC PRIVATE KEY-----\n"
    assert masker.feed(" line\n" + block[:60]) == "next line\n"  # cut inside the END line
    masked = masker.feed(block[60:] + "after")
    assert masked == Redactor().text(block) and "MHcBodyOfTheKey" not in masked
    assert masker.feed("-----BEGIN RSA PRIVATE KEY-----\nMIIEunended\n") == ""
    assert "MIIEunended" not in masker.flush() and masker.flush() == ""
