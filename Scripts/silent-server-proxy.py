#!/usr/bin/env python3
"""A TCP proxy for the tests that can make a server go silent.

`silent-server-proxy.py HOST PORT` listens on a free port of 127.0.0.1, prints that port, and
relays every connection to HOST:PORT. The line `silence` on its standard input silences it: it
stops relaying in both directions and leaves new connections unanswered (the kernel still accepts
them), as a frozen server or a network that drops everything looks to a client; `speak` lets it
relay again. It answers each command with the same line once it is in force, and ends when its
standard input closes (the test that started it is gone).
"""
import socket
import sys
import threading
import time

silent = threading.Event()
# Held while data is relayed: `silence` takes it, so once it is answered nothing more goes
# through (a relay already past its check would otherwise deliver one more message).
relaying = threading.Lock()


def relay(client, upstream_address):
    import select

    while silent.is_set():
        time.sleep(0.01)
    try:
        upstream = socket.create_connection(upstream_address)
    except OSError:
        client.close()
        return
    peers = {client: upstream, upstream: client}
    try:
        while True:
            if silent.is_set():
                time.sleep(0.01)
                continue
            readable, _, _ = select.select(list(peers), [], [], 0.05)
            with relaying:
                if silent.is_set():
                    continue
                for source in readable:
                    data = source.recv(65536)
                    if not data:
                        return
                    peers[source].sendall(data)
    except OSError:
        pass
    finally:
        client.close()
        upstream.close()


def serve(listener, upstream_address):
    while True:
        client, _ = listener.accept()
        threading.Thread(target=relay, args=(client, upstream_address), daemon=True).start()


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: silent-server-proxy.py HOST PORT")
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    print(listener.getsockname()[1], flush=True)
    threading.Thread(target=serve, args=(listener, (sys.argv[1], int(sys.argv[2]))), daemon=True).start()
    for line in sys.stdin:
        command = line.strip()
        if command == "silence":
            with relaying:
                silent.set()
        elif command == "speak":
            silent.clear()
        print(command, flush=True)


main()
