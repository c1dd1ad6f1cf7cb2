"""generator/jailbridge.py against the installed bindings: every name, function and constant
of `landlock` and `pyseccomp` the bridge uses is still there and means what it did, so an
upgrade that changes one fails here, not in a user's build. What raising a wall does is
tested in subprocesses (tests/test_jail.py): the walls are one-way."""
from __future__ import annotations

import ctypes
import errno
import inspect
import subprocess
import sys

import landlock
import pyseccomp
import pytest
from landlock import plumbing

from generator import jail, jailbridge


def test_the_pinned_versions():
    assert landlock.__version__ == "1.0.0.dev5"
    from importlib.metadata import version
    assert version("pyseccomp") == "0.1.2"


def test_landlock_names_the_bridge_uses():
    for name in ("get_create_ruleset", "get_add_rule", "get_restrict_self", "get_prctl"):
        assert callable(getattr(plumbing, name))
    assert plumbing.CREATE_RULESET_VERSION == 1
    assert plumbing.PR_SET_NO_NEW_PRIVS == 38
    assert (plumbing.SYSCALL_CREATE_RULESET, plumbing.SYSCALL_ADD_RULE, plumbing.SYSCALL_RESTRICT_SELF) == \
        (444, 445, 446)
    assert [f[0] for f in plumbing.RulesetAttr._fields_] == ["handled_access_fs"]
    assert [f[0] for f in plumbing.PathBeneathAttr._fields_] == ["allowed_access", "parent_fd"]


def test_landlock_rights_keep_their_kernel_values():
    bits = {"EXECUTE": 0, "WRITE_FILE": 1, "READ_FILE": 2, "READ_DIR": 3, "REMOVE_DIR": 4, "REMOVE_FILE": 5,
            "MAKE_CHAR": 6, "MAKE_DIR": 7, "MAKE_REG": 8, "MAKE_SOCK": 9, "MAKE_FIFO": 10, "MAKE_BLOCK": 11,
            "MAKE_SYM": 12, "REFER": 13, "TRUNCATE": 14, "IOCTL_DEV": 15}
    assert set(bits) == set(jailbridge.RIGHT_SINCE)
    for name, bit in bits.items():
        assert int(getattr(plumbing.FSAccess, name)) == 1 << bit, name
    for names in (jail.READ, jail.WRITE, jail.SEMAPHORES, jail.DEVICE):
        assert set(names) <= set(bits)


def test_rights_follow_the_abi():
    assert jailbridge.fs_rights(1) == (1 << 13) - 1
    assert jailbridge.fs_rights(2) == (1 << 14) - 1          # REFER
    assert jailbridge.fs_rights(3) == (1 << 15) - 1          # TRUNCATE
    assert jailbridge.fs_rights(4) == jailbridge.fs_rights(3)
    assert jailbridge.fs_rights(5) == (1 << 16) - 1          # IOCTL_DEV
    assert jailbridge.fs_rights(7, ("READ_FILE", "TRUNCATE")) == (1 << 2) | (1 << 14)
    assert jailbridge.fs_rights(2, ("READ_FILE", "TRUNCATE")) == 1 << 2


def test_the_ruleset_struct_grows_with_the_abi():
    """The kernel reads landlock_ruleset_attr by its size: fs (ABI 1-3), + net (4, 5), + scoped (6-)."""
    assert ctypes.sizeof(jailbridge._ruleset_attr(3)) == 8
    net = jailbridge._ruleset_attr(4)
    assert ctypes.sizeof(net) == 16 and net.handled_access_net == 3
    scoped = jailbridge._ruleset_attr(6)
    assert ctypes.sizeof(scoped) == 24 and scoped.scoped == 3
    assert isinstance(scoped, plumbing.RulesetAttr)   # the binding's function takes it


def test_landlock_abi_asks_the_kernel():
    abi = jailbridge.landlock_abi()
    assert isinstance(abi, int) and abi >= 0
    if abi:
        assert abi == plumbing.landlock_abi_version()


def test_pyseccomp_names_the_bridge_uses():
    assert pyseccomp.ALLOW == 0x7FFF0000
    assert pyseccomp.ERRNO(errno.EPERM) == 0x00050000 | errno.EPERM
    assert pyseccomp.Arch.NATIVE == 0
    for name in ("add_rule", "load"):
        assert callable(getattr(pyseccomp.SyscallFilter, name))
    assert list(inspect.signature(pyseccomp.SyscallFilter.add_rule).parameters)[:3] == ["self", "action", "syscall"]
    assert callable(pyseccomp.resolve_syscall) and callable(pyseccomp.get_api)


def test_every_refused_call_is_known_to_libseccomp_here():
    unknown = [n for n in jail.REFUSED if pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, n) < 0]
    assert unknown == []
    assert pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, "no_such_call") < 0


@pytest.mark.skipif(not jailbridge.seccomp_available(), reason="no seccomp here")
def test_a_filter_refuses_with_eperm_in_a_child():
    code = ("import os\nfrom generator import jailbridge\njailbridge.refuse_syscalls(['execve', 'execveat'])\n"
            "try:\n    os.execv('/bin/true', ['true'])\nexcept PermissionError as exc:\n    print(exc.errno)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == str(errno.EPERM), done.stderr
