#!/usr/bin/env python3
"""A client for `render serve`, with the Python 3 standard library only.

    client = Serve(["/path/to/render"], ["-workspace", "examples/workspace"])
    result = client.render({"mode": "full", "date": "2026-11-30T09:15:00Z"})
    print(result["layers"][0]["stable_sha256"])
    client.close()

`render serve` reads one JSON object a line on stdin,
{"id": ..., "request": {...}}, and writes one JSON line for each,
{"schema_version": 3, "id": ..., "result": {...}} or
{"schema_version": 3, "id": ..., "error": {"message": ..., "file": ...,
"line": ..., "col": ...}}, in order. Serve keeps one warm engine, so a
turn costs a pipe round trip plus a warm render.

Run as a program, it sends the example request twice, the second before
the first is answered, says whether the stable prefix stayed the same,
and shows the error a bad request gets:

    python3 examples/clients/python/sysprompt_client.py \
        --render ./render -workspace examples/workspace
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor


class ServeError(Exception):
    """A request serve could not render; file, line and col when known."""

    def __init__(self, error):
        super().__init__(error["message"])
        self.message = error["message"]
        self.phase = error.get("phase")
        self.file = error.get("file")
        self.line = error.get("line")
        self.col = error.get("col")
        self.section = error.get("section")


def find_render(given=None):
    """The render binary: given (a --render argument), else
    $SYSPROMPT_RENDER, else render on PATH. Raises RuntimeError naming
    every place it looked when none has one."""
    tried = []
    for where, name in (("--render", given), ("$SYSPROMPT_RENDER", os.environ.get("SYSPROMPT_RENDER"))):
        if not name:
            tried.append("%s (not set)" % where)
            continue
        found = shutil.which(name)
        if found:
            return found
        tried.append("%s=%s (not an executable file)" % (where, name))
    found = shutil.which("render")
    if found:
        return found
    tried.append("render on PATH (not found)")
    raise RuntimeError("no render binary; tried " + ", ".join(tried) +
                       "; install it with: go install github.com/sysprompt/sysprompt/cmd/render@latest")


class Serve:
    """One `render serve` process. render() is safe to call from several
    threads: each request gets its own id and waits for the reply with
    that id, which a reader thread hands over."""

    def __init__(self, render_command, flags=()):
        self._proc = subprocess.Popen(
            list(render_command) + ["serve"] + list(flags),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._write_lock = threading.Lock()  # one line at a time, in id order
        self._lock = threading.Lock()  # guards _next_id, _waiting, _closed
        self._next_id = 0
        self._waiting = {}  # id -> [threading.Event, reply]
        self._closed = None  # why no more replies will come
        self._reader = threading.Thread(target=self._read_replies, daemon=True)
        self._reader.start()

    def render(self, request):
        """Renders one request (a dict with the fields of a request file)
        and returns the result: the document `render -format json` prints.
        Raises ServeError for a request serve refused."""
        slot = [threading.Event(), None]
        # Ids are handed out in the order lines are written, so the oldest
        # waiting id is the one a reply without an id answers.
        with self._write_lock:
            with self._lock:
                if self._closed:
                    raise RuntimeError(self._closed)
                rid = self._next_id
                self._next_id += 1
                self._waiting[rid] = slot
            line = json.dumps({"id": rid, "request": request}, separators=(",", ":"))
            try:
                self._proc.stdin.write(line.encode("utf-8") + b"\n")
                self._proc.stdin.flush()
            except OSError as err:
                with self._lock:
                    self._waiting.pop(rid, None)
                raise RuntimeError("render serve is not running: %s" % err) from err
        slot[0].wait()
        reply = slot[1]
        if reply is None:
            raise RuntimeError(self._closed)
        if "error" in reply:
            raise ServeError(reply["error"])
        return reply["result"]

    def _read_replies(self):
        why = "render serve exited"
        for raw in self._proc.stdout:
            try:
                reply = json.loads(raw)
            except ValueError:
                why = "render serve wrote a line that is not JSON"
                self._proc.kill()
                break
            with self._lock:
                rid = reply.get("id")
                if rid is None and self._waiting:  # a line serve could not read
                    rid = min(self._waiting)
                slot = self._waiting.pop(rid, None)
            if slot is not None:
                slot[1] = reply
                slot[0].set()
        status = self._proc.wait()
        with self._lock:
            self._closed = "%s (status %s)" % (why, status)
            waiting, self._waiting = self._waiting, {}
        for slot in waiting.values():
            slot[0].set()

    def close(self):
        """Ends serve by closing its stdin and returns its exit status."""
        self._proc.stdin.close()
        self._reader.join()
        return self._proc.wait()


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        description="Render the example request twice through render serve.",
        epilog="Other arguments are passed to render serve "
        "(default: -workspace examples/workspace).",
    )
    parser.add_argument("--render",
                        help="the render binary (default: $SYSPROMPT_RENDER, else render on PATH)")
    parser.add_argument("--request", default=os.path.join(here, "..", "direct.json"),
                        help="a JSON request file (default: examples/clients/direct.json)")
    args, flags = parser.parse_known_args(argv)
    if not flags:
        flags = ["-workspace", os.path.join(here, "..", "..", "workspace")]
    with open(args.request, encoding="utf-8") as f:
        request = json.load(f)

    client = Serve([find_render(args.render)], flags)
    try:
        # Two threads: both requests are sent before either reply is read,
        # and their ids match them.
        with ThreadPoolExecutor(2) as pool:
            first, second = (result["layers"][0]["stable_sha256"]
                             for result in pool.map(client.render, [request, request]))
        print("first turn:  stable sha256 %s" % first)
        print("second turn: stable sha256 %s" % second)
        print("stable prefix unchanged: %s" % ("yes" if first == second else "no"))
        try:
            client.render(dict(request, mode="bogus"))
        except ServeError as err:
            print("a bad request: %s (line %s, col %s)" % (err.message, err.line, err.col))
    finally:
        status = client.close()
    return 0 if status == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, RuntimeError) as err:
        print("sysprompt_client: %s" % err, file=sys.stderr)
        sys.exit(1)
