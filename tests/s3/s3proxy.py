# s3proxy.py: an HTTP/1.1 proxy between an S3 client and the server that
# makes chosen requests fail: dropped connections (reset with no reply),
# replies withheld for a while or for good, 503 SlowDown or 500 replies,
# bodies cut short; and a listening socket that can be closed (refused
# connections) and opened again. Every request is logged (method, path
# and query, status).
#
#   proxy = FaultProxy("127.0.0.1", upstream_port)
#   proxy.start()                       # proxy.port: where clients connect
#   proxy.set_rule(lambda method, target, n: "drop" if n < 2 else "pass")
#   ...
#   proxy.stop()
#
# A rule is called for each request with its method, its target (path and
# query) and how many requests have matched a rule's fault so far; it
# returns "pass", "drop", "hang", "delay:SECONDS", "503", "500",
# "truncate" or "lose-success" (the request reaches the server; a 2xx
# reply is then withheld and the connection reset, as when an answer is
# lost after the server acted; other replies pass, logged with their
# status).
#
# The proxy also counts rounds of requests: a round starts when a request
# arrives while no other is in flight (proxy.rounds(), with the most in
# flight at once, proxy.max_in_flight()). With a delay on every request, a
# client that sends its requests one after another makes a round of each,
# and one that sends a batch together makes one round of the batch.
#
# SPDX-License-Identifier: BSD-3-Clause

import socket
import struct
import threading
import time


class ConnectionClosed(Exception):
    pass


class _Reader:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _more(self):
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionClosed()
        self.buf += data

    def head(self):
        while b"\r\n\r\n" not in self.buf:
            if len(self.buf) > 1 << 20:
                raise ConnectionClosed()
            self._more()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        return head + b"\r\n\r\n"

    def exactly(self, n):
        while len(self.buf) < n:
            self._more()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def line(self):
        while b"\r\n" not in self.buf:
            self._more()
        out, self.buf = self.buf.split(b"\r\n", 1)
        return out + b"\r\n"

    def chunked(self):
        """The raw bytes of a chunked body, trailers included."""
        out = b""
        while True:
            size_line = self.line()
            out += size_line
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                while True:
                    t = self.line()
                    out += t
                    if t == b"\r\n":
                        return out
            out += self.exactly(size + 2)


def _headers(head):
    lines = head.decode("latin-1").split("\r\n")
    first = lines[0]
    h = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            h[k.strip().lower()] = v.strip()
    return first, h


def _body(reader, h, no_body=False):
    if no_body:
        return b""
    if "chunked" in h.get("transfer-encoding", "").lower():
        return reader.chunked()
    n = int(h.get("content-length", "0") or 0)
    return reader.exactly(n) if n else b""


def _reset(sock):
    """Closes with a TCP reset (RST), as a crashed or cut link does."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


class FaultProxy:
    def __init__(self, upstream_host, upstream_port, port=0):
        self.upstream = (upstream_host, upstream_port)
        self.port = port
        self.rule = lambda method, target, n: "pass"
        self.lock = threading.Lock()
        self.log = []          # (method, target, status or action)
        self.faults = 0        # requests a fault was applied to
        self.listener = None
        self.stopping = threading.Event()
        self.release = threading.Event()   # ends every "hang"
        self.threads = []
        self.conns = set()
        self.in_flight = 0
        self.n_rounds = 0
        self.most_in_flight = 0

    # -- control ---------------------------------------------------------
    def start(self):
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", self.port))
        self.port = self.listener.getsockname()[1]
        self.listener.listen(128)
        t = threading.Thread(target=self._accept_loop, args=(self.listener,), daemon=True)
        t.start()
        self.threads.append(t)

    def refuse(self):
        """Closes the listening socket: new connections are refused;
        established ones are reset."""
        lst, self.listener = self.listener, None
        if lst is not None:
            try:
                lst.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            lst.close()
        self.drop_all()

    def accept_again(self):
        self.start()

    def drop_all(self):
        with self.lock:
            conns = list(self.conns)
        for c in conns:
            _reset(c)

    def set_rule(self, rule):
        with self.lock:
            self.rule = rule
            self.faults = 0
            self.release.clear()

    def clear_log(self):
        with self.lock:
            self.log = []
            self.n_rounds = 0
            self.most_in_flight = 0

    def rounds(self):
        with self.lock:
            return self.n_rounds

    def max_in_flight(self):
        with self.lock:
            return self.most_in_flight

    def _begin(self):
        with self.lock:
            if self.in_flight == 0:
                self.n_rounds += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)

    def _end(self):
        with self.lock:
            self.in_flight -= 1

    def requests(self):
        with self.lock:
            return list(self.log)

    def stop(self):
        self.stopping.set()
        self.release.set()
        self.refuse()

    # -- work ------------------------------------------------------------
    def _accept_loop(self, lst):
        while not self.stopping.is_set():
            try:
                client, _ = lst.accept()
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(client,), daemon=True)
            t.start()

    def _decide(self, method, target):
        with self.lock:
            action = self.rule(method, target, self.faults)
            if action != "pass":
                self.faults += 1
            return action

    def _record(self, method, target, what):
        with self.lock:
            self.log.append((method, target, what))

    def _serve(self, client):
        with self.lock:
            self.conns.add(client)
        state = {"upstream": None, "reader": None}
        try:
            creader = _Reader(client)
            while True:
                head = creader.head()
                first, h = _headers(head)
                method, target = first.split(" ")[0], first.split(" ")[1]
                if h.get("expect", "").lower() == "100-continue":
                    # answered here; the server sees the whole request
                    client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                    head = b"\r\n".join(line for line in head.split(b"\r\n")
                                         if not line.lower().startswith(b"expect:"))
                body = _body(creader, h)
                self._begin()
                try:
                    if not self._forward(client, method, target, head, body, h, state):
                        return
                finally:
                    self._end()
        except (ConnectionClosed, OSError, ValueError, IndexError):
            pass
        finally:
            with self.lock:
                self.conns.discard(client)
            try:
                client.close()
            except OSError:
                pass
            if state["upstream"] is not None:
                state["upstream"].close()

    def _forward(self, client, method, target, head, body, h, state):
        """Answers one request; False when the connection is done."""
        action = self._decide(method, target)
        if action == "drop":
            self._record(method, target, "drop")
            _reset(client)
            return False
        if action == "hang":
            self._record(method, target, "hang")
            self.release.wait()
            _reset(client)
            return False
        if action in ("503", "500"):
            code = "SlowDown" if action == "503" else "InternalError"
            text = "Slow Down" if action == "503" else "Internal Server Error"
            xml = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
                   f"<Message>injected</Message></Error>").encode()
            reply = (f"HTTP/1.1 {action} {text}\r\nContent-Type: application/xml\r\n"
                     f"Content-Length: {len(xml)}\r\n\r\n").encode()
            self._record(method, target, action)
            client.sendall(reply + (xml if method != "HEAD" else b""))
            return True
        if action.startswith("delay:"):
            time.sleep(float(action.split(":", 1)[1]))
        if state["upstream"] is None:
            state["upstream"] = socket.create_connection(self.upstream)
            state["reader"] = _Reader(state["upstream"])
        state["upstream"].sendall(head + body)
        rhead = state["reader"].head()
        status_line, rh = _headers(rhead)
        status = int(status_line.split(" ")[1])
        no_body = method == "HEAD" or status in (204, 304) or 100 <= status < 200
        rbody = _body(state["reader"], rh, no_body)
        if action == "lose-success":
            if 200 <= status < 300:
                self._record(method, target, "lose-success")
                _reset(client)
                return False
            action = "pass"
        self._record(method, target, status if action == "pass" or action.startswith("delay")
                     else action)
        if action == "truncate" and len(rbody) > 1:
            client.sendall(rhead + rbody[: len(rbody) // 2])
            _reset(client)
            return False
        client.sendall(rhead + rbody)
        return rh.get("connection", "").lower() != "close"
