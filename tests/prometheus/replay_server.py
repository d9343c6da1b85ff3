#!/usr/bin/env python3
"""Serves recorded Prometheus answers (a directory of *.http files, the format FakeTransport reads) over HTTP on
loopback, so the whole `gputwin validate --prometheus` command can be tested without a Prometheus.

Usage: replay_server.py DIR PORT_FILE
Binds 127.0.0.1 on a free port, writes the port to PORT_FILE, serves until killed. A GET is answered by the
recording of its path and exact `query`, else the longest recorded prefix (a query ending in '*'), else '*';
otherwise 404.
"""
import http.server
import pathlib
import sys
import urllib.parse


def load(directory):
    recordings = []
    for path in sorted(pathlib.Path(directory).glob("*.http")):
        request, status, _blank, body = path.read_text().split("\n", 3)
        _get, route, query = request.split(" ", 2)
        code, _, content_type = status.partition(" ")
        recordings.append((route, query.strip(), int(code), content_type.strip(), body.encode()))
    return recordings


def answer(recordings, route, query):
    best, best_length = None, -1
    for recorded_route, recorded_query, *response in recordings:
        if recorded_route != route:
            continue
        if recorded_query == query:
            return response
        if recorded_query.endswith("*") and query.startswith(recorded_query[:-1]) and len(recorded_query) > best_length:
            best, best_length = response, len(recorded_query)
    return best


def main():
    recordings = load(sys.argv[1])

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(url.query).get("query", [""])[0]
            found = answer(recordings, url.path, query)
            code, content_type, body = found if found else (404, "text/plain", b"404 page not found\n")
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    pathlib.Path(sys.argv[2]).write_text(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
