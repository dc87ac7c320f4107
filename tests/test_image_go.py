"""The image's Go (.github/image/go_toolchain.py): the golang.org/toolchain zip checked against its
go.sum line before anything of it is unpacked. Real go downloads a real module for the sum's
algorithm; the toolchain's zips here are small ones made by the test, served on loopback."""

from __future__ import annotations

import functools
import http.server
import importlib.util
import io
import json
import os
import platform
import subprocess
import threading
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IMAGE = ROOT / ".github" / "image"
spec = importlib.util.spec_from_file_location("go_toolchain", IMAGE / "go_toolchain.py")
assert spec is not None and spec.loader is not None
go_toolchain = importlib.util.module_from_spec(spec)
spec.loader.exec_module(go_toolchain)

ARCH = go_toolchain.ARCHES[platform.machine()]
VERSION = f"v0.0.1-go1.27.3.linux-{ARCH}"
PREFIX = f"golang.org/toolchain@{VERSION}/"
FILES = {"bin/go": b"#!go\n", "pkg/tool/linux_x/compile": b"compile\n", "src/fmt/print.go": b"package fmt\n"}


def toolchain_zip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


@pytest.fixture
def proxy(tmp_path, monkeypatch):
    """A module proxy on loopback: serve(zip) puts the toolchain's zip where go_toolchain asks."""
    folder = tmp_path / "proxy"
    (folder / "golang.org" / "toolchain" / "@v").mkdir(parents=True)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setattr(go_toolchain, "PROXY", f"http://127.0.0.1:{server.server_address[1]}")

    def serve(data: bytes) -> None:
        (folder / "golang.org" / "toolchain" / "@v" / f"{VERSION}.zip").write_bytes(data)

    yield serve
    server.shutdown()
    server.server_close()


def pinned_to(tmp_path: Path, files: dict[str, bytes]) -> str:
    """A sum file pinning the zip of `files` for this machine."""
    sums = tmp_path / "go-toolchain.sum"
    digest = go_toolchain.hash1(zipfile.ZipFile(io.BytesIO(toolchain_zip(files))))
    sums.write_text(f"# a comment\ngolang.org/toolchain {VERSION} {digest}\n")
    return str(sums)


def test_the_sum_is_the_one_go_checks(tmp_path):
    """hash1 of a module zip that go downloaded is the h1: sum go printed for it (go.sum's)."""
    env = {**os.environ, "GOMODCACHE": str(tmp_path / "mod"), "GOFLAGS": "-modcacherw", "GOTOOLCHAIN": "local"}
    done = subprocess.run(
        ["go", "mod", "download", "-json", "github.com/google/go-cmp@v0.7.0"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = json.loads(done.stdout)
    assert found["Sum"] == "h1:wk8382ETsv4JYUZwIsn6YpYiWiBsYLSJiTsyBybVuN8="
    assert go_toolchain.hash1(zipfile.ZipFile(found["Zip"])) == found["Sum"]


def test_the_pinned_zip_is_unpacked_with_go_s_programs_executable(tmp_path, proxy):
    files = {PREFIX + name: data for name, data in FILES.items()}
    proxy(toolchain_zip(files))
    goroot = tmp_path / "go"
    go_toolchain.main(pinned_to(tmp_path, files), str(goroot))
    assert {name: (goroot / name).read_bytes() for name in FILES} == FILES
    modes = {name: (goroot / name).stat().st_mode & 0o777 for name in FILES}
    assert modes == {"bin/go": 0o755, "pkg/tool/linux_x/compile": 0o755, "src/fmt/print.go": 0o644}


def test_a_zip_its_sum_does_not_match_is_never_unpacked(tmp_path, proxy):
    files = {PREFIX + name: data for name, data in FILES.items()}
    proxy(toolchain_zip({**files, PREFIX + "bin/go": b"#!not go\n"}))
    goroot = tmp_path / "go"
    with pytest.raises(SystemExit) as refused:
        go_toolchain.main(pinned_to(tmp_path, files), str(goroot))
    assert str(refused.value).startswith(f"golang.org/toolchain@{VERSION}: the proxy's zip hashes to h1:")
    assert not goroot.exists()


@pytest.mark.parametrize("name", [PREFIX + "../escaped", PREFIX + "bin/../../escaped", "/escaped", "escaped"])
def test_a_file_outside_the_module_s_folder_is_refused(tmp_path, proxy, name):
    files = {PREFIX + "bin/go": b"go\n", name: b"x"}
    proxy(toolchain_zip(files))
    with pytest.raises(SystemExit) as refused:
        go_toolchain.main(pinned_to(tmp_path, files), str(tmp_path / "go"))
    assert str(refused.value) == f"a file outside the module's folder: {name!r}"
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "go").exists()


def test_one_release_is_pinned_for_each_machine_and_the_dockerfile_unpacks_it():
    lines = [line.split() for line in (IMAGE / "go-toolchain.sum").read_text().splitlines() if line[:1] != "#"]
    assert [words[:2] for words in lines] == [
        ["golang.org/toolchain", f"v0.0.1-go1.27.3.linux-{arch}"] for arch in ("amd64", "arm64")
    ]
    assert all(len(words) == 3 and words[2].startswith("h1:") for words in lines)
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "RUN python /tmp/go_toolchain.py /tmp/go-toolchain.sum /usr/local/go\n" in dockerfile
