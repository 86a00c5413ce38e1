"""The terminal's one connection pool verifies TLS with the trust :mod:`pos_terminal.api.trust` loads once per process:
a server whose certificate nobody trusts is refused, and ``SSL_CERT_FILE`` is honoured as httpx honours it."""

from __future__ import annotations

import datetime
import http.server
import ipaddress
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from pos_terminal.api.client import make_http_client
from pos_terminal.api.trust import prepare, trust


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that no authority signed, and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "server.pem", folder / "server.key"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_file, key_file


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def https_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An HTTPS server on loopback with a self-signed certificate; its address and that certificate."""
    cert_file, key_file = self_signed(tmp_path)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/", cert_file
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


async def test_a_certificate_no_authority_signed_is_refused(https_server: tuple[str, Path]) -> None:
    url, _ = https_server
    async with make_http_client(timeout=5.0) as http:
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await http.get(url)


def test_the_trust_is_loaded_once_and_verifies() -> None:
    prepare()
    context = trust()
    assert context is trust()
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] > 50  # an authorities' bundle, not an empty store


def test_ssl_cert_file_is_trusted_as_httpx_trusts_it(https_server: tuple[str, Path]) -> None:
    """In a process of its own: the trust is loaded once per process, as the window's is."""
    url, cert_file = https_server
    probe = (
        "import asyncio, sys\n"
        "from pos_terminal.api.client import make_http_client\n"
        "from pos_terminal.api.trust import prepare\n"
        "prepare()\n"
        "async def main():\n"
        "    async with make_http_client(timeout=5.0) as http:\n"
        "        print((await http.get(sys.argv[1])).text)\n"
        "asyncio.run(main())\n"
    )
    env = {"SSL_CERT_FILE": str(cert_file), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", probe, url], capture_output=True, text=True, timeout=60, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello"
