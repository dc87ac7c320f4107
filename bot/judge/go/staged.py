"""A `go test` run that carries twins, staged so that no test binary can read them.

The twins (canaries.py) are source in a test file of their package, and a test binary runs as the
run's uid beside go: code under test that reads the package's test files can tell the planted
file (it sorts last) and, in it, an echo (an exact copy of a test) from a broken twin (a changed
copy), then forge a report that gets every twin right. go test builds and runs package by
package, so while one package's binary runs another's planted file may still be on disk, waiting
for its compiler. So the launcher (run.py's, in the sandbox) stages the run:

1. `go test -exec STASH ...`, with go's own flags: go builds, vets and links every test binary and
   hands each to STASH (autofix's script) in place of running it; STASH moves the binary aside with
   the arguments and folder go gave it. No code of the repository or the candidate runs here: go,
   its compiler, vet and linker only (cgo's C compiler compiles).
2. Every planted file is emptied.
3. Each binary runs as go test would run it (its folder, go's arguments, PWD set, stderr merged
   into stdout), up to -p at once, and its output, with the line go test adds after it (`ok` or
   `FAIL`, and the exit status when the output doesn't end the run itself), goes through go's
   test2json, the converter go test uses: the events autofix reads are the ones go test writes.

A package that didn't reach STASH (its build or vet failed, or it has no tests) keeps step 1's
events. What stays: a binary holds its twins' machine code; telling an echo from a broken twin by
that is decompiling its own executable.

A run of variants (variants.py: AUTOFIX_GO_VARIANTS names the environment variable, the values
and each variant's seconds) does step 3 once per value, with the variable set, after a line
`autofix-variant N` of its own, each binary stopped after the variant's seconds (a line
`autofix-stopped` says so); when step 1 failed (a schema that doesn't build or vet) it runs none
and exits 3.
"""

from __future__ import annotations

# Runs as `python -S -s -c STAGED <memfd> <go> test <flags and packages>`, after LAUNCH's
# set-up (run.py: stdout on the memfd, GOCACHE ready), with AUTOFIX_GO_PLANTED (JSON: the
# planted files, relative), AUTOFIX_GO_MODULE and AUTOFIX_GO_PARALLEL in its environment, and
# AUTOFIX_GO_VARIANTS (JSON) for a run of variants.
STAGED = r"""
import concurrent.futures, json, os, shutil, subprocess, sys, tempfile, threading, time
planted = json.loads(os.environ.pop('AUTOFIX_GO_PLANTED'))
module = os.environ.pop('AUTOFIX_GO_MODULE')
parallel = int(os.environ.pop('AUTOFIX_GO_PARALLEL'))
variants = json.loads(os.environ.pop('AUTOFIX_GO_VARIANTS', 'null'))
go, words = sys.argv[2], sys.argv[3:]
root = os.getcwd()
stash = tempfile.mkdtemp(prefix='autofix-go-binaries-')
script = os.path.join(stash, 'stash.py')
with open(script, 'w') as out:
    out.write(
        'import json, os, shutil, sys, tempfile\n'
        'fd, path = tempfile.mkstemp(dir=os.environ["AUTOFIX_GO_STASH"], suffix=".test")\n'
        'os.close(fd)\n'
        'shutil.move(sys.argv[1], path)\n'
        'os.chmod(path, 0o700)\n'
        'with open(path + ".json", "w") as out:\n'
        '    json.dump({"dir": os.getcwd(), "args": sys.argv[2:]}, out)\n'
    )
for part in (sys.executable, script):
    if "'" in part:
        sys.exit('autofix: a path holds a quote: ' + part)
env = dict(os.environ, AUTOFIX_GO_STASH=stash)
first = os.path.join(stash, 'events')
with open(first, 'wb') as out:
    built = subprocess.run([go, words[0], "-exec='" + sys.executable + "' -S -s '" + script + "'", *words[1:]],
                           stdout=out, env=env).returncode
os.environ.pop('AUTOFIX_GO_STASH', None)
binaries = []
for name in sorted(os.listdir(stash)):
    if name.endswith('.test.json'):
        with open(os.path.join(stash, name)) as data:
            found = json.load(data)
        relative = os.path.relpath(found['dir'], root)
        found['package'] = module if relative == '.' else module + '/' + relative
        found['binary'] = os.path.join(stash, name[:-5])
        binaries.append(found)
for path in planted:
    with open(path, 'wb'):
        pass
stashed = {found['package'] for found in binaries}
written = threading.Lock()
def emit(data):
    with written:
        while data:
            data = data[os.write(1, data):]
with open(first, 'rb') as events:
    for line in events:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        named = str(event.get('Package') or event.get('ImportPath') or '').split(' ', 1)[0]
        if named not in stashed:
            emit(line if line.endswith(b'\n') else line + b'\n')
converter = subprocess.run([go, 'tool', '-n', 'test2json'], cwd=stash, capture_output=True, text=True)
test2json = os.path.join(stash, 'test2json')
if converter.returncode == 0:
    shutil.copyfile(converter.stdout.strip(), test2json)  # GOCACHE's copy lost its mode (run.py's LAUNCH)
    os.chmod(test2json, 0o700)
version = subprocess.run([go, 'env', 'GOVERSION'], cwd=stash, capture_output=True, text=True).stdout.strip()
try:
    minor = int(version.split('.')[1]) if version.startswith('go1.') else 99
except ValueError:
    minor = 99
mark = '\x16' if minor >= 24 else ''  # go1.24 marks the FAIL line it adds, as the binary's framing
def run(found, chosen=None):
    output = os.path.join(stash, os.path.basename(found['binary']) + '.out')
    began = time.monotonic()
    env = dict(os.environ, PWD=found['dir'])
    if chosen is not None:
        env[variants['variable']] = str(chosen)
    with open(output, 'wb') as out:
        child = subprocess.Popen([found['binary'], *found['args']], cwd=found['dir'], stdout=out,
                                 stderr=subprocess.STDOUT, env=env)
        try:
            child.wait(timeout=variants['seconds'] if chosen is not None else None)
        except subprocess.TimeoutExpired:  # a variant that never ends: told apart, and said
            child.kill()
            child.wait()
            emit(b'autofix-stopped\n')
        done = child
    took = '%.3fs' % (time.monotonic() - began)
    with open(output, 'rb') as out:
        out.seek(0, 2)
        size = out.tell()
        out.seek(max(0, size - 1))
        ended = size == 0 or out.read() == b'\n'
    with open(output, 'ab') as out:  # what go test writes after the binary's output (cmd/go, runTestActor)
        if done.returncode == 0:
            out.write((('' if ended else '\n') + 'ok  \t%s\t%s\n' % (found['package'], took)).encode())
        else:
            if size == 0 or done.returncode < 0:
                code = done.returncode
                out.write(('exit status %d\n' % code if code > 0 else 'signal: %d\n' % -code).encode())
            elif not ended:
                out.write(b'\n')
            out.write(('%sFAIL\t%s\t%s\n' % (mark, found['package'], took)).encode())
    with open(output, 'rb') as source:
        events = subprocess.run([test2json, '-t', '-p', found['package']], stdin=source, stdout=subprocess.PIPE).stdout
    emit(events)
    return done.returncode
with concurrent.futures.ThreadPoolExecutor(max(1, parallel)) as pool:
    if variants is None:
        codes = list(pool.map(run, binaries))
    elif built or converter.returncode:  # a schema that didn't build: no variant's run says anything
        codes = [3]
    else:
        codes = []
        for index, chosen in enumerate(variants['values']):
            emit(b'autofix-variant %d\n' % index)
            codes += pool.map(lambda found: run(found, chosen), binaries)
shutil.rmtree(stash, ignore_errors=True)
sys.exit(3 if codes == [3] else 1 if built or any(codes) or converter.returncode else 0)
"""
