"""Black-box cases against `toolbelt mcp --port 0` on 127.0.0.1."""

from __future__ import annotations

import json
import os
import pathlib
import socket
import stat
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from common import RESULTS, Server, record, sse_result


def call(srv, sid, name, args, rid=2, extra_meta=None, headers=None, version=None):
    params = {"name": name, "arguments": args}
    if extra_meta:
        params["_meta"] = extra_meta
    h = (
        srv.hdrs(**{"Mcp-Session-Id": sid})
        if sid
        else srv.hdrs(**{"MCP-Protocol-Version": version or "2026-07-28"})
    )
    if headers:
        h.update(headers)
    st, hd, b = srv.req(
        "POST",
        body={"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params},
        headers=h,
        timeout=60,
    )
    return st, sse_result(b) if b.strip() else []


def text_of(msgs):
    for m in msgs:
        if "result" in m:
            return "".join(c.get("text", "") for c in m["result"].get("content", []))
        if "error" in m:
            return "ERROR " + m["error"]["message"]
    return repr(msgs)


def rss(pid):
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("VmRSS"):
            return int(l.split()[1]) // 1024
    return -1


def main():
    base = pathlib.Path(tempfile.mkdtemp(prefix="rt2http-"))
    srv = Server(
        base / "a",
        args=["--request-timeout", "2", "--max-sessions", "6", "--session-idle-timeout", "60"],
    )
    tok = srv.token
    try:
        # ---- auth
        st, h, b = srv.req(
            "POST",
            body={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers=srv.hdrs(Authorization=None),
        )
        record("auth", "no token", st == 401, f"{st} {b[:80]!r}")
        st, h, b = srv.req(
            "POST",
            body={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers=srv.hdrs(Authorization="Bearer nope"),
        )
        record(
            "auth",
            "wrong token",
            st == 401 and tok.encode() not in b and tok not in json.dumps(h),
            f"{st}",
        )
        st, h, b = srv.req(
            "POST",
            body={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers=srv.hdrs(Authorization=f"Bearer {tok[:-1]}"),
        )
        record("auth", "token prefix", st == 401, f"{st}")
        st, h, b = srv.req(
            "POST",
            f"/mcp?token={tok}",
            body={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers=srv.hdrs(Authorization=None),
        )
        record("auth", "token in query", st == 401, f"{st}")
        st, h, b = srv.req("GET", "/metrics", headers=srv.hdrs(Authorization=None))
        record("auth", "/metrics without token", st == 401, f"{st}")
        for p in (
            "/livez",
            "/readyz",
            "/",
            "/mcp/",
            "/MCP",
            "/metrics/",
            "/.well-known/oauth-protected-resource",
        ):
            st, h, b = srv.req("GET", p, headers=srv.hdrs(Authorization=None))
            record(
                "leak",
                f"GET {p} w/o token",
                st in (200, 401, 404, 405)
                and b"/" not in b.replace(b"/mcp", b"")
                and tok.encode() not in b,
                f"{st} {b[:60]!r}",
            )
        # ---- token leaks
        env = open(f"/proc/{srv.proc.pid}/environ", "rb").read()
        record(
            "leak",
            "/proc/PID/environ",
            tok.encode() not in env,
            "token present" if tok.encode() in env else "wiped",
        )
        cmd = open(f"/proc/{srv.proc.pid}/cmdline", "rb").read()
        record("leak", "/proc/PID/cmdline", tok.encode() not in cmd, "")
        mode = stat.S_IMODE(srv.ready.stat().st_mode)
        record(
            "leak",
            "ready file",
            tok not in srv.ready.read_text(),
            f"mode {oct(mode)} {srv.ready.read_text()}",
        )
        # children: a tool's command
        sid = srv.init()
        st, m = call(
            srv,
            sid,
            "bash",
            {"command": "env; cat /proc/$PPID/environ | tr '\\0' '\\n'; ps -o args= -p $PPID"},
        )
        out = text_of(m)
        record("leak", "bash env / parent environ", tok not in out, f"{st} len {len(out)}")
        # metrics
        st, h, b = srv.req("GET", "/metrics")
        record(
            "leak",
            "/metrics body",
            st == 200
            and tok.encode() not in b
            and str(srv.ws).encode() not in b
            and str(base).encode() not in b,
            f"{st} {len(b)}B",
        )
        # ---- Host / Origin
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        for label, hh in [
            ("Host evil", {"Host": "evil.example"}),
            ("Host evil:PORT", {"Host": f"evil.example:{srv.port}"}),
            ("Host w/o port", {"Host": "127.0.0.1"}),
            ("Host other port", {"Host": "127.0.0.1:1"}),
            ("Host 127.0.0.1.evil", {"Host": f"127.0.0.1.evil.example:{srv.port}"}),
            ("Host userinfo", {"Host": f"evil@127.0.0.1:{srv.port}"}),
            ("Origin evil", {"Origin": "http://evil.example"}),
            ("Origin null", {"Origin": "null"}),
            ("Origin other port", {"Origin": "http://127.0.0.1:1"}),
            ("Origin https", {"Origin": f"https://127.0.0.1:{srv.port}"}),
            ("Origin suffix", {"Origin": f"http://127.0.0.1:{srv.port}.evil.example"}),
            ("CT text/plain", {"Content-Type": "text/plain"}),
            ("CT form", {"Content-Type": "application/x-www-form-urlencoded"}),
            ("CT json-ish", {"Content-Type": "application/jsonp"}),
        ]:
            h2 = srv.hdrs(**{"Mcp-Session-Id": sid})
            h2.update(hh)
            st, h, b = srv.req("POST", body=ping, headers=h2)
            record("rebind", label, st in (403, 415, 400), f"{st}")
        # duplicate Host headers, absolute-form target
        for order in (
            ("evil.example", f"127.0.0.1:{srv.port}"),
            (f"127.0.0.1:{srv.port}", "evil.example"),
        ):
            s = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
            body = json.dumps(ping).encode()
            s.sendall(
                (
                    f"POST /mcp HTTP/1.1\r\nHost: {order[0]}\r\nHost: {order[1]}\r\nAuthorization: Bearer {tok}\r\n"
                    f"Content-Type: application/json\r\nAccept: application/json\r\nMcp-Session-Id: {sid}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                ).encode()
                + body
            )
            resp = s.recv(200)
            s.close()
            record(
                "rebind",
                f"duplicate Host {order[0][:12]} first",
                b" 200 " not in resp[:15],
                resp[:20].decode(errors="replace"),
            )
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        s.sendall(
            (
                f"POST http://evil.example/mcp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nAuthorization: Bearer {tok}\r\n"
                f"Content-Type: application/json\r\nMcp-Session-Id: {sid}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            ).encode()
            + body
        )
        resp = s.recv(200)
        s.close()
        record(
            "rebind",
            "absolute-form target",
            True,
            resp[:20].decode(errors="replace") + " (host header checked; informative)",
        )
        st, h, b = srv.req(
            "OPTIONS",
            headers={
                "Host": f"127.0.0.1:{srv.port}",
                "Origin": "http://evil.example",
                "Access-Control-Request-Method": "POST",
            },
        )
        record(
            "rebind",
            "CORS preflight",
            not any(k.lower().startswith("access-control-allow") for k in h),
            f"{st}",
        )
        # ---- sessions
        st, h, b = srv.req(
            "POST",
            body={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "x", "version": "0"},
                },
            },
            headers=srv.hdrs(**{"Mcp-Session-Id": "attacker-chosen"}),
        )
        got = {k.lower(): v for k, v in h.items()}.get("mcp-session-id")
        record(
            "session",
            "fixation (client-chosen id)",
            got != "attacker-chosen" and len(got or "") >= 32,
            f"{got}",
        )
        st, h, b = srv.req(
            "POST",
            body=ping,
            headers=srv.hdrs(
                **{"Mcp-Session-Id": "deadbeef" * 4, "MCP-Protocol-Version": "2026-07-28"}
            ),
        )
        record("session", "unknown id + modern header", st == 404, f"{st}")
        # per-session state isolation: B cannot see A's todo list / cwd
        sid_b = srv.init()
        call(srv, sid, "bash", {"command": "cd /tmp && export SECRET_A=alpha-123"})
        st, m = call(srv, sid_b, "bash", {"command": "pwd; echo ${SECRET_A:-none}"})
        record(
            "session",
            "shell state across sessions",
            "alpha-123" not in text_of(m),
            text_of(m)[:60].replace("\n", "|"),
        )
        # ---- idempotency across sessions
        key = "k-" + os.urandom(4).hex()
        st, ma = call(
            srv,
            sid,
            "bash",
            {"command": "echo A-ONLY-$RANDOM$RANDOM"},
            extra_meta={"toolbelt/idempotencyKey": key},
        )
        st, mb = call(
            srv,
            sid_b,
            "bash",
            {"command": "echo A-ONLY-$RANDOM$RANDOM"},
            extra_meta={"toolbelt/idempotencyKey": key},
        )
        same = text_of(ma) == text_of(mb)
        record(
            "idem",
            "B replays A's key (same args, other session)",
            True,
            f"B got A's answer={same} (one token, one principal: by design)",
        )
        st, mc = call(
            srv,
            sid_b,
            "read_file",
            {"path": "hello.txt"},
            extra_meta={"toolbelt/idempotencyKey": key},
        )
        t = text_of(mc)
        record("idem", "key reuse other tool: what the error says", "echo" not in t, t[:140])
        # memory retained by keyed calls
        r0 = rss(srv.proc.pid)
        big = "x" * (12 * 1024 * 1024)
        for i in range(6):
            call(
                srv,
                sid,
                "no_such_tool",
                {"blob": big},
                rid=100 + i,
                extra_meta={"toolbelt/idempotencyKey": f"mem-{i}-{os.urandom(3).hex()}"},
            )
        time.sleep(1.5)
        r1 = rss(srv.proc.pid)
        for i in range(6):
            call(srv, sid, "no_such_tool", {"blob": big}, rid=200 + i)
        time.sleep(1.5)
        r2 = rss(srv.proc.pid)
        record(
            "oversize",
            "keyed calls retain their arguments",
            r1 - r0 < 40,
            f"RSS {r0}->{r1} MiB after 6 keyed 12 MiB calls; {r2} after 6 unkeyed",
        )
        st, m = call(
            srv,
            sid,
            "think",
            {"thought": "x"},
            extra_meta={"toolbelt/idempotencyKey": "K" * (8 * 1024 * 1024)},
        )
        record(
            "oversize",
            "8 MiB idempotency key accepted",
            False if st == 200 and "result" in json.dumps(m)[:200] else True,
            f"{st} {text_of(m)[:60]}",
        )
        # ---- oversize / malformed
        st, h, b = srv.req(
            "POST",
            body=b"{" + b" " * (17 * 1024 * 1024) + b"}",
            headers=srv.hdrs(**{"Mcp-Session-Id": sid}),
        )
        record("oversize", "17 MiB body", st == 413, f"{st}")
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=20)
        s.sendall(
            (
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nAuthorization: Bearer {tok}\r\nContent-Type: application/json\r\n"
                f"Mcp-Session-Id: {sid}\r\nTransfer-Encoding: chunked\r\n\r\n"
            ).encode()
        )
        chunk = b"x" * (1 << 20)
        try:
            for _ in range(18):
                s.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        except OSError:
            pass
        resp = s.recv(100)
        s.close()
        record(
            "oversize", "17 MiB chunked", b"413" in resp[:15], resp[:15].decode(errors="replace")
        )
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=20)
        s.sendall(
            f"GET /livez HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nX-Big: {'a' * 200000}\r\n\r\n".encode()
        )
        try:
            resp = s.recv(100)
        except OSError as e:
            resp = repr(e).encode()
        s.close()
        record(
            "oversize",
            "200 KB header",
            b" 200 " not in resp[:15],
            resp[:30].decode(errors="replace"),
        )
        # slowloris: headers never finish, body never finishes
        t0 = time.monotonic()
        socks = []
        for i in range(30):
            s = socket.create_connection(("127.0.0.1", srv.port), timeout=15)
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            socks.append(s)
        for i in range(10):
            s = socket.create_connection(("127.0.0.1", srv.port), timeout=15)
            s.sendall(
                (
                    f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nAuthorization: Bearer {tok}\r\nContent-Type: application/json\r\nMcp-Session-Id: {sid}\r\nContent-Length: 1000\r\n\r\n{{"
                ).encode()
            )
            socks.append(s)
        st, m = call(srv, sid, "think", {"thought": "alive"})
        closed = 0
        for s in socks:
            try:
                d = s.recv(100)
                closed += 1
            except OSError:
                pass
            s.close()
        record(
            "slow",
            "slowloris 30 headers + 10 bodies",
            st == 200 and closed == 40 and time.monotonic() - t0 < 14,
            f"others served {st}, closed {closed}/40 in {time.monotonic() - t0:.1f}s",
        )
        # many sessions
        ids = [srv.init() for _ in range(8)]
        record(
            "limits",
            "sessions past --max-sessions 6",
            ids.count(None) >= 1,
            f"{sum(1 for i in ids if i)} opened of 8 (+2 before)",
        )
        for i in ids:
            if i:
                srv.req("DELETE", headers=srv.hdrs(**{"Mcp-Session-Id": i}))
        # malformed messages, both eras
        cases = {
            "batch": [ping, ping],
            "big batch": [ping] * 5000,
            "empty batch": [],
            "id object": {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"},
            "method int": {"jsonrpc": "2.0", "id": 1, "method": 5},
            "params list": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": [1]},
            "no jsonrpc": {"id": 1, "method": "ping"},
            "jsonrpc 1.0": {"jsonrpc": "1.0", "id": 1, "method": "ping"},
            "name list": {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": ["bash"], "arguments": {}},
            },
            "arguments string": {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "bash", "arguments": "ls"},
            },
            "meta list": {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "think", "arguments": {"thought": "x"}, "_meta": [1]},
            },
            "key int": {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "think",
                    "arguments": {"thought": "x"},
                    "_meta": {"toolbelt/idempotencyKey": 5},
                },
            },
            "cancel object id": {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": {"x": 1}},
            },
            "cancel no params": {"jsonrpc": "2.0", "method": "notifications/cancelled"},
            "progressToken object": {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "think",
                    "arguments": {"thought": "x"},
                    "_meta": {"progressToken": {"a": [1]}},
                },
            },
            "response unknown id": {"jsonrpc": "2.0", "id": 99, "result": {}},
            "unknown method": {"jsonrpc": "2.0", "id": 1, "method": "x/" + "y" * 10000},
        }
        raw = {
            "deep nesting": b"[" * 200000 + b"]" * 200000,
            "bad utf8": b'{"jsonrpc":"2.0","id":1,"method":"\xff"}',
            "NaN": b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}',
            "huge int id": b'{"jsonrpc":"2.0","id":' + b"9" * 100000 + b',"method":"ping"}',
            "dup keys": b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}',
            "BOM": b'\xef\xbb\xbf{"jsonrpc":"2.0","id":1,"method":"ping"}',
            "empty": b"",
            "lone surrogate": b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',
            "deep params": b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"think","arguments":{"thought":'
            + b'{"a":' * 50000
            + b"1"
            + b"}" * 50000
            + b"}}}",
        }
        for era in ("2025", "2026"):
            hh = (
                srv.hdrs(**{"Mcp-Session-Id": sid})
                if era == "2025"
                else srv.hdrs(**{"MCP-Protocol-Version": "2026-07-28"})
            )
            for name, msg in list(cases.items()) + list(raw.items()):
                body = msg if isinstance(msg, bytes) else json.dumps(msg).encode()
                try:
                    st, h, b = srv.req("POST", body=body, headers=hh, timeout=30)
                    ok = (
                        st < 500
                        and srv.proc.poll() is None
                        and b"Traceback" not in b
                        and len(b) < 20000
                    )
                    record("malformed", f"{era} {name}", ok, f"{st} {b[:100]!r}")
                except Exception as e:
                    record("malformed", f"{era} {name}", False, repr(e))
        # metrics label cardinality from unknown tool names
        for i in range(50):
            call(srv, sid, f"nope_{i}_" + "z" * 200, {}, rid=300 + i)
        st, h, b = srv.req("GET", "/metrics")
        n = b.count(b"nope_")
        record(
            "oversize",
            "metrics labels from unknown tool names",
            n == 0,
            f"{n} series with client-chosen names, {len(b)} B",
        )
        esc = '\x1b]52;c;ZXZpbA==\x07"} 1\nfake_metric 1\n'
        call(srv, sid, esc, {}, rid=400)
        st, h, b = srv.req("GET", "/metrics")
        record(
            "leak",
            "metrics label injection",
            b"\nfake_metric 1" not in b,
            "escaped" if b"\nfake_metric 1" not in b else "injected line",
        )
        st, h, b = srv.req("GET", "/readyz")
        record("leak", "/readyz body", b in (b"ready",), repr(b))
    finally:
        srv.stop()
        print("stderr tail:", (base / "a" / "stderr.log").read_text()[-600:])
        log = (base / "a" / "stderr.log").read_text()
        record("leak", "server stderr has no token", tok not in log, f"{len(log)} chars")
    print(json.dumps(RESULTS), file=open(base / "results.json", "w"))
    print("results in", base / "results.json")


if __name__ == "__main__":
    main()
