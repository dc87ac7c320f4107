// autofix's reporter for Vitest (4.1), loaded in Vitest's main process as
//   vitest run --reporter=default --reporter=<this file> [filters...]
// Vitest imports it before any test file is collected, though after its config file
// (vitest.config.*, vite.config.*) and the plugins that config names, which run in this process
// (so do globalSetup files). What autofix reads back, and what it proves: bot/judge/js/report.py.
//
// Where the tests run: in worker processes (pool "forks", the default) or worker threads
// ("threads"), whose results reach this process over Vitest's RPC channel, which their code can
// write too. Never in this process.
import { createRequire } from "node:module";
import path from "node:path";

// Node's own require, whatever loads this file (Vitest's module runner transforms what it
// imports): seal.cjs takes the nonce and binds what it calls now, as this file loads.
const seal = createRequire(import.meta.url)("./seal.cjs");

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
