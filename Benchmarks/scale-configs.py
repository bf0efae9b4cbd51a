#!/usr/bin/env python3
"""Writes the pinned configs of widgethost-bench figure 14 (issue 30, "cost at scale"):
scale-48.json, and scale-12.json and scale-24.json: its first page, and its first two.

48 panels over 4 pages of 12 (the first shown; each page has the same mix): 12 http-json every 5 s against the bench's
loopback server, 12 seconds clocks, 8 command every 10 s, 8 system every 2 s, 4 extensions
(two in Python, two in sh, one process each), and 4 static texts (panels that exist and never
change). "@RUNS@" is replaced by the bench with a file each command run appends a line to.
Run it from the repository root after changing the mix: python3 Benchmarks/scale-configs.py
"""
import json

ZONES = ["UTC", "Asia/Tokyo", "Europe/Berlin", "America/New_York"]
EXTENSIONS = ["scale-py-1/counter", "scale-sh-1/counter", "scale-py-2/counter", "scale-sh-2/counter"]


def page(p):
    """Page p (0-based): 3 http-json, 3 clocks, 2 commands, 2 systems, an extension, a text."""
    panels = []
    for i in range(3):
        n = p * 3 + i
        panels.append({"kind": "http-json", "family": "small", "title": f"Feed {n + 1}",
                       "options": {"url": f"http://127.0.0.1:48787/leaderboard?feed={n + 1}",
                                   "refreshSeconds": 5,
                                   "fields": [{"label": "Leader", "pointer": "/heroes/0/name"},
                                              {"label": "Exp", "pointer": "/heroes/0/exp", "format": "number"}]}})
        panels.append({"kind": "clock", "family": "small", "title": f"Clock {n + 1}",
                       "options": {"timeZone": ZONES[n % 4], "seconds": True}})
    for i in range(2):
        n = p * 2 + i
        panels.append({"kind": "command", "family": "small", "title": f"Run {n + 1}",
                       "options": {"argv": ["/bin/sh", "-c", "echo run >> @RUNS@; echo run " + str(n + 1)],
                                   "intervalSeconds": 10}})
        panels.append({"kind": "system", "family": "small", "title": f"System {n + 1}",
                       "options": {"intervalSeconds": 2}})
    panels.append({"kind": EXTENSIONS[p], "family": "small", "title": f"Extension {p + 1}"})
    panels.append({"kind": "text", "family": "small", "title": f"Note {p + 1}",
                   "options": {"text": f"page {p + 1}: this text never changes"}})
    return {"title": f"Page {p + 1}", "panels": panels}


for scale in (12, 24, 48):
    config = {"theme": "default", "minimumReloadSeconds": 1, "dailyReloadBudget": 100000,
              "pages": [page(p) for p in range(scale // 12)]}
    with open(f"Benchmarks/scale-{scale}.json", "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
