// autofix's reporter for node:test (Node 20+), loaded in the runner's main process as
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//        --test-reporter=<this file> --test-reporter-destination=/dev/null ...
// Node imports reporters before it starts any test file's process, so the nonce is taken here
// first. What autofix reads back, and what it proves: bot/judge/js/report.py.
//
// Each test file runs in a child process of its own: what this process learns of a test comes
// from that child's stdout (node's own event stream), which the file's code can write too.
import { createRequire } from "node:module";
import path from "node:path";

// Node's own require, whatever loads this file (Vitest's module runner transforms what it
// imports): seal.cjs takes the nonce and binds what it calls now, as this file loads.
const seal = createRequire(import.meta.url)("./seal.cjs");

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
