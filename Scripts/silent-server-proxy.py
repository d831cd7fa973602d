#!/usr/bin/env python3
"""A TCP proxy for the tests that can make a server go silent, or cut it off.

`silent-server-proxy.py HOST PORT` listens on a free port of 127.0.0.1, prints that port, and
relays every connection to HOST:PORT. The line `silence` on its standard input silences it: it
stops relaying in both directions and leaves new connections unanswered (the kernel still accepts
them), as a frozen server or a network that drops everything looks to a client; `speak` lets it
relay again. The line `cut` closes every relayed connection at once, both sides (the client's
with a reset), and refuses each new one as soon as it arrives (accepted, then reset), as a
server that restarted or a network that went away looks to a client; `heal` relays new
connections again. It answers each command with the same line once it is in force, and ends when
its standard input closes (the test that started it is gone).
"""
import socket
import struct
import sys
import threading
import time

silent = threading.Event()
# Held while data is relayed: `silence` takes it, so once it is answered nothing more goes
# through (a relay already past its check would otherwise deliver one more message).
relaying = threading.Lock()
# Guards `cut`, `generation` and `connections`. A relay belongs to the generation it was
# accepted in; `cut` starts a new one, so a relay of an older generation ends, whatever it waits on.
state = threading.Lock()
cut = False
generation = 0
# Every connection being relayed, client socket to upstream socket (None while still connecting).
connections = {}


def reset(sock):
    """Makes the socket's close send a reset, not a goodbye, and wakes whoever waits on it."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def stale(born):
    with state:
        return generation != born


def relay(client, upstream_address, born):
    import select

    upstream = None
    try:
        while silent.is_set() and not stale(born):
            time.sleep(0.01)
        try:
            # Bounded: a relay never outlives a test by more than this, even to an unreachable server.
            upstream = socket.create_connection(upstream_address, timeout=10)
            upstream.settimeout(None)
        except OSError:
            return
        with state:
            if generation != born:
                return
            connections[client] = upstream
        peers = {client: upstream, upstream: client}
        while not stale(born):
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
        with state:
            connections.pop(client, None)
            if generation != born:
                reset(client)  # cut: the client sees a reset, also when the relay was still connecting
        client.close()
        if upstream is not None:
            upstream.close()


def serve(listener, upstream_address):
    while True:
        client, _ = listener.accept()
        with state:
            if cut:
                # A close with a zero linger and nothing shut down first: the client's first read is a reset.
                try:
                    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                finally:
                    client.close()
                continue
            born = generation
            connections[client] = None
        threading.Thread(target=relay, args=(client, upstream_address, born), daemon=True).start()


def cut_all():
    """Closes every relayed connection and refuses new ones; returns once every relay has ended."""
    global cut, generation
    with state:
        cut = True
        generation += 1
        victims = list(connections.items())
    for client, upstream in victims:
        reset(client)
        if upstream is not None:
            try:
                upstream.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        # Closed here too, not only by its relay once it notices: nothing more can pass either way
        # from the moment the cut is answered (the relay's own close then finds it closed).
        try:
            client.close()
        except OSError:
            pass
    # Each relay ends within one wait of its loop (50 ms); bounded, so a stuck one cannot hold the answer.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with state:
            if not any(client in connections for client, _ in victims):
                return
        time.sleep(0.01)


def heal():
    global cut
    with state:
        cut = False


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
        elif command == "cut":
            cut_all()
        elif command == "heal":
            heal()
        print(command, flush=True)


main()
