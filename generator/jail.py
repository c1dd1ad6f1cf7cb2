"""The jail of an untrusted build: what a process that reads a stranger's project may still
do, once it has confined itself (a one-way step: nothing undoes it).

In: the project folder, the folder the build writes (`output/`, or `--output`), the build's
`Limits` (memory, total time) and the mode (`off`, `on`, `strict`: `--untrusted`). Out: the
process bounded by the kernel, with its drawing workers (forked later, they inherit it):

- rlimits, in every mode the address space (`--memory-limit`); untrusted also CPU time
  (the wall-clock budget plus a margin, the kernel's backstop), file size, open files, no
  core dumps;
- a /dev/shm of its own (untrusted): the drawing workers' queues need semaphores there, so
  the process first replaces it, for itself alone, by an empty small tmpfs (a user and a
  mount namespace: `jailbridge.private_tmpfs`); where the system refuses that, the build
  draws in this one process and /dev/shm stays out of reach (said in one line);
- Landlock (untrusted): read only the project, Python and its packages, pnp itself, the
  system libraries, fonts and fontconfig and the few files named in `READ_ONLY`; write
  only the output folder (and the private /dev/shm's semaphore files); execute nothing; no
  TCP (ABI 4), no signal or abstract socket outside (ABI 6);
- seccomp (untrusted): `REFUSED` system calls fail with EPERM (no program run, no socket,
  no debugging another process, no mount, no kernel module...).

A wall the kernel lacks is named in one line (`confine`'s answer) and the rest go on;
mode `strict` refuses instead (`Unconfined`, exit 2). `jailbridge.py` holds the bindings.
"""
from __future__ import annotations

import math
import os
import resource
import signal
import sys
from pathlib import Path
from typing import NamedTuple

from .errors import PnpError
from .guard import Limits

MODES = ("off", "on", "strict")
FILE_BYTES = 4 * 2**30   # the largest file an untrusted build may write (RLIMIT_FSIZE)
OPEN_FILES = 4096        # files open at once (RLIMIT_NOFILE), or fewer when already lower
CPU_MARGIN = 60          # CPU seconds past --total-time-limit before the kernel ends the process

# System calls an untrusted build never makes: each fails with EPERM.
REFUSED = (
    "execve", "execveat",                                   # run a program
    "socket", "connect", "bind", "listen", "accept", "accept4",   # the network (socketpair, pipes stay)
    "ptrace", "process_vm_readv", "process_vm_writev",      # another process's memory
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",   # the view of the system
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",   # ... by the new
    "mount_setattr",                                        # mount calls (root of its own user namespace)
    "shmget", "shmat", "shmctl", "shmdt", "semget", "semop", "semtimedop", "semctl",   # System V IPC: other
    "msgget", "msgsnd", "msgrcv", "msgctl",                 # programs' shared memory, no file Landlock sees
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",   # POSIX queues
    "bpf", "perf_event_open", "userfaultfd",                # kernel attack surface
    "keyctl", "add_key", "request_key",                     # the kernel's keyrings
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
    "swapon", "swapoff",
    "io_uring_setup", "io_uring_enter", "io_uring_register",   # system calls seccomp cannot see
)

READ = ("READ_FILE", "READ_DIR")
WRITE = ("READ_FILE", "READ_DIR", "WRITE_FILE", "TRUNCATE", "MAKE_DIR", "MAKE_REG", "REMOVE_DIR", "REMOVE_FILE",
         "REFER")
SEMAPHORES = ("READ_FILE", "WRITE_FILE", "MAKE_REG", "REMOVE_FILE")   # files only, no listing
DEVICE = ("READ_FILE", "WRITE_FILE")

# Read-only, besides the project, Python (prefixes and sys.path) and pnp's own package.
READ_ONLY = (
    "/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/local/lib",   # system libraries (cairo, Pango, libc, locales)
    "/etc/ld.so.cache",       # the dynamic loader, for a library opened after the jail
    "/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/fontconfig", "/etc/fonts",
    "/var/cache/fontconfig",  # fontconfig: its configuration, the system's fonts and their cache
    "/etc/localtime", "/usr/share/zoneinfo",   # the C library's time zone (time.localtime, logging)
    "/usr/share/locale",      # gettext's locale.alias and catalogues (click, argparse)
    "/usr/share/hunspell",    # the spelling dictionaries of the word checks (rules/hunspellbridge.py)
)
DEVICES = ("/dev/null",)      # read and written by libraries that silence output
SHARED_MEMORY = "/dev/shm"    # multiprocessing's semaphores (the drawing workers' queues)
PRIVATE_SHM = "size=4m,nr_inodes=256,mode=1777"   # the private /dev/shm: a few hundred semaphores, no more
TRUNCATE_SINCE = 3            # Landlock ABI that controls truncate(2): without it any file may be emptied


class Unconfined(PnpError):
    """An untrusted build that cannot be confined as asked (`--untrusted=strict` on a kernel
    that lacks a wall, an output folder that is a link)."""

    exit_code = 2


class Confinement(NamedTuple):
    """What `confine` did: `line`, the walls this system lacks in one line (or None);
    `processes`, whether the build may fork drawing workers (False where /dev/shm could not
    be made private: the workers' semaphores would need the system's)."""

    line: str | None = None
    processes: bool = True


def confine(project_root: Path, output_dir: Path, limits: Limits, mode: str = "off") -> Confinement:
    """Bound this process (and the processes it forks from now on) for a build of
    `project_root` writing into `output_dir`. Call it on the main thread, before any other
    thread starts and before anything of the project is read.

    :returns: the `Confinement`: one line naming the walls this system lacks (untrusted
        mode) or what the build gives up (drawing on one core), and whether it may fork.
    :raises Unconfined: `strict` and a wall is missing; the output folder is a link.
    """
    if mode not in MODES:
        raise ValueError(f"jail mode {mode!r} is not one of {MODES}")
    threads = _threads() if mode != "off" else 1
    if threads > 1:   # (before any limit is lowered: a refusal leaves the process as it was)
        raise Unconfined(f"pnp cannot confine itself: {threads} threads are running (the jail holds one thread "
                         "and the processes it forks); this is a bug in pnp")
    bound_memory(limits, hard=mode != "off")
    if mode == "off":
        return Confinement()
    output = _real_output(output_dir)
    from . import jailbridge  # only an untrusted build loads the bindings

    abi, seccomp = jailbridge.landlock_abi(), jailbridge.seccomp_available()
    missing = missing_walls(abi, seccomp)
    if mode == "strict" and missing:
        raise Unconfined(f"--untrusted=strict: this system lacks {', '.join(missing)}; pnp refuses to build "
                         "without every wall (--untrusted goes on with the others)")
    shm_refused = _private_shared_memory()
    _limit(resource.RLIMIT_CPU, math.ceil(limits.total_seconds) + CPU_MARGIN, hard=True)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a file too large is an error (EFBIG), not a kill
    _limit(resource.RLIMIT_FSIZE, FILE_BYTES, hard=True)
    _limit(resource.RLIMIT_NOFILE, OPEN_FILES, hard=True)
    _limit(resource.RLIMIT_CORE, 0, hard=True)
    if abi:
        jailbridge.restrict_paths(abi, rules(project_root, output, semaphores=not shm_refused))
    if seccomp:
        jailbridge.refuse_syscalls(REFUSED)
    lines = []
    if missing:
        lines.append(f"pnp: --untrusted: this system lacks {', '.join(missing)}; going on with the other walls "
                     "(--untrusted=strict refuses instead)")
    if shm_refused:
        lines.append(f"pnp: --untrusted: drawing on one core: /dev/shm could not be made private ({shm_refused}), "
                     "and the drawing workers would need it")
    return Confinement("\n".join(lines) or None, processes=not shm_refused)


def bound_memory(limits: Limits, hard: bool = False) -> None:
    """The address space of this process (and the programs it runs from now on: git before
    the jail) bounded by `--memory-limit`; `hard`: for good (the jail's)."""
    _limit(resource.RLIMIT_AS, limits.memory_bytes, hard=hard)


def _private_shared_memory() -> str | None:
    """/dev/shm replaced, for this process and its children, by an empty tmpfs of its own;
    None once done (or when the system has no /dev/shm), else why not."""
    if not os.path.isdir(SHARED_MEMORY):
        return "there is no /dev/shm"
    from . import jailbridge

    return jailbridge.private_tmpfs(SHARED_MEMORY, PRIVATE_SHM)


def missing_walls(abi: int, seccomp: bool) -> list[str]:
    """The walls of the jail a kernel of Landlock ABI `abi` (0: none) with or without
    seccomp filters lacks, as a person reads them."""
    missing = []
    if not abi:
        missing.append("Landlock (files outside the project stay readable and writable)")
    elif abi < TRUNCATE_SINCE:
        missing.append(f"Landlock's truncate rule (ABI {abi} < 3: files outside may be emptied)")
    if not seccomp:
        missing.append("seccomp (programs can be run, sockets opened)")
    return missing


def rules(project_root: Path, output: Path, semaphores: bool = True) -> list[tuple[tuple[str, ...], str]]:
    """Landlock's rules of an untrusted build: (rights, path) for each path that exists;
    `semaphores`: /dev/shm (made private first) may hold the drawing workers' semaphores."""
    read = [str(project_root), *_python_paths(), str(Path(__file__).resolve().parent), *READ_ONLY,
            *_fontconfig_cache()]
    found: list[tuple[tuple[str, ...], str]] = [(READ, p) for p in dict.fromkeys(read) if os.path.exists(p)]
    found += [(DEVICE, p) for p in DEVICES if os.path.exists(p)]
    if semaphores and os.path.isdir(SHARED_MEMORY):
        found.append((SEMAPHORES, SHARED_MEMORY))
    return [*found, (WRITE, str(output))]


def _python_paths() -> list[str]:
    """Python itself, its standard library and every package folder it imports from; not the
    current folder (`python -m` puts it on sys.path: it may be the user's home)."""
    prefixes = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    here = os.path.realpath(os.getcwd())
    paths = [os.path.realpath(p) for p in [*prefixes, *sys.path] if p]
    return [p for p in paths if p != here]


def _fontconfig_cache() -> list[str]:
    """fontconfig's cache in the user's home (read only: pnp builds its own in output/.cache),
    and the configuration the environment names (a pnp that started this one made it:
    draw/fonts.activate), with the folder of its cache."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    named = os.environ.get("FONTCONFIG_FILE")
    return [os.path.join(base, "fontconfig"), *([os.path.dirname(os.path.abspath(named))] if named else [])]


def _real_output(output_dir: Path) -> Path:
    """The output folder, made when missing; a link there (planted by the project) is refused."""
    output = Path(os.path.abspath(output_dir))
    if output.is_symlink():
        raise Unconfined(f"{output} is a link (to {os.readlink(output)}): an untrusted build writes only into "
                         "a real folder; remove the link")
    try:
        output.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Unconfined(f"cannot make the output folder {output}: {exc.strerror or exc}") from None
    if output.is_symlink() or not output.is_dir():
        raise Unconfined(f"{output} is not a real folder: an untrusted build writes only into one")
    return output


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


def _limit(which: int, value: int, hard: bool) -> None:
    """Lower a resource limit to `value` (never raise it); `hard`: the process cannot raise
    it back either."""
    soft_now, hard_now = resource.getrlimit(which)
    ceiling = hard_now if hard_now != resource.RLIM_INFINITY else value
    soft = min(value, ceiling) if soft_now == resource.RLIM_INFINITY else min(value, soft_now, ceiling)
    resource.setrlimit(which, (soft, soft if hard else hard_now))


def memory_message(limits: Limits, stage: str) -> str:
    """What a MemoryError under the memory rlimit is, in words: which budget, and where."""
    size = limits.memory_bytes
    shown = f"{size / 2**30:g} GiB" if size % 2**30 == 0 else f"{size / 2**20:g} MiB"
    return f"pnp ran out of its memory budget of {shown} (--memory-limit) while {stage}"
