#!/usr/bin/env python3
"""sitewatch: a WidgetHost extension (protocol 1) that checks URLs.

Written from docs/extensions.md and docs/views.md only. Python 3, standard library only.

Every check is a `download` through the host's background session (session
`ext.sitewatch.check`). The result arrives as `sessionEvents` -- possibly in a later
process, after an idle exit or a crash -- so everything the extension knows is kept in
$WIDGETHOST_EXTENSION_DATA/state.json:

    {"sites": {URL: {"history": [{"t": epoch, "ok": bool, "ms": float|null, "detail": str}],
                     "since": epoch-of-last-change, "state": "up"|"down"}},
     "pending": {URL: {"t": epoch-requested, "task": int|null}}}

Latency is the time from our `download` request to the `sessionEvents` that report it:
the host's round trip, not a bare TCP timing (the protocol gives no timings).
"""

import datetime as dt
import json
import os
import sys
import time
import traceback

try:
    from zoneinfo import ZoneInfo
except ImportError:  # pragma: no cover
    ZoneInfo = None

SESSION = "check"
HISTORY_MAX = 500
PENDING_STALE = 120.0         # a check not reported after this is forgotten (and retried)
MAX_ENTRIES = 30              # one entry a minute ahead, at most

DATA = os.environ.get("WIDGETHOST_EXTENSION_DATA") or os.path.join(os.getcwd(), ".data")
STATE_FILE = os.path.join(DATA, "state.json")

_next_id = 1_000_000
_my_requests = {}             # id -> (url, requested-at) for our `download` requests
_log_ready = False
# Debugging aid: `touch trace-on` in this folder and every line both ways is appended to
# trace.log here (useful for `snapshot`/`preview`, whose state directory is removed).
TRACE = os.path.exists("trace-on")


def trace(direction, line):
    if TRACE:
        try:
            with open("trace.log", "a", encoding="utf-8") as f:
                f.write(f"{time.strftime('%H:%M:%S')} {os.getpid()} {direction} {line[:2000]}\n")
        except OSError:
            pass


# ---------------------------------------------------------------- channel

def send(msg):
    line = json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
    trace("<-", line)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def answer(mid, result):
    send({"jsonrpc": "2.0", "id": mid, "result": result})


def fail(mid, code, message):
    send({"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": message}})


def log(level, message):
    """The protocol's log once initialized; stderr before (the host logs stderr too)."""
    message = str(message)[:480]
    if not _log_ready:
        print(f"sitewatch {level}: {message}", file=sys.stderr, flush=True)
    else:
        send({"jsonrpc": "2.0", "method": "log", "params": {"level": level, "message": message}})


def request(method, params):
    global _next_id
    _next_id += 1
    send({"jsonrpc": "2.0", "id": _next_id, "method": method, "params": params})
    return _next_id


# ---------------------------------------------------------------- state

def load_state():
    try:
        with open(STATE_FILE, encoding="utf-8") as f:
            state = json.load(f)
        if not isinstance(state, dict):
            raise ValueError("not an object")
    except FileNotFoundError:
        state = {}
    except (OSError, ValueError) as e:
        log("error", f"state file unreadable ({e}); starting afresh")
        state = {}
    if not isinstance(state.get("sites"), dict):
        state["sites"] = {}
    if not isinstance(state.get("pending"), dict):
        state["pending"] = {}
    return state


def save_state(state):
    try:
        os.makedirs(DATA, exist_ok=True)
        tmp = STATE_FILE + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(state, f, separators=(",", ":"))
        os.replace(tmp, STATE_FILE)
    except OSError as e:
        log("error", f"cannot save state: {e}")


def site(state, url):
    s = state["sites"].get(url)
    if not isinstance(s, dict):
        s = {"history": [], "since": None, "state": None}
        state["sites"][url] = s
    s.setdefault("history", [])
    return s


def record(state, url, ok, ms, detail, now):
    s = site(state, url)
    new_state = "up" if ok else "down"
    if s.get("state") != new_state:
        s["state"] = new_state
        s["since"] = now
    s["history"].append({"t": now, "ok": ok, "ms": ms, "detail": detail[:120]})
    del s["history"][:-HISTORY_MAX]


# ---------------------------------------------------------------- checks

def start_check(state, url, force=False):
    """Ask the host to download URL unless a check of it is already under way."""
    now = time.time()
    p = state["pending"].get(url)
    if p and now - p.get("t", 0) < (2 if force else PENDING_STALE):
        return False
    if p:
        log("info", f"check of {url} not reported after {now - p.get('t', 0):.0f}s; asking again")
    mid = request("download", {"identifier": SESSION, "url": url, "description": url})
    _my_requests[mid] = (url, now)
    state["pending"][url] = {"t": now, "task": None, "pid": os.getpid()}
    return True


def check_due(state, url, every):
    hist = site(state, url)["history"]
    return not hist or time.time() - hist[-1]["t"] >= every - 1


def on_download_answer(msg):
    url, t = _my_requests.pop(msg["id"], (None, None))
    if url is None:
        return
    state = load_state()
    if "error" in msg:
        err = msg["error"]
        text = err.get("message", "?") if isinstance(err, dict) else str(err)
        log("error", f"download of {url} refused: {text}")
        state["pending"].pop(url, None)
        save_state(state)
        return
    task = (msg.get("result") or {}).get("task")
    p = state["pending"].get(url)
    if p is not None:
        p["task"] = task
    save_state(state)
    log("debug", f"download of {url} is task {task}")


def on_session_events(params):
    events = params.get("events")
    if not isinstance(events, list):
        raise ValueError("events is not a list")
    state = load_state()
    now = time.time()
    for ev in events:
        if not isinstance(ev, dict):
            log("error", f"ignoring a malformed event: {ev!r}"[:400])
            continue
        url = ev.get("url")
        status = ev.get("status")
        p = state["pending"].pop(url, None)
        # A result delivered to another process (after an idle exit, a crash or a host
        # restart) took an unknown share of that time waiting: no latency then.
        ms = (now - p["t"]) * 1000.0 if p and "t" in p and p.get("pid") == os.getpid() else None
        if p is None:
            log("info", f"{url}: result of a check this state did not ask for (task {ev.get('task')})")
        expect = (state.get("expect") or {}).get(url, "")
        if status == "downloaded":
            body = b""
            try:
                with open(ev["file"], "rb") as f:   # readable until we answer
                    body = f.read(1 << 20)
            except (OSError, KeyError, TypeError) as e:
                log("error", f"{url}: body file unreadable: {e}")
                record(state, url, False, None, f"body unreadable: {e}", now)
                continue
            text = body.decode("utf-8", "replace")
            if expect and expect not in text:
                record(state, url, False, ms, f"{len(body)} B, no {expect!r}", now)
            else:
                record(state, url, True, ms, f"{len(body)} B" + ("" if ms is not None else ", resumed"), now)
        elif status == "notModified":
            record(state, url, True, ms, "not modified", now)
        elif status in ("failed", "unavailable", "cancelled"):
            why = ev.get("error") or status
            record(state, url, False, None, str(why), now)
            log("info", f"{url}: {status}: {why}")
        else:
            log("error", f"{url}: unknown event status {status!r}")
    save_state(state)
    send({"jsonrpc": "2.0", "method": "reloadTimelines", "params": {}})


# ---------------------------------------------------------------- views

def ago(seconds):
    # Entries change once a minute (and on every reload), so seconds would go stale.
    seconds = max(0, int(seconds))
    if seconds < 60:
        return "<1m"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h {seconds % 3600 // 60}m"
    return f"{seconds // 86400}d {seconds % 86400 // 3600}h"


def text(s, role="foreground", bold=False, align="left"):
    span = {"text": s, "role": role}
    if bold:
        span["bold"] = True
    node = {"type": "text", "spans": [span]}
    if align != "left":
        node["align"] = align
    return node


def spans(*parts, align="left"):
    node = {"type": "text", "spans": [
        dict({"text": t, "role": r}, **({"bold": True} if b else {})) for t, r, b in parts]}
    if align != "left":
        node["align"] = align
    return node


def zone(name):
    if name == "local":                      # the host's timeZone type allows 'local'
        return dt.datetime.now().astimezone().tzinfo
    if ZoneInfo is None:
        return dt.timezone.utc
    try:
        return ZoneInfo(name)
    except Exception:
        log("error", f"unknown time zone {name!r}; using UTC")
        return dt.timezone.utc


def clock(epoch, tz):
    return dt.datetime.fromtimestamp(epoch, tz).strftime("%H:%M:%S")


def fmt_ms(ms):
    if ms is None:
        return "—"
    return f"{ms:,.0f} ms" if ms >= 10 else f"{ms:.1f} ms"


def median(values):
    v = sorted(values)
    n = len(v)
    if not n:
        return None
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def status_view(s, opts, family, at, pending, size):
    hist = s["history"]
    tz = zone(opts.get("timeZone", "UTC"))
    slow = opts.get("slowMs", 500)
    if not hist:
        msg = "checking…" if pending else "not checked yet"
        return {"type": "vstack", "children": [
            {"type": "spacer"}, text(msg, "placeholder", align="center"),
            text(opts.get("url", ""), "muted", align="center"), {"type": "spacer"}]}
    last = hist[-1]
    if not last["ok"]:
        head, role = "✖ DOWN", "negative"
    elif last["ms"] is not None and last["ms"] > slow:
        head, role = "▲ SLOW", "warning"
    else:
        head, role = "● UP", "positive"
    since = s.get("since") or last["t"]
    lines = [
        spans((head, role, True), ("  " + fmt_ms(last["ms"]) if last["ok"] else "", "foreground", False),
              align="center"),
        {"type": "sparkline", "values": [h["ms"] or 0 for h in hist[-max(size["columns"], 1):]],
         "role": role},
        text(f"{s.get('state', '?')} {ago(at - since)}" if family == "small" else
             f"{s.get('state', '?')} since {clock(since, tz)} ({ago(at - since)})", "muted", align="center"),
        text(("checking… " if pending else "") + f"checked {ago(at - last['t'])} ago", "muted", align="center"),
    ]
    if not last["ok"]:
        lines.insert(1, {"type": "text", "spans": [{"text": last["detail"], "role": "negative"}],
                         "align": "center", "wrap": family != "small"})
    if family in ("medium", "large") and opts.get("url"):
        # The site itself, a link: a click opens it (an OSC 8 hyperlink where the terminal has them).
        lines.append({"type": "text", "spans": [{"text": opts["url"], "role": "muted", "link": opts["url"]}],
                      "align": "center"})
    if family in ("medium", "large"):
        recent = hist[-20:]
        okc = sum(1 for h in recent if h["ok"])
        lines.insert(len(lines) - 2, {"type": "bar", "value": okc / len(recent), "role": "positive",
                                      "label": f"{okc}/{len(recent)} ok"})
    if family == "large":
        rows = [[{"text": clock(h["t"], tz), "role": "muted"},
                 {"text": "ok" if h["ok"] else "fail", "role": "positive" if h["ok"] else "negative"},
                 {"text": fmt_ms(h["ms"])},
                 {"text": h["detail"], "role": "muted"}]
                for h in reversed(hist[-8:])]
        lines += [{"type": "divider"},
                  {"type": "table", "columns": [{"title": "time", "min": 8}, {"title": "", "min": 4},
                                                {"title": "latency", "align": "right", "min": 9},
                                                {"title": "detail"}],
                   "rows": rows}]
    return {"type": "vstack", "children": lines}


def latency_view(s, opts, family, at, pending, size):
    hist = s["history"][-opts.get("samples", 120):]
    if not hist:
        return text("checking…" if pending else "no samples yet", "placeholder", align="center")
    oks = [h["ms"] for h in hist if h["ok"] and h["ms"] is not None]
    okc = sum(1 for h in hist if h["ok"])
    share = okc / len(hist)
    role = "positive" if share >= 0.99 else "warning" if share >= 0.9 else "negative"
    stats = (spans(("min ", "muted", False), (fmt_ms(min(oks)), "foreground", True),
                   ("  med ", "muted", False), (fmt_ms(median(oks)), "foreground", True),
                   ("  max ", "muted", False), (fmt_ms(max(oks)), "foreground", True))
             if oks else text("no successful check", "negative"))
    children = [stats,
                {"type": "hstack", "gap": 1, "children": [
                    text("ok", "muted"),
                    {"type": "bar", "value": share, "role": role,
                     "label": f"{share * 100:.1f}% of {len(hist)}"}]},
                {"type": "sparkline", "values": [h["ms"] or 0 for h in hist], "role": "accent"}]
    if family in ("large", "extraLarge") and opts.get("showTable", True):
        rows = [[{"text": ago(at - h["t"]) + " ago", "role": "muted"},
                 {"text": fmt_ms(h["ms"]), "role": "foreground" if h["ok"] else "negative"},
                 {"text": h["detail"], "role": "muted"}] for h in reversed(hist[-5:])]
        children += [{"type": "table", "columns": [{"title": "checked", "min": 8},
                                                   {"title": "latency", "align": "right", "min": 9},
                                                   {"title": "detail"}], "rows": rows}]
    last = hist[-1]
    children.append(text(("checking… " if pending else "") + f"last {ago(at - last['t'])} ago",
                         "muted"))
    return {"type": "vstack", "children": children}


def demo_site(now, every):
    hist = []
    for i in range(40):
        t = now - 20 - (39 - i) * every
        ok = i not in (22, 23)
        hist.append({"t": t, "ok": ok, "ms": (12 + (i * 7) % 9 + (30 if i == 30 else 0)) if ok else None,
                     "detail": "2 B (sample)" if ok else "connection refused (sample)"})
    return {"history": hist, "since": now - 16 * every, "state": "up"}


def iso(epoch):
    return dt.datetime.fromtimestamp(epoch, dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def relevance(s, first, until):
    """Scores for a stack. This host compares a child's score on its own scale (as far as
    we can tell: relative to the highest score in that child's timeline), so an up site says
    0 and a down one 100: a constant 10 would tie with a constant 100. A site that just came
    back is worth a look for its first entry only. The relevance holds `duration` seconds
    from the entry's date, then counts as none: we make it last until the next timeline."""
    hist = s["history"]
    if not hist or hist[-1]["ok"] and (len(hist) < 2 or hist[-2]["ok"] or not first):
        score = 0
    elif not hist[-1]["ok"]:
        score = 100
    else:
        score = 50          # just came back
    return {"score": score, "duration": max(1, int(until))}


def on_timeline(params):
    kind = params.get("kind")
    opts = params.get("options") or {}
    family = params.get("family", "small")
    size = params.get("size") or {"columns": 20, "rows": 6}
    url = opts.get("url")
    if kind not in ("status", "latency"):
        raise ValueError(f"unknown kind {kind!r}")
    if not isinstance(url, str) or not url:
        raise ValueError("the url option is missing")
    every = float(opts.get("every", 30))
    state = load_state()
    state.setdefault("expect", {})[url] = opts.get("expect", "")
    if not params.get("isPreview"):
        if params.get("userInitiated") or check_due(state, url, every):
            start_check(state, url, force=bool(params.get("userInitiated")))
    save_state(state)
    s = site(state, url)
    pending = url in state["pending"]
    now = time.time()
    if params.get("isPreview") and not s["history"]:
        s = demo_site(now, every)            # previews cannot download: show sample data
    hist = s["history"]
    next_check = (hist[-1]["t"] + every) if hist and not pending else now + every
    next_check = max(next_check, now + 1)
    # One entry now, then one a minute until the next check, so the "checked 3m ago" /
    # "up since … (2h 5m)" texts stay true without waking us.
    # Minutes counted from the last check, so "checked 2m ago" turns when it becomes true.
    times = [now]
    base = hist[-1]["t"] if hist else now
    t = base + ((now - base) // 60 + 1) * 60
    while t < next_check and len(times) < MAX_ENTRIES:
        times.append(t)
        t += 60
    view = status_view if kind == "status" else latency_view
    entries = []
    for t in times:
        entry = {"date": iso(t), "view": view(s, opts, family, t, pending, size)}
        if opts.get("url"):
            entry["url"] = opts["url"]           # o on the panel opens the site
        if kind == "status":
            entry["relevance"] = relevance(s, t == times[0], next_check - t + every)
        entries.append(entry)
    return {"entries": entries, "policy": {"after": iso(next_check)}}


def on_action(params):
    opts = params.get("options") or {}
    url = opts.get("url")
    state = load_state()
    if params.get("action") == "c":
        if not start_check(state, url, force=True):
            raise RuntimeError("a check is already running")
    elif params.get("action") == "x":
        s = site(state, url)
        s["history"] = []
        s["since"] = None
        s["state"] = None
        log("info", f"history of {url} forgotten")
    else:
        raise ValueError(f"unknown action {params.get('action')!r}")
    save_state(state)
    return {}


# ---------------------------------------------------------------- options

# Offered by the `url` picker besides the URLs already checked: the bundled leaderboard server's.
KNOWN_URLS = {"http://127.0.0.1:8787/healthz": "the bundled leaderboard server's health",
              "http://127.0.0.1:8787/leaderboard": "the bundled leaderboard server's board"}


def on_options(params):
    """The Edit Widget form's picker of `url` (marked "dynamic"): the URLs checked before, with
    their state and last latency, then the known ones; those containing the query."""
    if params.get("kind") != "status" or params.get("option") != "url":
        raise ValueError(f"no dynamic option {params.get('option')!r} for kind {params.get('kind')!r}")
    query = str(params.get("query") or "").lower()
    items = []
    for url, s in sorted(load_state()["sites"].items()):
        hist = s.get("history") or []
        if not hist:
            continue
        last = hist[-1]
        latency = f", {fmt_ms(last['ms'])}" if last.get("ms") is not None else ""
        items.append({"value": url, "title": url, "subtitle": f"{s.get('state') or 'unknown'}{latency}, {len(hist)} checks"})
    items += [{"value": url, "title": url, "subtitle": doc} for url, doc in KNOWN_URLS.items()
              if all(item["value"] != url for item in items)]
    return {"items": [item for item in items if query in item["value"].lower()][:200]}


# ---------------------------------------------------------------- main loop

def handle(msg):
    global _log_ready
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
        log("error", f"not a JSON-RPC 2.0 message: {str(msg)[:200]}")
        return
    mid = msg.get("id")
    method = msg.get("method")
    if method is None:                       # an answer to one of our requests
        on_download_answer(msg)
        return
    params = msg.get("params") or {}
    try:
        if method == "initialize":
            if params.get("protocol") != 1:
                fail(mid, -32602, f"protocol {params.get('protocol')!r} not supported; this speaks 1")
                return
            answer(mid, {"protocol": 1})
            _log_ready = True
            log("debug", f"started, pid {os.getpid()}, data in {DATA}")
        elif method == "timeline":
            answer(mid, on_timeline(params))
        elif method == "action":
            answer(mid, on_action(params))
        elif method == "options":
            answer(mid, on_options(params))
        elif method == "sessionEvents":
            on_session_events(params)
            answer(mid, {})                  # only now may the host delete the files
        elif method == "shutdown":
            answer(mid, {})
            sys.exit(0)
        elif mid is not None:
            fail(mid, -32601, f"unknown method {method}")
        else:
            log("debug", f"ignoring notification {method}")
    except SystemExit:
        raise
    except Exception as e:                   # our own bug or bad input: say so, keep running
        log("error", f"{method} failed: {e.__class__.__name__}: {e} | "
                     + traceback.format_exc().strip().splitlines()[-2].strip()[:200])
        if mid is not None:
            fail(mid, -32000, f"{e.__class__.__name__}: {e}")


def main():
    for raw in sys.stdin:                    # EOF: the host has gone, or asked us to stop
        raw = raw.strip()
        trace("->", raw)
        if not raw:
            continue
        try:
            msg = json.loads(raw)
        except ValueError as e:
            log("error", f"unparsable line from the host ({e})")
            continue
        handle(msg)


if __name__ == "__main__":
    trace("--", f"started, data {DATA}")
    try:
        main()
        trace("--", "stdin closed; exiting")
    except KeyboardInterrupt:
        pass
