"""Start and stop a ``flightd serve`` process for the integration tests."""

from __future__ import annotations

import os
import pathlib
import re
import signal
import subprocess
import threading

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
LISTENING_RE = re.compile(r"listening on (\S+)")
STDERR_TAIL_LINES = 80


def flightd_binary() -> pathlib.Path:
    """$FLIGHTD_BIN or <repo>/bin/flightd; fails the test clearly when it is missing."""
    path = pathlib.Path(os.environ.get("FLIGHTD_BIN", REPO_ROOT / "bin" / "flightd"))
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.fail(f"flightd binary not found or not executable at {path}: run `make build` "
                    f"(or `go build -o bin/flightd ./cmd/flightd`) or set FLIGHTD_BIN", pytrace=False)
    return path


class ServerProcess:
    """A running ``flightd serve`` process plus its captured output."""

    def __init__(self, binary: pathlib.Path, root: pathlib.Path, log_dir: pathlib.Path):
        self.stderr_path = log_dir / "flightd.stderr"
        self.stdout_lines: list[str] = []
        self.address: str | None = None
        self._ready = threading.Event()
        self.cmd = [str(binary), "serve", "--root", str(root), "--addr", "127.0.0.1:0"]
        self._stderr = open(self.stderr_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=self._stderr,
                                     stdin=subprocess.DEVNULL, text=True, bufsize=1)
        self._reader = threading.Thread(target=self._drain_stdout, daemon=True)
        self._reader.start()

    def _drain_stdout(self) -> None:
        # Keep reading so a chatty server never blocks on a full pipe.
        for line in self.proc.stdout:
            self.stdout_lines.append(line.rstrip("\n"))
            m = LISTENING_RE.search(line)
            if m and self.address is None:
                self.address = m.group(1)
                self._ready.set()
        self._ready.set()  # EOF: wake the waiter so it can report the exit

    def wait_ready(self, timeout: float) -> str:
        """Block until the server printed its address; fail with diagnostics otherwise."""
        self._ready.wait(timeout)
        if self.address is None:
            rc = self.proc.poll()
            state = f"exited with code {rc}" if rc is not None else f"no 'listening on' line after {timeout}s"
            self.stop()
            pytest.fail(f"flightd did not start ({state}): {' '.join(self.cmd)}\n{self.diagnostics()}",
                        pytrace=False)
        return self.address

    def stop(self, timeout: float = 15.0) -> int | None:
        """SIGTERM the server and wait; SIGKILL after ``timeout``. Returns the exit code (None = killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                self._close()
                return None
        self._reader.join(5)
        self._close()
        return self.proc.returncode

    def _close(self) -> None:
        if not self._stderr.closed:
            self._stderr.close()

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES) -> str:
        """The last ``lines`` lines the server wrote to stderr."""
        try:
            text = self.stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError as err:
            return f"<cannot read {self.stderr_path}: {err}>"
        return "\n".join(text.splitlines()[-lines:])

    def diagnostics(self) -> str:
        """Human-readable server state for failure reports."""
        out = "\n".join(self.stdout_lines[-20:])
        return (f"--- flightd stdout (tail) ---\n{out}\n"
                f"--- flightd stderr (tail, full log {self.stderr_path}) ---\n{self.stderr_tail()}")



def start_flightd(root: pathlib.Path, log_dir: pathlib.Path) -> ServerProcess:
    """Start ``flightd serve --root root`` and wait until it listens (fails the test otherwise)."""
    server = ServerProcess(flightd_binary(), root, log_dir)
    server.wait_ready(float(os.environ.get("FLIGHTD_START_TIMEOUT", "30")))
    return server


def stop_flightd(server: ServerProcess) -> None:
    """SIGTERM the server and fail unless it exits with code 0."""
    rc = server.stop()
    if rc != 0:
        how = "did not stop within 15s of SIGTERM (killed)" if rc is None else f"exited with code {rc}"
        pytest.fail(f"flightd {how} after SIGTERM\n{server.diagnostics()}", pytrace=False)
