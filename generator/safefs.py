"""Writes and deletes that never follow a link, and the key that authenticates pnp's caches.

In: a trusted base folder (the project root, or the folder holding an output folder the
user named) and a path under it; bytes to write. Out: files written, folders made and
things removed strictly inside real folders under the base. Every folder on the way is
opened one component at a time relative to its parent (`O_DIRECTORY | O_NOFOLLOW`) and
made when missing: a link anywhere on the way is an `InputError` naming it, never
followed. A file is written to a temporary name created exclusively in its folder
(`O_EXCL | O_NOFOLLOW`) and renamed over the name (a link there is replaced, not
followed); deletes go by the folder's descriptor and `shutil.rmtree(dir_fd=)`, which
never follows a link either.

`cache_key()`: 32 bytes kept outside the project (`$PNP_CACHE_KEY` in hex, else
`$XDG_CACHE_HOME/pnp/cache-key`, made 0600 on first use) that `tag()` keys BLAKE2b with,
so an entry planted in a checkout's `output/.cache` cannot pass for one pnp wrote.
It is read when a command's `Session` is made, before anything of the project is read.
"""
from __future__ import annotations

import errno
import hashlib
import os
import secrets
import shutil
import stat
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path, PurePath

from .errors import InputError

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
CACHEDIR_TAG = "CACHEDIR.TAG"
_TAG_TEXT = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
             b"# This folder is a cache made by pnp (print-and-play): pnp clean removes it.\n")
LINK_ADVICE = "pnp writes only into real folders inside the project; remove the link"


def _parts(base: Path | int, path: PurePath | str) -> tuple[str, ...]:
    rel = PurePath(path)
    if not isinstance(base, int) and (rel.is_absolute() or rel.is_relative_to(base) and PurePath(base).parts):
        rel = rel.relative_to(base)
    parts = tuple(p for p in rel.parts if p != ".")
    if ".." in parts:
        raise ValueError(f"{path} is not inside {base}")
    return parts


def _link_error(dir_fd: int, name: str, shown: tuple[str, ...], exc: OSError) -> Exception:
    """The error for a component that is not a real folder: a link named, or the OSError."""
    try:
        target = os.readlink(name, dir_fd=dir_fd)
    except OSError:
        exc.filename = "/".join(shown)
        return exc
    return InputError(f"{'/'.join(shown)} is a link (to {target}): {LINK_ADVICE}")


def open_folder(base: Path | int, path: PurePath | str = "", make: bool = True) -> int:
    """A descriptor of the real folder `base/path` (made, with its parents, when missing and
    `make`); the caller closes it. `path` may be relative to `base` or start with it;
    `base` may be a folder's descriptor.

    :raises InputError: a component of `path` is a link (named in the message).
    :raises OSError: it cannot be opened or made (FileNotFoundError when missing, `make` False).
    """
    parts = _parts(base, path)
    # the base only leads to what is below it: opened as a path (O_PATH), it needs no right to
    # list it (an untrusted build's jail grants the output folder, not the one holding it)
    flags = (getattr(os, "O_PATH", os.O_RDONLY) if parts else os.O_RDONLY) | os.O_DIRECTORY \
        | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(".", flags, dir_fd=base) if isinstance(base, int) else os.open(base, flags)
    for n, name in enumerate(parts):
        fd = _step(fd, name, parts[:n + 1], make)[0]   # closes the parent, whatever happens
    return fd


def _step(fd: int, name: str, shown: tuple[str, ...], make: bool) -> tuple[int, bool]:
    """Open the folder `name` in `fd` (closing `fd`); (its descriptor, whether it was made)."""
    made = False
    try:
        try:
            found = os.open(name, _FOLDER, dir_fd=fd)
        except FileNotFoundError:
            if not make:
                raise
            try:
                os.mkdir(name, 0o777, dir_fd=fd)
                made = True
            except FileExistsError:
                pass
            found = os.open(name, _FOLDER, dir_fd=fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise _link_error(fd, name, shown, exc) from None
        exc.filename = "/".join(shown)
        raise
    finally:
        os.close(fd)
    return found, made


@contextmanager
def folder(base: Path | int, path: PurePath | str = "", make: bool = True) -> Iterator[int]:
    """`with folder(root, "output/x") as fd:` the descriptor of `open_folder`, closed after."""
    fd = open_folder(base, path, make)
    try:
        yield fd
    finally:
        os.close(fd)


def real_folder(base: Path, path: PurePath | str) -> Path:
    """`base/path`, checked (and made) a real folder all the way: for a folder handed to
    code that writes by path inside it (fontconfig's cache, a spool of temporary files)."""
    os.close(open_folder(base, path))
    return Path(base).joinpath(*_parts(base, path))


def cache_folder(base: Path, path: PurePath | str) -> int:
    """A descriptor of a cache folder `base/path`; when pnp makes it, it writes its
    CACHEDIR.TAG there: `is_pnp_cache` then knows pnp made it (caches prune only those)."""
    parts = _parts(base, path)
    parent = open_folder(base, PurePath(*parts[:-1]) if len(parts) > 1 else "")
    fd, made = _step(parent, parts[-1], parts, True)
    if made:
        try:
            write_in(fd, CACHEDIR_TAG, _TAG_TEXT)
        except BaseException:
            os.close(fd)
            raise
    return fd


def is_pnp_cache(fd: int) -> bool:
    """True when the folder holds the CACHEDIR.TAG pnp writes (a regular file, not a link)."""
    try:
        tag = os.open(CACHEDIR_TAG, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(tag).st_mode) and os.read(tag, len(_TAG_TEXT) + 1) == _TAG_TEXT
    finally:
        os.close(tag)


def new_file(dir_fd: int, name: str, mode: int = 0o644) -> int:
    """A descriptor of a new file `name` in the folder `dir_fd`, created exclusively (never
    an existing file, never through a link)."""
    return os.open(name, _NEW, mode, dir_fd=dir_fd)


def temp_name(name: str) -> str:
    """A name no one can guess for the temporary of `name` (ending in `.<digits>.tmp`)."""
    return f".{name}.{os.getpid()}.{secrets.randbits(40)}.tmp"


def write_in(dir_fd: int, name: str, data: bytes | Iterable[bytes], sync: bool = False, mode: int = 0o644) -> None:
    """Write `name` in the folder `dir_fd` whole or not at all: an exclusive temporary
    beside it, written (and synced, with `sync`), renamed over `name` (a link there is
    replaced, not followed). A `mode` other than 0o644 is given exactly (the umask does not
    apply: a file rewritten keeps its permissions)."""
    tmp = temp_name(name)
    fh = open(new_file(dir_fd, tmp, mode), "wb")
    try:
        with fh:
            if mode != 0o644:
                os.fchmod(fh.fileno(), mode)
            for piece in [data] if isinstance(data, (bytes, bytearray, memoryview)) else data:
                fh.write(piece)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise


def write_file(base: Path, path: PurePath | str, data: bytes | Iterable[bytes], sync: bool = False,
               mode: int = 0o644) -> None:
    """Write the file `base/path` atomically (`write_in`), its folders real and made as needed.

    :raises InputError: a folder on the way is a link. :raises OSError: it cannot be written
        (`filename` set to the file).
    """
    parts = _parts(base, path)
    with folder(base, PurePath(*parts[:-1]) if len(parts) > 1 else "") as fd:
        try:
            write_in(fd, parts[-1], data, sync, mode)
        except OSError as exc:
            exc.filename = str(Path(base).joinpath(*parts))
            raise


def remove_in(dir_fd: int, name: str) -> bool:
    """Remove `name` from the folder `dir_fd`: a file, a link (itself, never what it names)
    or a folder with all it holds (links inside removed, not followed). False if absent."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)
    else:
        os.unlink(name, dir_fd=dir_fd)
    return True


def remove(base: Path, path: PurePath | str) -> bool:
    """Remove `base/path` (`remove_in`), its folders walked without following a link;
    False when it is absent."""
    parts = _parts(base, path)
    try:
        fd = open_folder(base, PurePath(*parts[:-1]) if len(parts) > 1 else "", make=False)
    except FileNotFoundError:
        return False
    try:
        return remove_in(fd, parts[-1])
    finally:
        os.close(fd)


def read_in(dir_fd: int, name: str, touch: bool = False) -> bytes:
    """The bytes of the regular file `name` in the folder `dir_fd`, opened without following
    a link (FileNotFoundError for a link or anything but a file: a FIFO never blocks it); `touch`: its mtime set to
    now (a cache's recently used entry)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileNotFoundError(errno.ENOENT, "a link, not a file", name) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FileNotFoundError(errno.ENOENT, "not a file", name)
        with open(fd, "rb", closefd=False) as fh:
            data = fh.read()
        if touch:
            try:
                os.utime(fd)
            except OSError:
                pass
        return data
    finally:
        os.close(fd)


def size_in(dir_fd: int, name: str) -> int:
    """Bytes of the regular files under the folder `name` of `dir_fd` (links not followed)."""
    total = 0
    for _, _, files, fd in os.fwalk(name, dir_fd=dir_fd, follow_symlinks=False):
        for file in files:
            try:
                st = os.stat(file, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            total += st.st_size if stat.S_ISREG(st.st_mode) else 0
    return total


def entries(dir_fd: int) -> Iterator[tuple[str, os.stat_result]]:
    """(name, lstat) of what the folder `dir_fd` holds (links not followed)."""
    for name in os.listdir(dir_fd):
        try:
            yield name, os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            continue


# ---- the key of the caches ----------------------------------------------------------------

KEY_BYTES = 32


def key_path() -> Path:
    """Where the cache key is kept: $XDG_CACHE_HOME/pnp/cache-key (~/.cache/pnp/cache-key)."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(home) / "pnp" / "cache-key"


@lru_cache(maxsize=1)
def cache_key() -> bytes:
    """The key pnp's disk caches are authenticated with (read once per process, at start-up).
    When it can be neither read nor made, one line on stderr says so and a key of this
    process alone is used (the caches then help only within the process)."""
    given = os.environ.get("PNP_CACHE_KEY")
    try:
        if given is not None:
            key = bytes.fromhex(given.strip())
            if len(key) < 16:
                raise ValueError("PNP_CACHE_KEY must be at least 16 bytes in hex (32 hex digits)")
            return key
        return _key_file(key_path())
    except (OSError, ValueError) as exc:
        where = "PNP_CACHE_KEY" if given is not None else str(key_path())
        print(f"pnp: the cache key ({where}) cannot be used ({getattr(exc, 'strerror', None) or exc}): "
              "the caches under output/.cache serve this run only", file=sys.stderr)
        return secrets.token_bytes(KEY_BYTES)


def _key_file(path: Path) -> bytes:
    """The key in `path`, made (exclusively, 0600, never through a link) when absent."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with folder(path.parent, "", make=False) as fd:
        try:
            return _read_key(fd, path.name)
        except FileNotFoundError:
            pass
        tmp = temp_name(path.name)
        out = new_file(fd, tmp, 0o600)
        try:
            os.write(out, secrets.token_bytes(KEY_BYTES))
            os.fsync(out)
            os.close(out)
            out = -1
            try:
                os.link(tmp, path.name, src_dir_fd=fd, dst_dir_fd=fd, follow_symlinks=False)
            except FileExistsError:
                pass   # another pnp made it meanwhile: that one is the key
        finally:
            if out != -1:
                os.close(out)
            os.unlink(tmp, dir_fd=fd)
        return _read_key(fd, path.name)


def _read_key(dir_fd: int, name: str) -> bytes:
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{name} is not a file")
        key = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(key) != KEY_BYTES:
        raise ValueError(f"it holds {len(key)} bytes, not {KEY_BYTES}")
    return key


def tag(name: str, *content: bytes) -> bytes:
    """A 32-byte BLAKE2b of a cache entry's name and content, keyed with `cache_key()`."""
    h = tagger(name)
    for piece in content:
        h.update(piece)
    return h.digest()


def tagger(name: str):
    """`tag`'s hash before any content: `update` it piece by piece, then `digest()`."""
    return hashlib.blake2b(name.encode() + b"\0", key=cache_key()[:64], digest_size=32)
