"""The C declarations of cairocffi, pangocffi and pangocairocffi, read without parsing.

Those three bindings parse their C declarations (about 4,000 lines, by pycparser) every time
they are imported: 0.45 s of CPU at the start of every pnp process, more than a quarter of
it, and as much again in every test that starts one. cffi can write what it parsed out as a
module of plain tables ("out-of-line ABI mode"), which loads in a millisecond: pnp ships
those modules (`_cairoffi`, `_pixbufffi`, `_pangoffi`), written from the bindings' own
declaration files, and `install()` hands them to the bindings as their `ffi` modules before
they are imported.

In: the installed bindings' declaration files (hashed, never parsed). Out: `sys.modules`
entries for `cairocffi.ffi`, `pangocffi.ffi_build` and `pangocairocffi.ffi_build`, made only
when every declaration file is the one the shipped modules were written from (`DIGESTS`)
and the binding is not imported yet; otherwise the bindings parse as they always did (the
same declarations, only slower). tests/test_bindings.py writes the modules again from the
installed bindings and compares, so an upgrade fails there until `python -m
tests.test_bindings --emit` writes them anew.

Before they load their libraries, cairocffi and pangocffi ask ctypes' `find_library` for
names that no Linux system has (Windows' `cairo-2`, a `pango` without its version), and on
Linux each such miss runs gcc and ld to look further: 0.3 s at every start. `install()`
answers those names (`NEVER_ON_LINUX`) at once; every other name is looked up as before.

What they declare differs from the bindings' own parse in one way: cairocffi adds xcffib's
declarations when xcffib is installed, for X11 window surfaces, which pnp never draws on;
the written module leaves them out. `_pangoffi` is one FFI for pangocffi, pangocairocffi and
the declarations pnp adds (`draw/pangobridge.EXTRA_CDEF`), so a pointer one of them makes is
the same C type to the others.
"""
from __future__ import annotations

import ctypes.util
import hashlib
import importlib
import sys
import types
from importlib.util import find_spec
from pathlib import Path

# each group: the bindings' files it is written from, the modules it stands in for (and their
# attributes: the written module each comes from)
SOURCES = {
    "cairo": ("cairocffi/ffi.py", "cairocffi/constants.py"),
    "pango": ("pangocffi/ffi_build.py", "pangocffi/ffi_instance_builder.py", "pangocffi/c_definitions_glib.txt",
              "pangocffi/c_definitions_pango.txt", "pangocairocffi/ffi_build.py",
              "pangocairocffi/c_definitions_cairo.txt", "pangocairocffi/c_definitions_pangocairo.txt"),
}
STANDS_IN = {
    "cairo": {"cairocffi.ffi": {"ffi": "generator._cairoffi", "ffi_pixbuf": "generator._pixbufffi"}},
    "pango": {"pangocffi.ffi_build": {"ffi": "generator._pangoffi"},
              "pangocairocffi.ffi_build": {"ffi": "generator._pangoffi"}},
}
# names the bindings try before the ones Linux has (cairocffi: Windows' names; pangocffi: unversioned)
NEVER_ON_LINUX = frozenset({"cairo-2", "libcairo-2", "pango", "libpango"})
# sha256 of each group's files, as the shipped modules were written from them
DIGESTS = {
    "cairo": "c24573ecbc47673faf8f73b1e906cb701c58397f2cdb0b245bb7d36e6fde4561",
    "pango": "2813d2ecfee893556658b908f78bfeb6a4ad2e87a0ae59076101e105bf3e4a5d",
}


def digest(group: str) -> str | None:
    """The sha256 of a group's declaration files as installed (None: a binding is missing)."""
    h = hashlib.sha256()
    for name in SOURCES[group]:
        package, _, file = name.partition("/")
        spec = find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            return None
        path = Path(list(spec.submodule_search_locations)[0]) / file
        try:
            h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            return None
    return h.hexdigest()


def _stand_in(name: str, attributes: dict[str, str]) -> types.ModuleType:
    """A module whose attributes are the written FFIs, each loaded when first asked for."""
    module = types.ModuleType(name, f"{name} as written out by cffi (generator/bindings.py)")

    def load(attribute: str):
        if attribute not in attributes:
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        value = importlib.import_module(attributes[attribute]).ffi
        setattr(module, attribute, value)
        return value

    module.__getattr__ = load  # type: ignore[method-assign]
    return module


def _find_library(name: str, _look=ctypes.util.find_library):
    """ctypes' find_library, but a name in NEVER_ON_LINUX is not searched for."""
    return None if name in NEVER_ON_LINUX else _look(name)


def c_library(soname: str, name: str, **options) -> ctypes.CDLL:
    """A C library opened by its soname (`libc.so.6`), else found by `name` ("c"): finding
    it runs ldconfig, gcc and ld, which the jail of an untrusted build refuses.

    :raises OSError: neither loads."""
    try:
        return ctypes.CDLL(soname, **options)
    except OSError:
        found = _find_library(name)
        if found is None:
            raise OSError(f"cannot load the C library {soname}") from None
        return ctypes.CDLL(found, **options)


def install() -> None:
    """Give each binding not imported yet the written declarations, where they are the
    installed ones, and spare it the search for names Linux never has (see the module's
    docstring)."""
    if sys.platform.startswith("linux") and ctypes.util.find_library is not _find_library:
        ctypes.util.find_library = _find_library
    for group, modules in STANDS_IN.items():
        packages = {name.partition(".")[0] for name in modules}
        if any(package in sys.modules for package in packages) or digest(group) != DIGESTS[group]:
            continue
        for name, attributes in modules.items():
            sys.modules[name] = _stand_in(name, attributes)


def written(group: str) -> bool:
    """Whether this process's bindings of a group read the written declarations."""
    module = sys.modules.get(next(iter(STANDS_IN[group])))
    return module is not None and (module.__doc__ or "").endswith("(generator/bindings.py)")
