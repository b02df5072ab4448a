#!/usr/bin/env node
// A client for `render serve`, with Node's built-in modules only.
//
//   const { Serve } = require("./sysprompt_client.js");
//   const client = new Serve("/path/to/render", ["-workspace", "examples/workspace"]);
//   const result = await client.render({ mode: "full", date: "2026-11-30T09:15:00Z" });
//   console.log(result.layers[0].stable_sha256);
//   await client.close();
//
// `render serve` reads one JSON object a line on stdin,
// {"id": ..., "request": {...}}, and writes one JSON line for each,
// {"schema_version": 3, "id": ..., "result": {...}} or
// {"schema_version": 3, "id": ..., "error": {"message": ..., "file": ...,
// "line": ..., "col": ...}}, in order. Serve keeps one warm engine, so a
// turn costs a pipe round trip plus a warm render.
//
// Run as a program, it sends the example request twice, the second before
// the first is answered, says whether the stable prefix stayed the same,
// and shows the error a bad request gets:
//
//   node examples/clients/node/sysprompt_client.js --render ./render -workspace examples/workspace
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const readline = require("node:readline");

// ServeError is a request serve could not render; file, line and col
// are set when known.
class ServeError extends Error {
  constructor(error) {
    super(error.message);
    this.name = "ServeError";
    Object.assign(this, { phase: error.phase, file: error.file, line: error.line, col: error.col, section: error.section });
  }
}

// Serve is one `render serve` process. render() may be called again
// before an earlier call settles: each request has its own id, and the
// reply with that id settles it.
class Serve {
  constructor(render, flags = []) {
    this.proc = spawn(render, ["serve", ...flags], { stdio: ["pipe", "pipe", "inherit"] });
    this.nextId = 0;
    this.waiting = new Map(); // id -> { resolve, reject }, in the order sent
    this.closed = null; // why no more replies will come
    this.exited = new Promise((resolve) => this.proc.on("close", (code) => resolve(code)));
    this.proc.on("error", (err) => this.fail(`render serve did not start: ${err.message}`));
    this.proc.stdin.on("error", () => {}); // a dead process shows in "close"
    readline.createInterface({ input: this.proc.stdout, crlfDelay: Infinity })
      .on("line", (line) => this.onLine(line))
      .on("close", () => this.fail("render serve exited"));
  }

  // render sends one request (an object with the fields of a request
  // file) and resolves to the result, the document `render -format json`
  // prints, or rejects with a ServeError.
  render(request) {
    if (this.closed) {
      return Promise.reject(new Error(this.closed));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.proc.stdin.write(JSON.stringify({ id, request }) + "\n");
    });
  }

  onLine(line) {
    let reply;
    try {
      reply = JSON.parse(line);
    } catch {
      this.fail("render serve wrote a line that is not JSON");
      this.proc.kill();
      return;
    }
    this.settle(reply);
  }

  settle(reply) {
    // A line serve could not read has no id; replies come in order, so
    // it answers the oldest request still waiting.
    const id = reply.id === null ? this.waiting.keys().next().value : reply.id;
    const waiter = this.waiting.get(id);
    if (!waiter) {
      return;
    }
    this.waiting.delete(id);
    if (reply.error) {
      waiter.reject(new ServeError(reply.error));
    } else {
      waiter.resolve(reply.result);
    }
  }

  fail(why) {
    this.closed = why;
    for (const waiter of this.waiting.values()) {
      waiter.reject(new Error(why));
    }
    this.waiting.clear();
  }

  // close ends serve by closing its stdin and resolves to its exit status.
  close() {
    this.proc.stdin.end();
    return this.exited;
  }
}

// findRender returns the render binary: given (a --render argument), else
// $SYSPROMPT_RENDER, else render on PATH; a bare name is looked up on PATH
// too, as a shell would. It throws an error naming every place it looked
// when none has one.
function findRender(given) {
  const executable = (file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  const lookup = (name) => {
    if (name.includes("/") || name.includes(path.sep)) {
      return executable(name) ? name : null;
    }
    for (const dir of (process.env.PATH || "").split(path.delimiter)) {
      for (const file of process.platform === "win32" ? [name, name + ".exe"] : [name]) {
        if (executable(path.join(dir || ".", file))) {
          return path.join(dir || ".", file);
        }
      }
    }
    return null;
  };
  const tried = [];
  for (const [where, name] of [["--render", given], ["$SYSPROMPT_RENDER", process.env.SYSPROMPT_RENDER]]) {
    const found = name && lookup(name);
    if (found) {
      return found;
    }
    tried.push(name ? `${where}=${name} (not an executable file)` : `${where} (not set)`);
  }
  const found = lookup("render");
  if (found) {
    return found;
  }
  tried.push("render on PATH (not found)");
  throw new Error(`no render binary; tried ${tried.join(", ")}; ` +
    "install it with: go install github.com/sysprompt/sysprompt/cmd/render@latest");
}

async function main(argv) {
  let render;
  let requestFile = path.join(__dirname, "..", "direct.json");
  const flags = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--render" && i + 1 < argv.length) {
      render = argv[++i];
    } else if (argv[i] === "--request" && i + 1 < argv.length) {
      requestFile = argv[++i];
    } else {
      flags.push(argv[i]); // passed to render serve
    }
  }
  if (flags.length === 0) {
    flags.push("-workspace", path.join(__dirname, "..", "..", "workspace"));
  }
  const request = JSON.parse(fs.readFileSync(requestFile, "utf8"));

  const client = new Serve(findRender(render), flags);
  try {
    // Both requests are sent before either reply is read; ids match them.
    const [first, second] = (await Promise.all([client.render(request), client.render(request)]))
      .map((result) => result.layers[0].stable_sha256);
    console.log(`first turn:  stable sha256 ${first}`);
    console.log(`second turn: stable sha256 ${second}`);
    console.log(`stable prefix unchanged: ${first === second ? "yes" : "no"}`);
    try {
      await client.render({ ...request, mode: "bogus" });
    } catch (err) {
      if (!(err instanceof ServeError)) {
        throw err;
      }
      console.log(`a bad request: ${err.message} (line ${err.line}, col ${err.col})`);
    }
  } finally {
    const status = await client.close();
    process.exitCode = status === 0 ? process.exitCode : 1;
  }
}

module.exports = { Serve, ServeError, findRender };

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err.message);
    process.exitCode = 1;
  });
}
