// autofix's reporter for Jest (30), loaded in Jest's main process as
//   jest [paths...] --reporters=default --reporters=<this file>
// (the paths first: --reporters takes every word after it). Jest requires its reporters before
// it loads any test file, though after its config file (jest.config.*, package.json's "jest").
// What autofix reads back, and what it proves: bot/judge/js/report.py.
//
// Where the tests run: in worker processes, whose results reach this process over their IPC
// channel (which their code can write too); in this very process when Jest runs "in band": one
// test file, --runInBand, or maxWorkers 1 (any machine of 2 cores or fewer). Then a test's code
// shares the process with this reporter (in a vm context of its own, but core modules such as
// fs and crypto are the same objects): what runs later than this file's load is bound here now.
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

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
    // closed: Jest's workers, started after this, don't get the memfd.
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
const OUTCOMES = { passed: "passed", failed: "failed", pending: "skipped", skipped: "skipped", todo: "skipped", disabled: "skipped" };

function plain(text) {
  return String(text ?? "").replace(ANSI, "");
}

function firstLine(text) {
  return plain(text).trim().split("\n")[0].slice(0, 1000);
}

function where(file) {
  return file ? relative(cwd, file).split(sep).join("/") : "";
}

function casesOf(results) {
  const cases = [];
  for (const file of results.testResults ?? []) {
    const rel = where(file.testFilePath);
    for (const test of file.testResults ?? []) {
      const name = [...(test.ancestorTitles ?? []), test.title].join(" > ");
      const outcome = OUTCOMES[test.status] ?? "failed";
      if (outcome !== "failed") {
        cases.push([rel, name, outcome, "", ""]);
        continue;
      }
      // failureMessages: each failure's message and stack, as Jest prints them.
      const messages = test.failureMessages ?? [];
      const detail = test.failureDetails?.[0];
      const message = detail && typeof detail.message === "string" ? detail.message : messages[0];
      const why = messages.length || test.status === "failed" ? message : `Jest reported the test as ${test.status}`;
      cases.push([rel, name, "failed", firstLine(why), plain(messages.join("\n")).slice(0, CAP)]);
    }
    // The file failed to load or to run (a throw at its top level or in a describe, a worker
    // that died): Jest's one error for it.
    const error = file.testExecError;
    if (error) {
      const message = String(error.message ?? "");
      const stack = String(error.stack ?? "");
      const details = stack.includes(message) ? stack : `${message}\n${stack}`;
      cases.push([rel, "", "error", firstLine(message), plain(details).slice(0, CAP)]);
    }
  }
  return cases;
}

class AutofixReporter {
  onRunComplete(_contexts, results) {
    if (seal) {
      seal("jest", casesOf(results));
    }
  }

  getLastError() {
    return undefined;
  }
}

module.exports = AutofixReporter;
