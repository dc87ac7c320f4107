// autofix's reporter for Vitest (4.1), loaded in Vitest's main process as
//   vitest run --reporter=default --reporter=<this file> [filters...]
// Vitest imports it before any test file is collected, though after its config file
// (vitest.config.*, vite.config.*) and the plugins that config names, which run in this process
// (so do globalSetup files). What autofix reads back, and what it proves: bot/judge/js/report.py.
//
// Where the tests run: in worker processes (pool "forks", the default) or worker threads
// ("threads"), whose results reach this process over Vitest's RPC channel, which their code can
// write too. Never in this process.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

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
    // closed: Vitest's workers, started after this, don't get the memfd.
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
const sep = path.sep;
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

function plain(text) {
  return String(text ?? "").replace(ANSI, "");
}

function firstLine(text) {
  return plain(text).trim().split("\n")[0].slice(0, 1000);
}

function where(file) {
  return file ? relative(cwd, file).split(sep).join("/") : "";
}

// Vitest's serialized errors: message, stack (whose first line is "Name: message").
function failure(errors) {
  const first = errors?.[0];
  if (!first) {
    return ["", ""];
  }
  const parts = [];
  for (const error of errors) {
    const message = String(error.message ?? "");
    const stack = String(error.stack ?? "");
    parts.push(stack.includes(message) ? stack : `${message}\n${stack}`);
  }
  return [firstLine(first.message ?? first), plain(parts.join("\n")).slice(0, CAP)];
}

function nameOf(test) {
  const names = [test.name];
  for (let parent = test.parent; parent && parent.type === "suite"; parent = parent.parent) {
    names.unshift(parent.name);
  }
  return names.join(" > ");
}

function casesOf(modules, unhandled) {
  const cases = [];
  for (const module of modules) {
    const rel = where(module.moduleId);
    for (const test of module.children.allTests()) {
      const result = test.result();
      if (result.state === "passed") {
        cases.push([rel, nameOf(test), "passed", "", ""]);
      } else if (result.state === "skipped") {
        cases.push([rel, nameOf(test), "skipped", "", ""]);
      } else if (result.state === "failed") {
        cases.push([rel, nameOf(test), "failed", ...failure(result.errors)]);
      } else {
        // Collected, never finished: the run ended (or its worker died) first.
        cases.push([rel, nameOf(test), "failed", `the test did not finish (${result.state})`, ""]);
      }
    }
    // The file failed to load or to collect (a throw at its top level or in a describe), or a
    // suite's hook failed: Vitest's errors of the module itself.
    const errors = module.errors();
    if (errors.length) {
      cases.push([rel, "", "error", ...failure(errors)]);
    }
  }
  // Errors outside any test (an unhandled rejection, a worker that died): the run failed, and
  // no test is to blame.
  if (unhandled.length) {
    cases.push(["", "", "error", ...failure(unhandled)]);
  }
  return cases;
}

export default class AutofixReporter {
  onTestRunEnd(testModules, unhandledErrors) {
    if (seal) {
      seal("vitest", casesOf(testModules ?? [], unhandledErrors ?? []));
    }
  }
}
