"""``hookline serve --tls-cert --tls-key``: a real HTTPS request on 127.0.0.1 with a certificate
made for the test, and a wrong file named in one line before anything starts."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from cli_runner import hookline
from hookline._errors import ConfigError
from hookline._serve.server import Tls
from test_serve import policy_folder, running, tool_call, work_folder


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def self_signed(folder: Path) -> Tls:
    """A certificate for 127.0.0.1, signed by its own key: both written as PEM."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hookline test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(_key_pem(key))
    return Tls(str(folder / "cert.pem"), str(folder / "key.pem"))


def test_the_server_answers_over_https_with_its_certificate(tmp_path: Path) -> None:
    tls = self_signed(tmp_path).checked()
    workspace = work_folder(tmp_path)
    with running(policy_folder(tmp_path), tmp_path / "state", tls=tls) as where:
        assert where.startswith("https://127.0.0.1:")
        trusting = ssl.create_default_context(cafile=tls.cert)
        asked = tool_call(workspace, "Bash", {"command": "rm -rf /"})
        answer = httpx.post(where, json=asked, verify=trusting)
        with pytest.raises(httpx.ConnectError):  # a client that does not trust it gets nothing
            httpx.post(where, json=asked)
    assert answer.json()["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_key_that_is_not_the_certificates_is_named(tmp_path: Path) -> None:
    tls = self_signed(tmp_path)
    other = tmp_path / "other.pem"
    other.write_bytes(_key_pem(ec.generate_private_key(ec.SECP256R1())))
    with pytest.raises(ConfigError) as raised:
        Tls(tls.cert, str(other)).checked()
    assert raised.value.file == str(other)
    assert "is not the PEM private key of" in raised.value.message


def test_a_certificate_that_is_not_one_is_named(tmp_path: Path) -> None:
    tls = self_signed(tmp_path)
    with pytest.raises(ConfigError) as raised:
        Tls(tls.key, tls.key).checked()
    assert raised.value.file == tls.key
    assert "is not a PEM certificate" in raised.value.message


def test_serve_with_a_missing_certificate_stops_in_one_line_naming_it(tmp_path: Path) -> None:
    tls = self_signed(tmp_path)
    missing = tmp_path / "nowhere.pem"
    (tmp_path / "policy").mkdir()
    args = ("--cwd", str(tmp_path / "policy"), "--port", "0", "--state-dir", str(tmp_path / "s"))
    done = hookline("serve", *args, "--tls-cert", str(missing), "--tls-key", tls.key)
    assert done.returncode == 2
    assert f"--tls-cert {missing}: cannot read it" in done.stderr
    assert done.stderr.count("\n") == 1
    half = hookline("serve", *args, "--tls-cert", tls.cert)
    assert half.returncode == 2
    assert "--tls-cert needs --tls-key" in half.stderr
