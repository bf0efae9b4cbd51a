#!/usr/bin/env python3
"""rangers: a WidgetHost extension in Python, standard library only (docs/extensions.md).

It shows a summary of the Emoji Rangers board. It never fetches by itself: it asks the host
to `download` the board on a background session, so the transfer survives this process
(idle exit, a crash) and even the host. When the download is over the host sends
`sessionEvents` (launching this process first if it is not running); the board is saved in
WIDGETHOST_EXTENSION_DATA and `reloadTimelines` asks for a new timeline, which shows it.
"""
import json
import os
import sys
import time
from datetime import datetime, timedelta, timezone

DATA = os.environ.get("WIDGETHOST_EXTENSION_DATA", ".")
BOARD = os.path.join(DATA, "board.json")
STATE = os.path.join(DATA, "state.json")
next_id = 1_000_000  # ids of our own requests (download); the host's are its own business


def send(message):
    """One message, one line, flushed at once."""
    sys.stdout.write(json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def log(message, level="info"):
    send({"jsonrpc": "2.0", "method": "log", "params": {"level": level, "message": message}})


def iso(moment):
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def load(path, default):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def load_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(4096)
    except OSError:
        return ""


def save(path, value):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f)
    os.replace(tmp, path)


def fetch(url):
    """Asks the host to download the board; the answer ({task}) arrives later on stdin."""
    global next_id
    next_id += 1
    state = load(STATE, {})
    state.update({"asked": time.time(), "url": url})
    save(STATE, state)
    params = {"identifier": "board", "url": url, "description": "board"}
    # A file `token` beside this script is sent as a bearer token: the host keeps headers in
    # memory only, never in its journal or log (and a config file would show it to anyone).
    token = load_text("token").strip()
    if token:
        params["headers"] = {"Authorization": "Bearer " + token}
    send({"jsonrpc": "2.0", "id": next_id, "method": "download", "params": params})


def text(*spans, align="left"):
    return {"type": "text", "align": align,
            "spans": [{"text": t, "role": r, "bold": b} for (t, r, b) in spans]}


def hero_row(hero, leader):
    """A hero's table row; the leader's name and exp are accentable (the accent tone in the
    host's accented rendering mode, docs/views.md)."""
    row = [{"text": "%s %s" % (hero.get("avatar", ""), hero.get("name", "?"))},
           {"text": str(hero.get("level", "")), "role": "muted"},
           {"text": str(hero.get("exp", "")), "role": "accent"}]
    if leader:
        row[0]["accentable"] = row[2]["accentable"] = True
    return row


def view(board, state, now, rows):
    heroes = board.get("heroes", []) if board else []
    if not heroes:
        message = state.get("error") or "fetching the board…"
        return {"type": "vstack", "children": [
            text(("Rangers", "title", True)), {"type": "spacer"},
            text((message, "muted", False), align="center"), {"type": "spacer"}]}
    fetched = state.get("fetched", now.timestamp())
    hours = max(0.0, (now.timestamp() - fetched) / 3600)
    healths = [min(1.0, float(h.get("health", 0)) + hours * float(h.get("healthRecoveryRatePerHour", 0))) for h in heroes]
    team_health = sum(healths) / len(healths)
    total_exp = sum(int(h.get("exp", 0)) for h in heroes)
    levels = sum(int(h.get("level", 0)) for h in heroes) / len(heroes)
    ranked = sorted(heroes, key=lambda h: -int(h.get("exp", 0)))
    children = [
        text(("%d heroes" % len(heroes), "accent", True), (" · level %.1f · %d exp" % (levels, total_exp), "muted", False)),
        {"type": "bar", "value": round(team_health, 3), "role": "positive" if team_health >= 0.5 else "warning",
         "label": "team health %d%%" % round(team_health * 100)},
    ]
    if rows >= 5:
        children.append({"type": "table",
                         "columns": [{"title": "Hero"}, {"title": "Lvl", "align": "right"}, {"title": "Exp", "align": "right"}],
                         "rows": [hero_row(h, leader=(i == 0)) for i, h in enumerate(ranked[: max(1, rows - 4)])]})
    minutes = int((now.timestamp() - fetched) // 60)
    footer = "updated just now" if minutes < 1 else "updated %d min ago" % minutes
    if state.get("error"):
        footer += " · " + state["error"]
    children.append(text((footer, "muted", False)))
    return {"type": "vstack", "children": children}


def timeline(params):
    options = params.get("options", {})
    url = options.get("url", "http://127.0.0.1:8787/leaderboard")
    refresh = int(options.get("refreshSeconds", 60))
    rows = int(params.get("size", {}).get("rows", 10))
    board, state = load(BOARD, None), load(STATE, {})
    now = datetime.now(timezone.utc)
    due = state.get("fetched", 0) + refresh <= now.timestamp() or state.get("url") != url
    # One download at a time (the host joins a running one for the same URL anyway).
    if (due or params.get("userInitiated")) and state.get("asked", 0) + 30 < now.timestamp() and not params.get("isPreview"):
        fetch(url)
    # One entry a minute (the health recovers, "updated N min ago" moves), then ask again.
    entries = [{"date": iso(now + timedelta(minutes=i)), "view": view(board, state, now + timedelta(minutes=i), rows)}
               for i in range(max(1, min(refresh // 60, 10)))]
    return {"entries": entries, "policy": {"after": iso(now + timedelta(seconds=refresh))}}


def session_events(params):
    state = load(STATE, {})
    for event in params.get("events", []):
        state["asked"] = 0
        if event.get("status") == "downloaded":
            try:
                with open(event["file"], encoding="utf-8") as f:
                    board = json.load(f)
                if not isinstance(board.get("heroes"), list):
                    raise ValueError("no heroes")
                save(BOARD, board)
                state.update({"fetched": time.time(), "error": None})
                log("board saved: %d heroes" % len(board["heroes"]))
            except (OSError, ValueError, KeyError, AttributeError) as error:
                state["error"] = "bad board: %s" % error
        elif event.get("status") == "notModified":
            # The board we have is the server's current one: as fresh as a new download, so
            # the next fetch waits refreshSeconds (and "updated" says just now). Leaving
            # "fetched" old would ask again at once, 304 after 304.
            state.update({"fetched": time.time(), "error": None})
        else:
            state["error"] = event.get("error") or event.get("status")
    save(STATE, state)
    send({"jsonrpc": "2.0", "method": "reloadTimelines", "params": {"kind": "team"}})
    return {}


def main():
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, ident = message.get("method"), message.get("id")
        if method is None:
            if "error" in message:  # the host refused a download of ours
                log("download refused: %s" % message["error"].get("message"), "error")
            continue
        try:
            if method == "initialize":
                result = {"protocol": 1}
            elif method in ("timeline", "snapshot"):
                result = timeline(message.get("params", {}))
                if method == "snapshot":
                    result = {"entry": result["entries"][0]}
            elif method == "sessionEvents":
                result = session_events(message.get("params", {}))
            elif method == "shutdown":
                send({"jsonrpc": "2.0", "id": ident, "result": {}})
                return
            else:
                send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "unknown method"}})
                continue
            send({"jsonrpc": "2.0", "id": ident, "result": result})
        except Exception as error:  # an answer, never a crash, for one bad request
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32000, "message": str(error)}})


if __name__ == "__main__":
    main()
