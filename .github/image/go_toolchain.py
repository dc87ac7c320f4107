"""The image's Go: one release of the golang.org/toolchain module (the Go distribution as a module,
what go's own toolchain switch fetches), from the Go module proxy, for the machine building the
image (linux/amd64 or linux/arm64), checked against its line in go-toolchain.sum before anything
is unpacked, then unpacked into GOROOT.

The sum is go's own (`h1:`: golang.org/x/mod/sumdb/dirhash's Hash1 of the zip's file names and
contents), the line `go mod download -json golang.org/toolchain@VERSION` prints after checking it
against the checksum database (sum.golang.org): the zip's names and contents are all that is
unpacked, so the sum covers everything the image gets. A module zip keeps no file modes: as go
does when it first runs a toolchain it fetched, the files in bin/ and pkg/tool/ are made
executable.

    python go_toolchain.py go-toolchain.sum /usr/local/go     # stdlib only: the build's Python
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import platform
import sys
import urllib.request
import zipfile

PROXY = "https://proxy.golang.org"
MODULE = "golang.org/toolchain"
ARCHES = {"x86_64": "amd64", "aarch64": "arm64"}  # platform.machine() -> Go's GOARCH
EXECUTABLE = ("bin/", "pkg/tool/")


def pinned(sums: str, arch: str) -> tuple[str, str]:
    """The version and `h1:` sum the sum file pins for linux/`arch`."""
    with open(sums, encoding="utf-8") as lines:
        found = [line.split() for line in lines]
    for words in found:
        if len(words) == 3 and words[0] == MODULE and words[1].endswith(f".linux-{arch}"):
            return words[1], words[2]
    raise SystemExit(f"{sums}: no {MODULE} line for linux-{arch}")


def hash1(archive: zipfile.ZipFile) -> str:
    """dirhash.Hash1 of the zip's files: sha256 of the lines "<sha256 hex>  <name>\\n", by name."""
    names = sorted(info.filename for info in archive.infolist() if not info.is_dir())
    summary = hashlib.sha256()
    for name in names:
        if "\n" in name:
            raise SystemExit(f"a file name holds a line break: {name!r}")
        summary.update(f"{hashlib.sha256(archive.read(name)).hexdigest()}  {name}\n".encode())
    return "h1:" + base64.b64encode(summary.digest()).decode()


def unpack(archive: zipfile.ZipFile, prefix: str, goroot: str) -> None:
    """The zip's files under `prefix`, into `goroot`; nothing written unless every name is there."""
    files = [info for info in archive.infolist() if not info.is_dir()]
    for info in files:
        parts = info.filename.removeprefix(prefix).split("/")
        if not info.filename.startswith(prefix) or ".." in parts or "" in parts:
            raise SystemExit(f"a file outside the module's folder: {info.filename!r}")
    for info in files:
        relative = info.filename.removeprefix(prefix)
        path = os.path.join(goroot, *relative.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as out:
            out.write(archive.read(info))
        os.chmod(path, 0o755 if relative.startswith(EXECUTABLE) else 0o644)


def main(sums: str, goroot: str) -> None:
    arch = ARCHES.get(platform.machine())
    if arch is None:
        raise SystemExit(f"no Go toolchain pinned for {platform.machine()}")
    version, want = pinned(sums, arch)
    with urllib.request.urlopen(f"{PROXY}/{MODULE}/@v/{version}.zip", timeout=600) as response:
        data = response.read()
    archive = zipfile.ZipFile(io.BytesIO(data))
    got = hash1(archive)
    if got != want:
        raise SystemExit(f"{MODULE}@{version}: the proxy's zip hashes to {got}, {sums} pins {want}")
    unpack(archive, f"{MODULE}@{version}/", goroot)
    print(f"{MODULE}@{version} {got}: {len(data)} bytes, unpacked into {goroot}")


if __name__ == "__main__":
    main(*sys.argv[1:])
