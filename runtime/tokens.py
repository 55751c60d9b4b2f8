"""The bearer token every HTTP request must carry, and where it comes from.

Whoever holds the token can do what this user can do in tmux, so it is treated as a
password: never printed or logged, never read from a URL, compared in constant time.
It comes from ``TMUX_CONTRACT_MCP_TOKEN``, else from the file ``--token-file`` names
(its first line), else the server makes one: 32 random bytes, written to a new file
only this user can read, in the user's runtime directory; the server prints that
file's path (never the token) and removes the file when it stops, since the token
dies with the process. A token file others may read is refused, as ssh refuses such
a private key: a token that leaked that way is no lock.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

TOKEN_ENV = "TMUX_CONTRACT_MCP_TOKEN"
MIN_LENGTH = 16
"""The fewest characters a token may have: a short one could be guessed."""
MADE_BYTES = 32
"""Random bytes in a token the server makes (43 characters of URL-safe base64)."""
DIRECTORY = "tmux-contract-mcp"
"""The folder, inside the user's runtime directory, that holds made tokens."""


class TokenRefused(Exception):
    """A token, or the place for one, the server will not serve with: one line saying why."""


@dataclass(frozen=True)
class Token:
    """The secret, the file it was read from or written to (None: from the variable), and
    whether the server made it (and so removes its file at exit)."""

    secret: bytes
    file: Path | None = None
    made: bool = False

    def admits(self, presented: bytes) -> bool:
        """Whether ``presented`` is the token, in time that does not depend on where it differs."""
        return hmac.compare_digest(presented, self.secret)

    def forget(self) -> None:
        """Remove the file the server made for its token (a token it was given is left alone)."""
        if self.made and self.file is not None:
            with contextlib.suppress(FileNotFoundError):
                self.file.unlink()


def checked(text: str, where: str) -> bytes:
    """``text`` as a token: at least ``MIN_LENGTH`` visible ASCII characters, nothing else
    (what an ``Authorization`` header can carry unchanged)."""
    if len(text) < MIN_LENGTH:
        raise TokenRefused(f"the token in {where} is shorter than {MIN_LENGTH} characters")
    if not all("!" <= char <= "~" for char in text):
        raise TokenRefused(
            f"the token in {where} must be visible ASCII characters only "
            "(no spaces, no control characters)"
        )
    return text.encode("ascii")


def read_token_file(path: Path) -> Token:
    """The first line of ``path``, which only its owner may read or write."""
    try:
        info = path.stat()
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenRefused(f"cannot read the token file {path}: {exc}") from None
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise TokenRefused(
            f"the token file {path} may be read or written by others "
            f"(mode {stat.S_IMODE(info.st_mode):o}); make it 600"
        )
    first = text.splitlines()[0] if text else ""
    return Token(checked(first.strip(), f"the token file {path}"), file=path)


def token_folder(environ: Mapping[str, str]) -> Path:
    """Where made tokens go: a folder in the user's runtime directory (``XDG_RUNTIME_DIR``,
    private to the user by its specification), else one of the user's own under the
    temporary directory."""
    given = environ.get("XDG_RUNTIME_DIR")
    if given and os.path.isabs(given) and os.path.isdir(given):
        return Path(given) / DIRECTORY
    return Path(tempfile.gettempdir()) / f"{DIRECTORY}-{os.getuid()}"


def private_folder(path: Path) -> Path:
    """``path`` as a folder only this user can enter, made if missing; refused when it is
    another user's, or open to others, or not a folder at all (a link included)."""
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700, parents=False)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise TokenRefused(f"{path} is not a folder of this user's own; cannot keep a token there")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise TokenRefused(f"{path} is open to others (mode {stat.S_IMODE(info.st_mode):o})")
    return path


def make_token(environ: Mapping[str, str], port: int) -> Token:
    """A new random token, written to a new file that only this user can read."""
    folder = private_folder(token_folder(environ))
    secret = secrets.token_urlsafe(MADE_BYTES)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    for _ in range(8):
        path = folder / f"http-{port}-{secrets.token_hex(4)}.token"
        try:
            fd = os.open(path, flags, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="ascii") as file:
            file.write(secret + "\n")
        return Token(secret.encode("ascii"), file=path, made=True)
    raise TokenRefused(f"cannot make a new token file in {folder}")


def obtain_token(environ: Mapping[str, str], token_file: str | None, port: int) -> Token:
    """The token to serve with: the variable's, else the file's, else a new one."""
    given = environ.get(TOKEN_ENV) or None  # set but empty counts as not set
    if given is not None:
        if token_file is not None:
            raise TokenRefused(f"both {TOKEN_ENV} and --token-file are set: give one")
        return Token(checked(given, TOKEN_ENV))
    if token_file is not None:
        return read_token_file(Path(token_file))
    return make_token(environ, port)


def bearer(header: bytes) -> bytes | None:
    """The credentials of an ``Authorization: Bearer …`` header (the scheme's case aside)."""
    scheme, _, credentials = header.strip().partition(b" ")
    if scheme.lower() != b"bearer":
        return None
    return credentials.strip()
