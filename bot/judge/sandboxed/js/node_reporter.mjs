// autofix's reporter for node:test (Node 20+), loaded in the runner's main process as
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//        --test-reporter=<this file> --test-reporter-destination=/dev/null ...
// Node imports reporters before it starts any test file's process, so the nonce is taken here
// first. What autofix reads back, and what it proves: bot/judge/js/report.py.
//
// Each test file runs in a child process of its own: what this process learns of a test comes
// from that child's stdout (node's own event stream), which the file's code can write too.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

// Everything called after load is bound now: nothing that runs later in this process (another
// reporter, a module the runner loads) reaches it through a global or a core module.
const seal = (() => {
  const { readSync, ftruncateSync, openSync, closeSync, fstatSync, writeSync } = fs;
  const createHmac = crypto.createHmac;
  const quote = JSON.stringify;
  const from = Buffer.from;
  const alloc = Buffer.alloc;
  const raw = process.env.AUTOFIX_REPORT_FD;
  if (typeof raw !== "string" || !/^[0-9]{1,9}$/.test(raw)) {
    return null;
  }
  let fd = Number(raw);
  let key;
  try {
    const buffer = alloc(1 << 16);
    const size = readSync(fd, buffer, 0, buffer.length, 0);
    ftruncateSync(fd, 0);
    const first = buffer.toString("latin1", 0, size).split("\n")[0].trim();
    if (!first.startsWith("@@autofix-verdict-")) {
      return null;
    }
    key = from(first, "latin1");
  } catch {
    return null;
  }
  try {
    // The same file again, close-on-exec (node opens every file so), and the inherited number
    // closed: the test files' processes, started after this, don't get the memfd.
    const own = openSync(`/proc/self/fd/${fd}`, "r+");
    closeSync(fd);
    fd = own;
  } catch {
    // no /proc: keep writing to the inherited number
  }
  let done = false;
  return (runner, cases) => {
    if (done) {
      return;
    }
    done = true;
    // Built from quoted strings alone: JSON.stringify of a string consults no toJSON.
    let body = `{"runner":${quote(runner)},"cases":[`;
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i];
      body += `${i ? "," : ""}[${quote(c[0])},${quote(c[1])},${quote(c[2])},${quote(c[3])},${quote(c[4])}]`;
    }
    body += "]}";
    const payload = from(body, "utf8");
    const mac = createHmac("sha256", key).update(payload).digest("hex");
    const line = from(`\n@@autofix-verdict@@${mac}${body}\n`, "utf8");
    try {
      writeSync(fd, line, 0, line.length, fstatSync(fd).size);
    } catch {
      // the channel is gone: no record, and autofix sees no verdict
    }
  };
})();

const CAP = 20000;
const cwd = process.cwd();
const relative = path.relative;
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

function plain(text) {
  return String(text ?? "").replace(ANSI, "");
}

function firstLine(text) {
  return plain(text).trim().split("\n")[0].slice(0, 1000);
}

// The line of a crashed process's stderr that names its error ("Error: boom"), else its first.
function thrown(output) {
  const lines = plain(output).split("\n");
  const named = lines.find((line) => /^[A-Za-z_$][\w$]*(?: \[[^\]]*\])?: /.test(line));
  return firstLine(named ?? output);
}

function capped(text) {
  return plain(text).slice(0, CAP);
}

function where(file) {
  return file ? relative(cwd, file).split(path.sep).join("/") : "";
}

// The error a failing test reports: node wraps the test's own (`cause`) in ERR_TEST_FAILURE.
function failure(error) {
  if (!error) {
    return ["", ""];
  }
  const inner = error.cause && typeof error.cause === "object" ? error.cause : error;
  const message = String(inner.message ?? inner);
  const stack = String(inner.stack ?? "");
  return [firstLine(message), capped(stack.includes(message) ? stack : `${message}\n${stack}`)];
}

export default async function* autofixReporter(source) {
  const cases = [];
  const stacks = new Map(); // file -> the names of the tests and suites open at each nesting level
  const stderr = new Map(); // file -> what its process wrote to stderr, for a file that failed to load
  for await (const event of source) {
    const data = event.data ?? {};
    const file = data.file ?? "";
    if (event.type === "test:start") {
      const stack = stacks.get(file) ?? [];
      stack.length = data.nesting;
      stack.push(data.name);
      stacks.set(file, stack);
    } else if (event.type === "test:stderr") {
      const text = (stderr.get(file) ?? "") + plain(data.message);
      stderr.set(file, text.slice(0, CAP));
    } else if (event.type === "test:pass" || event.type === "test:fail") {
      const failed = event.type === "test:fail";
      const details = data.details ?? {};
      // A file's own process, reported as one test named by its path: it reports only when its
      // tests did not (it failed to load, or exited before it could report them).
      if (data.nesting === 0 && data.name === file) {
        if (failed) {
          const [message, trace] = failure(details.error);
          const output = stderr.get(file) ?? "";
          cases.push([where(file), "", "error", thrown(output) || message, capped(output || trace)]);
        }
        continue;
      }
      const names = (stacks.get(file) ?? []).slice(0, data.nesting);
      names.push(data.name);
      const name = names.join(" > ");
      if (details.type === "suite") {
        // A suite's outcome is its tests'; one that failed on its own (its body or a hook threw)
        // is the one record of the tests it never ran.
        const kind = details.error?.failureType;
        if (failed && kind !== "subtestsFailed" && kind !== "cancelledByParent") {
          cases.push([where(file), name, "failed", ...failure(details.error)]);
        }
        continue;
      }
      if (data.skip !== undefined || data.todo !== undefined) {
        cases.push([where(file), name, "skipped", "", ""]);
      } else if (failed) {
        cases.push([where(file), name, "failed", ...failure(details.error)]);
      } else {
        cases.push([where(file), name, "passed", "", ""]);
      }
    }
  }
  if (seal) {
    seal("node", cases);
  }
}
