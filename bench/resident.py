#!/usr/bin/env python3
"""A measuring probe, not part of git-hn: what a resident process would save a ``git hn sync``.

Issue 11's last target (``sync`` of 100 selected streams <= 1.5x a plain fetch of those refs
plus their signatures) was thought reachable by a resident process that keeps git-hn's modules
imported, since a process started per command pays the interpreter and the imports. This probe
measures that design at its best, so that the decision rests on a figure: a fork server
(``serve``) that imports everything a sync loads, then forks one child per request; the child
takes the client's standard streams (passed over the socket), working directory, environment and
arguments, and runs git-hn's ``main`` exactly as the executable would. The client (this file run
with ``python -I -S``: no site, no imports but ``_socket`` and ``marshal``) is as thin as a
client can be in Python. No repository state is kept between requests, so what it saves is the
interpreter's start-up and the imports on the command's critical path, nothing else.

It has none of what a product would need (an install-specific socket name, code-change
detection, signal forwarding, a terminal for Git's and ssh's prompts, an idle exit): the figure
is a lower bound of a resident design's cost. ``bench_org.py`` starts it for ``sync-100``.

Usage: python resident.py --serve SOCKET       (the server; stops when SOCKET is removed)
       python -I -S resident.py SOCKET ARGS...  (a client: ``git-hn ARGS`` through the server)
"""

import os
import sys


def client(path: str, args: list) -> int:
    import _socket
    import marshal

    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    s.connect(path)
    mask = os.umask(0o077)
    os.umask(mask)
    msg = marshal.dumps((["git-hn", *args], os.getcwd(), dict(os.environ), mask))
    fds = (0).to_bytes(4, sys.byteorder) + (1).to_bytes(4, sys.byteorder) + (2).to_bytes(4, sys.byteorder)
    s.sendmsg([msg], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    code = b""
    while True:  # the child's exit status, or nothing if it died
        chunk = s.recv(1)
        if not chunk:
            break
        code = chunk
    return code[0] if code else 1


def serve(path: str) -> None:
    import array
    import io
    import marshal
    import signal
    import socket

    from importlib import import_module

    import git_hn.cli.main as main
    from git_hn.service.replication import meanwhile

    # what a sync loads (``meanwhile.prepare_validation`` loads the rest: the Ed25519 backend and the
    # modules of measurement, validation and acceptance)
    for name in ("git_hn.cli.commands", "git_hn.service.replication.promote", "git_hn.store.statedb"):
        import_module(name)
    meanwhile.prepare_validation(100)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    server.settimeout(1.0)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    ino = os.stat(path).st_ino
    while True:
        try:
            conn, _ = server.accept()
        except socket.timeout:
            try:
                if os.stat(path).st_ino != ino:
                    return
            except FileNotFoundError:
                return
            continue
        conn.settimeout(None)
        fds = array.array("i")
        msg, anc, _flags, _addr = conn.recvmsg(1 << 20, socket.CMSG_SPACE(3 * fds.itemsize))
        for _level, _kind, data in anc:
            fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
        if os.fork() == 0:
            server.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            argv, cwd, env, umask = marshal.loads(msg)
            for i, fd in enumerate(fds):
                os.dup2(fd, i)
                os.close(fd)
            os.chdir(cwd)
            os.environ.clear()
            os.environ.update(env)
            os.umask(umask)
            sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
            sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
            sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                          errors="backslashreplace", line_buffering=True)
            sys.argv = argv
            code = main.main(argv[1:])
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    code = code or 1
            conn.sendall(bytes([code & 255]))
            os._exit(code)
        for fd in fds:
            os.close(fd)
        conn.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])
    else:
        os._exit(client(sys.argv[1], sys.argv[2:]))
