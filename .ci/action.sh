#!/usr/bin/env bash
# The shell steps of pnp's GitHub Action (action.yml), kept here so they can be run and tested
# anywhere (tests/test_ci.py runs them with the GITHUB_* variables a runner sets):
#   action.sh install   the system libraries (.ci/syslibs.sh, the list make installs) and, unless
#                       PNP_INSTALL=false, pnp from the action's own checkout into $RUNNER_TEMP/pnp
#   action.sh run       in the project's folder: the games the pull request changes (or PNP_GAMES),
#                       `pnp validate --format github` in untrusted mode, `pnp build` and `pnp kit`
#                       (untrusted too), `pnp diff` against the base as markdown and HTML; writes the
#                       job summary and the outputs games, files (what to upload), status (the exit code)
#   action.sh finish    adds the artifact's link to the summary and exits with the status
# Inputs arrive as environment variables (never pasted into the script: a branch or game name is
# data): PNP_GAMES, PNP_PAPER, PNP_FAIL_ON (error|warning), PNP_DIFF_BASE, PNP_INSTALL,
# PNP_STATUS and PNP_ARTIFACT_URL (finish).
set -euo pipefail

ACTION_PATH=${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}
SUMMARY=${GITHUB_STEP_SUMMARY:-/dev/null}
OUTPUT=${GITHUB_OUTPUT:-/dev/null}
GAME_NAME='^[A-Za-z0-9][A-Za-z0-9._-]*$'

say() { printf '%s\n' "$*" >>"$SUMMARY"; }

# one output of several lines, under a delimiter no file or game name can hold
output_lines() {
  local name=$1 delim
  delim="pnp_$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  { printf '%s<<%s\n' "$name" "$delim"; cat; printf '%s\n' "$delim"; } >>"$OUTPUT"
}

install() {
  sh "$ACTION_PATH/.ci/syslibs.sh" install
  if [ "${PNP_INSTALL:-true}" != false ]; then
    local venv=${RUNNER_TEMP:-/tmp}/pnp
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -c "$ACTION_PATH/constraints.txt" "$ACTION_PATH"
    echo "$venv/bin" >>"${GITHUB_PATH:-/dev/null}"
    PATH="$venv/bin:$PATH"
  fi
  pnp --version
}

# the commit the pull request goes into: diff-base, else the base branch (fetched when the
# checkout is shallow), else the commit before this one; empty when there is none
diff_base() {
  if [ -n "${PNP_DIFF_BASE:-}" ]; then
    git rev-parse --verify --quiet "${PNP_DIFF_BASE}^{commit}" >/dev/null || { echo "diff-base: no commit '${PNP_DIFF_BASE}'" >&2; return 1; }
    echo "$PNP_DIFF_BASE"
  elif [ -n "${GITHUB_BASE_REF:-}" ]; then
    local ref
    for ref in "origin/$GITHUB_BASE_REF" "$GITHUB_BASE_REF"; do
      if git rev-parse --verify --quiet "$ref^{commit}" >/dev/null; then echo "$ref"; return 0; fi
    done
    git fetch --no-tags --depth=1 origin "+refs/heads/$GITHUB_BASE_REF:refs/remotes/origin/$GITHUB_BASE_REF" >&2
    git rev-parse --verify --quiet "origin/$GITHUB_BASE_REF^{commit}" >/dev/null && echo "origin/$GITHUB_BASE_REF"
  else
    if git rev-parse --verify --quiet "HEAD^^{commit}" >/dev/null; then echo "HEAD^"; fi
  fi
}

# the status of the run: the worst exit code so far
worst() {
  if [ "$1" -gt "$status" ]; then status=$1; fi
}

# Markdown text from the project, every character that could make markup, a link or a picture escaped
md() {
  sed 's/[][\\`*_{}()#+.!|<>~&:@-]/\\&/g'
}

# `pnp validate --format github`'s annotations as a Markdown list (when pnp diff could not run)
findings() {
  local re='^::(error|warning) file=([^,]*),(line=([0-9]+),)?title=([^:]*)::(.*)$' line
  while IFS= read -r line; do
    if [[ $line =~ $re ]]; then
      printf -- '- %s: %s%s: %s: %s\n' "${BASH_REMATCH[1]}" "$(md <<<"${BASH_REMATCH[2]}")" \
        "${BASH_REMATCH[4]:+\\:${BASH_REMATCH[4]}}" "$(md <<<"${BASH_REMATCH[5]}")" "$(md <<<"${BASH_REMATCH[6]}")"
    fi
  done
}

run() {
  local head base status=0 out
  head=${GITHUB_SHA:-$(git rev-parse HEAD)}
  base=$(diff_base)
  out=$(pwd)/output
  local -a games=() paper=() strict=() names=()
  local listed   # (a command's failure here fails the step: never an empty list for an error)
  if [ -n "${PNP_GAMES:-}" ] && [ "$PNP_GAMES" != all ]; then
    read -r -a names <<<"$PNP_GAMES"
    listed=$(printf '%s\n' "${names[@]}")
  elif [ -n "$base" ] && [ "${PNP_GAMES:-}" != all ]; then
    listed=$(git diff -z --name-only --no-renames --relative "$base" "$head" -- | xargs -0 -r pnp hook games)
  else
    listed=$(pnp hook games cards/*/game.yaml)
  fi
  [ -z "$listed" ] || mapfile -t names <<<"$listed"
  local g
  for g in "${names[@]}"; do
    if [[ $g =~ $GAME_NAME ]]; then games+=("$g"); else echo "skipped a game folder whose name is no game id" >&2; fi
  done
  for g in ${PNP_PAPER:-}; do paper+=(--paper "$g"); done
  case "${PNP_FAIL_ON:-error}" in
    error) ;;
    warning) strict=(--strict) ;;
    *) echo "fail-on: '${PNP_FAIL_ON}' is neither error nor warning" >&2; exit 2 ;;
  esac
  printf '%s\n' "${games[*]}" | output_lines games
  say "# pnp"
  say ""
  if [ ${#games[@]} -eq 0 ]; then
    say "No game changed${base:+ since \`$base\`}: nothing to check."
    echo "" | output_lines files
    echo "status=0" >>"$OUTPUT"
    return 0
  fi
  say "Checked in untrusted mode: \`$(printf '%s' "${games[*]}" | tr -d '`')\`"
  say ""

  # 1. validate, jailed: the annotations go to the log, where GitHub puts them on the diff
  local found
  found=$(mktemp)
  pnp validate --format github "${strict[@]}" "${games[@]}" --untrusted | tee "$found" || worst $?
  # 2. build and kit, jailed, unless the project could not be read or drawn (exit 2)
  if [ "$status" -ne 2 ]; then
    pnp build "${paper[@]}" --no-validate "${games[@]}" --untrusted >&2 || worst $?
    for g in "${games[@]}"; do
      pnp kit "${paper[@]}" "$g" --untrusted >&2 || worst $?
    done
  fi
  # 3. the pictures of what changed, jailed: git unpacks the base before the jail closes, and
  #    both sides are drawn inside it (docs/security.md)
  local -a files=()
  if [ "$status" -ne 2 ] && [ -n "$base" ]; then
    if pnp diff "$base" "${games[@]}" --format markdown --format html --no-pictures --untrusted >&2; then
      cat "$out/diff/summary.md" >>"$SUMMARY"
      files+=("$out/diff")
    else
      status=2
    fi
  else
    say "## Findings"
    say ""
    findings <"$found" >>"$SUMMARY"
  fi
  rm -f "$found"
  for g in "${games[@]}"; do
    [ -d "$out/$g" ] && files+=("$out/$g")
  done
  printf '%s\n' "${files[@]}" | output_lines files
  echo "status=$status" >>"$OUTPUT"
}

finish() {
  if [ -n "${PNP_ARTIFACT_URL:-}" ]; then
    say ""
    say "The PDFs, the print-and-play kits and the before/after pictures (\`diff/index.html\`, \`diff/GAME/*.png\`): [the artifact]($PNP_ARTIFACT_URL)"
  fi
  exit "${PNP_STATUS:-1}"
}

case "${1:-}" in
  install|run|finish) "$1" ;;
  *) echo "usage: action.sh install|run|finish" >&2; exit 2 ;;
esac
