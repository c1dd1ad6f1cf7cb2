#!/bin/sh
# The Debian/Ubuntu system libraries pnp draws and spells with: the one list that `make`, the GitHub
# Action (action.yml) and the container image (Dockerfile) all install.
#   sh .ci/syslibs.sh list      print the packages, one a line
#   sh .ci/syslibs.sh install   install them with apt when one is missing (sudo when not root)
# cairo, and Pango (text) with its cairo and fontconfig parts; libseccomp, which the jail of
# --untrusted loads (generator/jailbridge.py); and libvips, which prepares pictures through
# pyvips (generator/draw/vipsbridge.py): libvips42t64 since Debian 13 / Ubuntu 24.04, libvips42 before;
# libhunspell and the Hunspell dictionaries of the shipped games' languages, which the word checks
# of pnp validate and pnp lint spell with (generator/rules/hunspellbridge.py; Japanese has none).
# And git, the one program pnp runs (pnp diff, --changed-since REF, a stamp's {version}): a
# checkout has it; a container image does not.
# PYTHON (default python3) is the Python that checks the libraries can be found.
set -eu

PYTHON=${PYTHON:-python3}
SYSLIBS="libcairo2 libpango-1.0-0 libpangocairo-1.0-0 libpangoft2-1.0-0 libseccomp2 libhunspell-1.7-0"
DICTIONARIES="hunspell-en-us hunspell-de-de hunspell-fr hunspell-ar"
PROGRAMS="git"

vipslib() {
  if apt-cache show libvips42t64 >/dev/null 2>&1; then echo libvips42t64; else echo libvips42; fi
}

packages() {
  for p in $SYSLIBS; do echo "$p"; done
  vipslib
  for p in $DICTIONARIES; do echo "$p"; done
  for p in $PROGRAMS; do echo "$p"; done
}

found() {
  for p in $PROGRAMS; do command -v "$p" >/dev/null || return 1; done
  "$PYTHON" -c 'import ctypes.util, sys
import os
sys.exit(0 if all(ctypes.util.find_library(n) for n in ("cairo", "pango-1.0", "pangocairo-1.0", "pangoft2-1.0", "seccomp", "vips", "hunspell-1.7"))
         and all(os.path.exists(f"/usr/share/hunspell/{d}.dic") for d in ("en_US", "de_DE", "fr", "ar")) else 1)'
}

apt_get() {
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then sudo apt-get "$@"; else apt-get "$@"; fi
}

case "${1:-}" in
  list)
    packages ;;
  install)
    command -v "$PYTHON" >/dev/null || { echo "python3 >= 3.11 is needed"; exit 1; }
    found && exit 0
    # an image's or a runner's package lists may be missing or old: update once when the first try fails
    wanted=$(packages | tr '\n' ' ')
    echo "cairo, Pango, libseccomp, libvips, libhunspell, a Hunspell dictionary or git is missing; installing $wanted(Debian/Ubuntu)"
    if ! apt_get install -y --no-install-recommends $wanted >/dev/null; then
      apt_get update >/dev/null && wanted=$(packages | tr '\n' ' ') \
        && apt_get install -y --no-install-recommends $wanted >/dev/null \
        || { echo "cannot install $wanted(libvips42t64 since Debian 13)"; exit 1; }
    fi
    found || { echo "installed $wanted but a library is still not found"; exit 1; } ;;
  *)
    echo "usage: sh .ci/syslibs.sh list|install" >&2; exit 2 ;;
esac
