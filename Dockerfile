# pnp in a container, for systems where installing cairo and Pango is hard (docs/install.md):
# Debian 12 with Python 3.11, and the system libraries from the one list make installs
# (.ci/syslibs.sh: cairo, Pango, libseccomp, libvips); pnp's fonts ship inside its package.
#   docker build -t pnp .
#   docker run --rm --user "$(id -u):$(id -g)" -v "$PWD:/work" pnp build my-game
FROM python:3.11-slim-bookworm

WORKDIR /opt/pnp
COPY .ci/syslibs.sh .ci/syslibs.sh
RUN sh .ci/syslibs.sh install && rm -rf /var/lib/apt/lists/*

COPY pyproject.toml constraints.txt README.md ./
COPY generator generator
RUN pip install --no-cache-dir -c constraints.txt . && useradd --create-home --uid 1000 pnp

# the caches' key and fontconfig's cache: somewhere writable whatever --user runs pnp
ENV XDG_CACHE_HOME=/tmp/pnp-cache
USER 1000
WORKDIR /work
ENTRYPOINT ["pnp"]
CMD ["--help"]
