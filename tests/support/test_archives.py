"""Registry tarballs unpack as tarfile's `data` filter would, on a Python with the filter and on
Debian's 3.11.2 without it (archives.py)."""

import io
import tarfile

import pytest
from archives import unpack


def tarball(path, *members):
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def file(name, data=b"x"):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def link(name, target):
    info = tarfile.TarInfo(name)
    info.type, info.linkname = tarfile.SYMTYPE, target
    return info, None


def test_a_package_s_files_and_its_links_inside_unpack(tmp_path):
    archive = tarball(tmp_path / "p.tgz", file("package/index.js", b"ok"), link("package/main.js", "index.js"))
    unpack(archive, tmp_path / "out")
    assert (tmp_path / "out" / "package" / "main.js").read_bytes() == b"ok"


@pytest.mark.parametrize(
    "member",
    [file("../escaped"), link("package/key", "/etc/passwd"), link("package/up", "../../x")],
    ids=["parent", "link-out", "link-up"],
)
def test_a_member_that_leaves_the_folder_stops_the_unpacking(tmp_path, member):
    archive = tarball(tmp_path / "p.tgz", file("package/index.js"), member)
    with pytest.raises(tarfile.TarError):
        unpack(archive, tmp_path / "out")
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "out" / "package" / "up").exists()


def test_an_absolute_name_never_lands_outside_the_folder(tmp_path):
    """The filter unpacks it inside, its leading slash stripped; by hand it is refused."""
    outside = tmp_path / "outside"
    archive = tarball(tmp_path / "p.tgz", file(str(outside)))
    try:
        unpack(archive, tmp_path / "out")
    except tarfile.TarError:
        assert not (tmp_path / "out").exists()
    else:
        assert (tmp_path / "out" / str(outside).lstrip("/")).is_file()
    assert not outside.exists()
