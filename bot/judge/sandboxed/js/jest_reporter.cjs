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
// fs and crypto are the same objects): what runs later than this file's load is bound as it loads.
"use strict";

const path = require("node:path");

// Takes the nonce and binds what it calls now, as this file loads.
const seal = require("./seal.cjs");

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
