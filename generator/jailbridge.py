"""The one place that knows the bindings of the kernel's walls: `landlock` (Landlock, the
file system and, from ABI 4, TCP; from ABI 6, scopes) and `pyseccomp` (seccomp filters over
libseccomp). Everything about their API lives here; `jail.py` says what to allow.

In: paths to allow reading, paths to allow writing, names of system calls to refuse.
Out: what the running kernel offers (`landlock_abi()`, `seccomp_available()`), the
Landlock rights of an ABI (`fs_rights`), and the walls raised on the calling thread (and
every process it forks from then on): `private_tmpfs` (a folder such as /dev/shm replaced,
for this process alone, by an empty one of its own: user and mount namespaces through the C
library's `unshare` and `mount`), `restrict_paths` and `refuse_syscalls`, each one-way.
`tests/test_jailbridge.py` checks every name of the bindings used here, so an upgrade that
changes one fails a test; both are pinned.
"""
from __future__ import annotations

import ctypes
import errno
import os
import stat
from collections.abc import Iterable

try:
    from landlock import plumbing as _landlock
except ImportError:   # not installed: the wall is reported missing (jail.py), never assumed
    _landlock = None
try:
    import pyseccomp as _seccomp
except (ImportError, RuntimeError, OSError):   # pyseccomp raises RuntimeError without libseccomp
    _seccomp = None

# The Landlock ABI each file system right came with (the kernel refuses a right it does not know).
RIGHT_SINCE = {"EXECUTE": 1, "WRITE_FILE": 1, "READ_FILE": 1, "READ_DIR": 1, "REMOVE_DIR": 1, "REMOVE_FILE": 1,
               "MAKE_CHAR": 1, "MAKE_DIR": 1, "MAKE_REG": 1, "MAKE_SOCK": 1, "MAKE_FIFO": 1, "MAKE_BLOCK": 1,
               "MAKE_SYM": 1, "REFER": 2, "TRUNCATE": 3, "IOCTL_DEV": 5}
FILE_RIGHTS = ("EXECUTE", "WRITE_FILE", "READ_FILE", "TRUNCATE", "IOCTL_DEV")   # the rights a file (not a folder) takes
NET_SINCE, SCOPES_SINCE = 4, 6   # TCP bind/connect rules; scopes (abstract unix sockets, signals)
RULE_PATH_BENEATH = 1            # landlock_add_rule's rule type for a folder or file
ACCESS_NET_BIND_TCP, ACCESS_NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1


# unshare(2) and mount(2) flags (linux/sched.h, linux/mount.h)
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18


def private_tmpfs(path: str, options: str) -> str | None:
    """Give this process (and every process it forks from now on) a `path` of its own: an
    empty tmpfs mounted with `options` (e.g. "size=4m,nr_inodes=256,mode=1777") in a mount
    namespace of its own, inside a user namespace mapping only its own user and group, so
    its files keep their owner. Other processes go on seeing the folder as it was.

    Tried first in a forked child, because entering a user namespace cannot be undone: a
    system that lets the namespace be made but not the mount (Ubuntu's AppArmor rule for
    unprivileged user namespaces) would leave this process stranded in it. Call it with one
    thread running.

    :returns: None once done, else why it could not be (this process unchanged)."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:   # the trial: report the failure (or nothing) on the pipe, then end
        os.close(read)
        try:
            why = _enter_private_tmpfs(path, options) or "ok"
        except BaseException as exc:   # anything at all: the parent hears it, the child ends here
            why = f"{type(exc).__name__}: {exc}"
        os.write(write, why.encode()[:512])
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        why = answer.read().decode(errors="replace")
    os.waitpid(child, 0)
    if why != "ok":
        return why or "the trial ended without an answer"
    return _enter_private_tmpfs(path, options)


def _enter_private_tmpfs(path: str, options: str) -> str | None:
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()

    def failed(what: str, result: int) -> str | None:
        return f"{what}: {os.strerror(ctypes.get_errno())}" if result != 0 else None

    why = failed("unshare", libc.unshare(CLONE_NEWUSER | CLONE_NEWNS))
    if why:
        return why
    try:
        for name, line in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(line)
    except OSError as exc:
        return f"the user namespace's maps: {exc.strerror or exc}"
    return (failed("mount --make-rprivate /", libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None))
            or failed(f"mount tmpfs on {path}", libc.mount(b"tmpfs", path.encode(), b"tmpfs",
                                                             MS_NOSUID | MS_NODEV | MS_NOEXEC, options.encode())))


def landlock_abi() -> int:
    """The Landlock ABI of the running kernel: 0 when it has none (or the binding is missing)."""
    if _landlock is None:
        return 0
    try:
        ctypes.set_errno(0)   # the binding reads errno after the call: start it clean
        return int(_landlock.get_create_ruleset()(None, 0, _landlock.CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0


def seccomp_available() -> bool:
    """Whether seccomp filters can be loaded: the binding found libseccomp, and the kernel
    has filters (libseccomp's API level 1 or more is what it detected in the kernel)."""
    if _seccomp is None:
        return False
    try:
        return _seccomp.get_api() >= 1
    except (NotImplementedError, OSError):
        return False


def fs_rights(abi: int, names: Iterable[str] = tuple(RIGHT_SINCE)) -> int:
    """The file system rights among `names` that Landlock ABI `abi` knows, as one mask."""
    mask = 0
    for name in names:
        if RIGHT_SINCE[name] <= abi:
            mask |= int(getattr(_landlock.FSAccess, name))
    return mask


def _ruleset_attr(abi: int):
    """landlock_ruleset_attr as the kernel of `abi` reads it: handled_access_fs, then (ABI 4)
    handled_access_net, then (ABI 6) scoped; the binding's struct has the first field."""
    fields = [("handled_access_net", ctypes.c_uint64)] if abi >= NET_SINCE else []
    fields += [("scoped", ctypes.c_uint64)] if abi >= SCOPES_SINCE else []
    attr_type = type("RulesetAttrOfAbi", (_landlock.RulesetAttr,), {"_fields_": fields})
    attr = attr_type(fs_rights(abi))
    if abi >= NET_SINCE:
        attr.handled_access_net = ACCESS_NET_BIND_TCP | ACCESS_NET_CONNECT_TCP   # no TCP port allowed
    if abi >= SCOPES_SINCE:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
    return attr


def _call(function, *args) -> int:
    ctypes.set_errno(0)   # the binding's errcheck reads errno even when the call succeeded
    return int(function(*args))


def restrict_paths(abi: int, rules: Iterable[tuple[tuple[str, ...], str]]) -> None:
    """Landlock on this thread and its future children: every right of `abi` is handled,
    and only `rules` are allowed, each (names of rights, e.g. ("READ_FILE", "READ_DIR"), a
    path: the file, or the folder and everything beneath it); rights `abi` lacks are left
    out. With ABI 4 no TCP bind or connect; with ABI 6 no signal to, nor abstract unix
    socket of, a process outside.

    :raises OSError: the kernel refused (the message names the call).
    """
    attr = _ruleset_attr(abi)
    ruleset = _call(_landlock.get_create_ruleset(), ctypes.byref(attr), ctypes.sizeof(attr), 0)
    try:
        for names, path in rules:
            _allow(ruleset, path, abi, names)
        _call(_landlock.get_prctl(), _landlock.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        _call(_landlock.get_restrict_self(), ruleset, 0)
    finally:
        os.close(ruleset)


def _allow(ruleset: int, path: str, abi: int, names: tuple[str, ...]) -> None:
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):   # a file takes file rights only
            names = tuple(n for n in names if n in FILE_RIGHTS)
        rule = _landlock.PathBeneathAttr(fs_rights(abi, names), fd)
        _call(_landlock.get_add_rule(), ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0)
    finally:
        os.close(fd)


def refuse_syscalls(names: Iterable[str]) -> list[str]:
    """A seccomp filter on this thread and its future children: every call allowed but
    those named, which fail with EPERM (calls of other architectures are killed:
    libseccomp's default for a foreign ABI). Returns the names this architecture lacks.

    :raises OSError: libseccomp or the kernel refused.
    """
    refused = _seccomp.SyscallFilter(_seccomp.ALLOW)
    unknown = []
    for name in names:
        number = _seccomp.resolve_syscall(_seccomp.Arch.NATIVE, name)
        if number < 0:
            unknown.append(name)
            continue
        refused.add_rule(_seccomp.ERRNO(errno.EPERM), number)
    refused.load()
    return unknown
