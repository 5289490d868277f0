"""A TCP proxy on loopback for tests that make a connection fail on purpose: each accepted
connection goes to the subclass's `connection` on a thread of its own, numbered from 1."""
from __future__ import annotations

import socket
import threading


class LoopbackProxy:
    def __init__(self, port: int):
        self.port = port  # where the real server listens
        self.connections = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.listener.close()

    def upstream(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port))

    def connection(self, client: socket.socket, number: int) -> None:
        raise NotImplementedError

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self.connection, args=(client, self.connections),
                             daemon=True).start()


def pump(source: socket.socket, dest: socket.socket, limit: int | None = None) -> None:
    """Relay what `source` sends to `dest` (only its first `limit` bytes when given), then
    close both."""
    sent = 0
    try:
        while data := source.recv(65536):
            if limit is not None and sent + len(data) >= limit:
                dest.sendall(data[:limit - sent])
                break
            dest.sendall(data)
            sent += len(data)
    except OSError:
        pass
    close(source, dest)


def close(*sockets: socket.socket) -> None:
    for sock in sockets:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()
