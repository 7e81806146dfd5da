#!/usr/bin/env python3
"""A 1+0 Copenhagen game against the AI (the human plays first) in which the human only
looks at the board for 65 s: prints what the server says of the game then.

    python3 bench/lifecycle/look_at_board.py target/release/kingstable [PORT]

Before issue 19 the game was lost on time; now the first turn costs no time and a first
move not made within 30 s aborts the game (docs/API.md, "How games start and end").
Loopback only; the server runs on a fresh SQLite file in a temporary directory.
"""
import json
import subprocess
import sys
import tempfile
import time
import urllib.request

binary = sys.argv[1]
port = sys.argv[2] if len(sys.argv) > 2 else "18431"
base = f"http://127.0.0.1:{port}"
with tempfile.TemporaryDirectory() as d:
    server = subprocess.Popen(
        [binary, "serve", "--addr", f"127.0.0.1:{port}", "--database", f"sqlite:{d}/k.db"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(150):
            try:
                urllib.request.urlopen(base + "/health")
                break
            except OSError:
                time.sleep(0.2)
        body = {"kind": "copenhagen", "opponent": {"ai": 1}, "side": "first", "time_control": "1+0"}
        request = urllib.request.Request(
            base + "/api/games",
            method="POST",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json", "origin": base},
        )
        game = json.load(urllib.request.urlopen(request))["id"]
        time.sleep(65)
        view = json.load(urllib.request.urlopen(f"{base}/api/games/{game}"))
        print(json.dumps({k: view[k] for k in ("status", "result", "clocks")} | {"moves": len(view["moves"])}))
    finally:
        server.kill()
        server.wait()
