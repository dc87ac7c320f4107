"""podman's Docker-compatible API for nektos/act: `podman system service` on a socket of its own,
started here and stopped when the run ends, with limits no higher than the caller's.

podman asks for more open files than the caller has by default, which a root without
CAP_SYS_RESOURCE (a sandboxed builder) may not set; act creates its containers and builds the
action's image through the API, where no `--ulimit` can be passed, so the service's
containers.conf sets smoke.py's limits for both. cgroupfs: where no systemd runs there is
nobody to ask for cgroups (and where one runs, cgroupfs works as well for root).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from runner import POOLS, SHIFT, Engine

READY_WITHIN = 60  # seconds for the socket to answer


def engine() -> list[str] | None:
    """podman's command line for this host; None where podman isn't installed."""
    podman = shutil.which("podman")
    if podman is None:
        return None
    argv = [podman, "--cgroup-manager", "cgroupfs"]
    if shutil.which("runc"):  # crun, podman's default, refuses a host's hybrid cgroups (v1 and v2 mounted)
        argv += ["--runtime", "runc"]
    return argv


def limits(argv: list[str]) -> list[str]:
    """containers.conf's `default_ulimits`: the limits smoke.py passes to `podman run` (the
    caller's open files; 4096 processes, which runc could set where the caller's own count failed)."""
    return Engine(argv, "", None).limits()[1::2]


@contextmanager
def served(argv: list[str], folder: Path) -> Iterator[str]:
    """The service's DOCKER_HOST (unix://...) while it runs; its log is `folder/podman.log`."""
    folder.mkdir(parents=True, exist_ok=True)
    conf = folder / "containers.conf"
    ulimits = ", ".join(f'"{limit}"' for limit in limits(argv))
    conf.write_text(f"[containers]\ndefault_ulimits = [{ulimits}]\n")
    sock = folder / "podman.sock"
    env = os.environ | {"CONTAINERS_CONF": str(conf)}
    with (folder / "podman.log").open("wb") as log:
        service = subprocess.Popen([*argv, "system", "service", "--time=0", f"unix://{sock}"], env=env,
                                   stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
    try:
        _wait(sock, service)
        yield f"unix://{sock}"
    finally:
        service.terminate()
        try:
            service.wait(timeout=30)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()


@contextmanager
def shifted_userns() -> Iterator[str]:
    """A user namespace that gives autofix's uid pools host uids of their own (smoke.py's
    --shift-uids: uids from POOLS up are the host's plus SHIFT, root and the runner's uid are the
    host's), as podman's `--userns` value for every container act starts. Where autofix's own
    tests run on the host beside the containers, a host run ends with kill(-1) as a pool uid,
    which killed the container's test runs of that uid (exit -9) in the middle of a job. Held by
    a process that sleeps in it; act's --userns can name a namespace but not a mapping."""
    holder = subprocess.Popen(["unshare", "--user", "--", "sleep", "infinity"])
    try:
        namespace = Path(f"/proc/{holder.pid}/ns/user")
        deadline = time.monotonic() + READY_WITHIN
        while namespace.readlink() == Path("/proc/self/ns/user").readlink():  # not unshared yet
            if time.monotonic() > deadline or holder.poll() is not None:
                raise SystemExit("unshare --user did not make a user namespace")
            time.sleep(0.01)
        mapping = f"0 0 {POOLS}\n{POOLS} {POOLS + SHIFT} {65536 - POOLS}\n".encode()
        for name in ("uid_map", "gid_map"):  # one write each: the kernel takes a map once, whole
            with open(f"/proc/{holder.pid}/{name}", "wb", buffering=0) as out:
                out.write(mapping)
        yield f"ns:{namespace}"
    finally:
        holder.kill()
        holder.wait()


def _wait(sock: Path, service: subprocess.Popen) -> None:
    """Until the API answers `GET /_ping` with OK."""
    deadline = time.monotonic() + READY_WITHIN
    while time.monotonic() < deadline:
        if service.poll() is not None:
            raise SystemExit(f"podman system service exited {service.returncode}: see podman.log")
        if sock.exists() and _ping(sock):
            return
        time.sleep(0.1)
    raise SystemExit(f"podman system service did not answer on {sock} within {READY_WITHIN} s")


def _ping(sock: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as client:
        try:
            client.connect(str(sock))
            client.sendall(b"GET /_ping HTTP/1.0\r\nHost: d\r\n\r\n")
            return b"OK" in client.recv(4096)
        except OSError:
            return False
