"""The written C declarations of cairo's and Pango's bindings (generator/bindings.py): what
pnp ships is what cffi writes from the installed bindings' own declaration files today, so
an upgrade of a binding fails here until `python -m tests.test_bindings --emit` writes them
again; and a process that draws text and faces reads them instead of parsing."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator import bindings

PACKAGE = Path(bindings.__file__).parent
WRITTEN = ("_cairoffi.py", "_pixbufffi.py", "_pangoffi.py")

# Run in a fresh interpreter that imports the bindings before pnp, so they parse their
# declarations as they do without pnp; writes the three modules and the digests into argv[1].
EMIT = r"""
import json, sys
from pathlib import Path
sys.modules["xcffib.ffi"] = None   # without X11's declarations, as bindings.py says
import cairocffi, pangocffi, pangocairocffi
from cffi import FFI
from generator import bindings
from generator.draw import pangobridge

out = Path(sys.argv[1])
parsed = sys.modules["cairocffi.ffi"]
parsed.ffi.set_source("generator._cairoffi", None)
parsed.ffi.emit_python_code(str(out / "_cairoffi.py"))
parsed.ffi_pixbuf.set_source("generator._pixbufffi", None)
parsed.ffi_pixbuf.emit_python_code(str(out / "_pixbufffi.py"))
pango = FFI()
site = Path(cairocffi.__file__).parents[1]
for name in bindings.SOURCES["pango"]:
    if name.endswith(".txt"):
        pango.cdef((site / name).read_text(encoding="utf-8"))
pango.cdef(pangobridge.EXTRA_CDEF)
pango.set_source("generator._pangoffi", None)
pango.emit_python_code(str(out / "_pangoffi.py"))
(out / "digests.json").write_text(json.dumps({group: bindings.digest(group) for group in bindings.SOURCES}))
"""


def emit(folder: Path) -> dict[str, str]:
    subprocess.run([sys.executable, "-c", EMIT, str(folder)], check=True, capture_output=True,
                   cwd=PACKAGE.parent)
    return json.loads((folder / "digests.json").read_text())


@pytest.mark.slow   # cffi parses the installed headers: an upgrade's check, in make test
def test_the_shipped_declarations_are_what_cffi_writes_from_the_installed_bindings(tmp_path):
    digests = emit(tmp_path)
    assert digests == bindings.DIGESTS, "a binding's declarations changed: run python -m tests.test_bindings --emit"
    for name in WRITTEN:
        assert (tmp_path / name).read_text() == (PACKAGE / name).read_text(), (
            f"{name} is not what cffi writes today: run python -m tests.test_bindings --emit")


@pytest.mark.slow   # a fresh process
def test_a_process_that_draws_reads_the_written_declarations_and_parses_none():
    """A fresh pnp process that draws a face and lays out text: the bindings' ffi modules are
    the written ones, and neither pycparser nor cffi's parser is ever imported."""
    script = ("import sys\n"
              "from generator import bindings\n"
              "from generator.draw import pangobridge, svgbridge, pangotext\n"
              "import cairocffi, cairosvg, pangocffi, pangocairocffi\n"
              "from generator import _cairoffi, _pangoffi\n"
              "assert cairocffi.ffi is _cairoffi.ffi and pangocffi.ffi is _pangoffi.ffi\n"
              "assert pangocairocffi.ffi is pangobridge.ffi is _pangoffi.ffi\n"
              "assert bindings.written('cairo') and bindings.written('pango')\n"
              "print(sorted(m for m in sys.modules if m.startswith(('pycparser', 'cffi.cparser'))))\n")
    found = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True,
                           cwd=PACKAGE.parent).stdout
    assert found.strip() == "[]", found


@pytest.mark.slow   # a fresh process
def test_loading_cairo_and_pango_runs_no_compiler():
    """ctypes' find_library runs gcc and ld for a name the cache of the system's libraries
    does not have; the names the bindings try first that Linux never has are answered at
    once, so a fresh process loads cairo, Pango and the bridge without starting either."""
    script = ("import subprocess, sys\n"
              "started = []\n"
              "real = subprocess.Popen.__init__\n"
              "def record(self, args, *a, **k):\n"
              "    started.append(args[0] if isinstance(args, (list, tuple)) else args)\n"
              "    real(self, args, *a, **k)\n"
              "subprocess.Popen.__init__ = record\n"
              "from generator.draw import pangobridge, svgbridge\n"
              "import cairocffi, pangocffi\n"
              "print(sorted(set(str(s).rsplit('/', 1)[-1] for s in started)))\n")
    found = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True,
                           cwd=PACKAGE.parent).stdout.strip()
    assert "gcc" not in found and "'ld'" not in found and "cc" not in found.split("'"), found


def test_a_changed_declaration_file_is_parsed_as_the_binding_does(monkeypatch):
    """Where the installed files are not the ones the modules were written from, nothing
    stands in: the binding parses its own declarations (slower, never wrong)."""
    monkeypatch.setitem(bindings.DIGESTS, "pango", "0" * 64)
    for name in ("pangocffi", "pangocairocffi", "pangocffi.ffi_build", "pangocairocffi.ffi_build"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    bindings.install()
    assert "pangocffi.ffi_build" not in sys.modules and not bindings.written("pango")


if __name__ == "__main__" and sys.argv[1:2] == ["--emit"]:
    import re
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        digests = emit(Path(tmp))
        for name in WRITTEN:
            shutil.copy(Path(tmp) / name, PACKAGE / name)
    source = Path(bindings.__file__)
    text = source.read_text(encoding="utf-8")
    for group, value in digests.items():
        text = re.sub(rf'(\n    "{group}": )"[0-9a-f]*",', rf'\1"{value}",', text)
    source.write_text(text, encoding="utf-8")
    print("wrote", ", ".join(WRITTEN), "and bindings.DIGESTS")
