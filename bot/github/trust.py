"""The certificates the step's HTTPS clients trust when `ca-bundle` (or SSL_CERT_FILE) names a
PEM file: the usual public roots (certifi's, which requests and the openai SDK trust by default)
plus that file's, in one bundle that git, PyGithub (requests) and the openai SDK (httpx) are each
given. Each of them takes a bundle as the whole set to trust, so the file alone would make a
GitHub Enterprise Server behind a private CA verify and a public model service fail."""

from __future__ import annotations

from pathlib import Path


def bundle(extra: Path, folder: Path) -> Path:
    """The public roots and `extra`'s certificates as one PEM file in `folder`."""
    import certifi  # requests' own dependency: the roots requests and httpx trust by default

    path = folder / "ca-bundle.pem"
    roots = Path(certifi.where()).read_bytes()
    path.write_bytes(roots.rstrip(b"\n") + b"\n" + extra.read_bytes())
    return path
