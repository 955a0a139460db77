#!/usr/bin/env bash
# Install git-hn. Idempotent: safe to re-run on a fresh machine or over an earlier install.
#
#   ./install.sh          install into $GIT_HN_HOME/venv (default ~/.local/share/git-hn) and link
#                         git-hn into $GIT_HN_BIN (default ~/.local/bin), with man pages and
#                         shell completion when they exist
#   ./install.sh --dev    also: an editable install with the test tools in ./.venv (for pytest),
#                         and the OS packages chromium and zsh the tests use (apt-get, as root
#                         or with passwordless sudo; Playwright drives that Chromium)
#   ./install.sh --uninstall [--hooks]
#                         remove what ./install.sh put in place (the environment, the link, man
#                         pages, completion); with --hooks, first remove the hooks git-hn
#                         installed in the repository of the current directory
#
# Needs Python 3.11+ and Git 2.30+. Network access to the Python package index is needed for the
# dependencies.
#
# The environment variables it reads (give --uninstall the same ones):
#   PYTHON                  the interpreter that creates the environment, 3.11 or newer (one that
#                           is missing or older is refused, never passed over); default: the first
#                           of python3, python3.13, python3.12, python3.11 on PATH that is 3.11+
#   GIT_HN_HOME             where the environment goes, as $GIT_HN_HOME/venv
#                           (default ~/.local/share/git-hn)
#   GIT_HN_BIN              the directory of the git-hn link (default ~/.local/bin)
#   GIT_HN_MAN              the man pages' directory (default share/man beside $GIT_HN_BIN)
#   GIT_HN_BASH_COMPLETION  bash completion's directory (default
#                           ${XDG_DATA_HOME:-~/.local/share}/bash-completion/completions)
#   GIT_HN_ZSH_COMPLETION   zsh completion's directory (default share/zsh/site-functions beside
#                           $GIT_HN_BIN)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dev=0
uninstall=0
hooks=0
for arg in "$@"; do
  case "$arg" in
    --dev) dev=1 ;;
    --uninstall) uninstall=1 ;;
    --hooks) hooks=1 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p;}' "$0"; exit 0 ;;  # (the comment above, whole)
    *) echo "install.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done
if [ "$hooks" = 1 ] && [ "$uninstall" = 0 ]; then
  echo "install.sh: --hooks goes with --uninstall" >&2
  exit 2
fi

home=${GIT_HN_HOME:-$HOME/.local/share/git-hn}
bin=${GIT_HN_BIN:-$HOME/.local/bin}
venv="$home/venv"
prefix=$(dirname "$bin")
mandir=${GIT_HN_MAN:-$prefix/share/man}
bashdir=${GIT_HN_BASH_COMPLETION:-${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions}
zshdir=${GIT_HN_ZSH_COMPLETION:-$prefix/share/zsh/site-functions}

if [ "$uninstall" = 1 ]; then
  if [ "$hooks" = 1 ]; then
    if [ ! -x "$venv/bin/git-hn" ]; then
      echo "install.sh: no git-hn in $venv to remove the hooks with; nothing was removed" >&2
      exit 1
    fi
    "$venv/bin/git-hn" hooks uninstall || {
      echo "install.sh: the hooks were not removed, so nothing else was; see the line above" >&2
      exit 1
    }
  elif [ -x "$venv/bin/git-hn" ]; then
    # the whole status first, then the match: piped into grep -q, which quits at its first match,
    # git-hn met a broken pipe at its next line and exited 1, and under pipefail the note was
    # left out at random (a newcomer trial: in one run of four)
    status=$("$venv/bin/git-hn" hooks status 2>/dev/null) || :
    case "$status" in
      *': installed'*)
        echo "note: the hooks in this repository stay (push and fetch go on without git-hn, with a warning);" \
             "remove them with ./install.sh --uninstall --hooks" ;;
    esac
  fi
  if [ -L "$bin/git-hn" ] && [ "$(readlink "$bin/git-hn")" = "$venv/bin/git-hn" ]; then
    rm -f "$bin/git-hn"
  fi
  for page in "$here"/man/*.[1-9]; do
    [ -e "$page" ] || continue
    sec=${page##*.}
    rm -f "$mandir/man$sec/$(basename "$page")"
  done
  rm -f "$bashdir/git-hn" "$zshdir/_git-hn"
  rm -rf "$venv"
  rmdir "$home" 2>/dev/null || :
  echo "removed git-hn from $home and $bin/git-hn"
  exit 0
fi

# PYTHON, when given, is the one interpreter used or refused: passed over for python3 without a
# word, an install meant for python3.12 went into whatever python3 was (a newcomer trial)
find_python() {
  local c version
  if [ -n "${PYTHON:-}" ]; then
    if ! command -v "$PYTHON" >/dev/null 2>&1; then
      echo "install.sh: PYTHON=$PYTHON is not a command or an executable file; name Python 3.11 or newer, or unset PYTHON" >&2
      return 1
    fi
    version=$("$PYTHON" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null) || version=
    case "$version" in
      '' | *[!0-9.]* | *.*.*.*) echo "install.sh: PYTHON=$PYTHON did not report a Python version; name Python 3.11 or newer, or unset PYTHON" >&2
        return 1 ;;
    esac
    if [ "$(echo "$version" | awk -F. '{print ($1 > 3 || ($1 == 3 && $2 >= 11))}')" != 1 ]; then
      echo "install.sh: PYTHON=$PYTHON is Python $version; 3.11 or newer is required: name another, or unset PYTHON" >&2
      return 1
    fi
    command -v "$PYTHON"; return 0
  fi
  for c in python3 python3.13 python3.12 python3.11; do
    if command -v "$c" >/dev/null 2>&1 &&
       "$c" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      command -v "$c"; return 0
    fi
  done
  echo "install.sh: Python 3.11 or newer is required (none of python3, python3.13, python3.12, python3.11 on PATH is; PYTHON names another)" >&2
  return 1
}
py=$(find_python)

git_version=$(git --version 2>/dev/null | sed -n 's/^git version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
if [ -z "$git_version" ] || [ "$(echo "$git_version" | awk '{print ($1 > 2 || ($1 == 2 && $2 >= 30))}')" != 1 ]; then
  echo "install.sh: Git 2.30 or newer is required" >&2
  exit 1
fi

# pip compiles bytecode at install time; keep it even where PYTHONDONTWRITEBYTECODE is set.
unset PYTHONDONTWRITEBYTECODE

# --dev: the OS packages the tests drive, when missing: Chromium for the browser tests of
# `git hn memory view` (tests/browser: Playwright starts this browser; it never downloads one) and
# zsh for the completion tests. Installed with apt-get as root or through passwordless sudo;
# otherwise (or without apt-get) a note says what to install. Already present: nothing is done.
dev_os_packages() {
  local missing=() name sudo=()
  for name in chromium zsh; do
    command -v "$name" >/dev/null 2>&1 || missing+=("$name")
  done
  [ "${#missing[@]}" -gt 0 ] || return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "note: install ${missing[*]} with your package manager for the browser and completion tests" >&2
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      echo "note: the browser and completion tests need ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
      return 0
    fi
  fi
  local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y)
  # a fresh image has no package lists: update them only when the install needs it
  "${apt[@]}" install --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    { "${apt[@]}" update >/dev/null 2>&1 &&
      "${apt[@]}" install --no-install-recommends "${missing[@]}" >/dev/null 2>&1; } ||
    echo "install.sh: apt-get could not install ${missing[*]}; the browser and completion tests need them" >&2
}

if [ "$dev" = 1 ]; then
  dev_os_packages
  venv="$here/.venv"
  [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
  # compat mode: a plain path entry in a .pth file. The default editable mode installs an import
  # finder whose .pth imports pathlib, re and urllib at every interpreter start (~9 ms, twice
  # `python -c pass`), which every git-hn process the tests start would pay.
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$here[dev]" \
    --config-settings editable_mode=compat
  # Byte-compile the editable source now: where PYTHONDONTWRITEBYTECODE is set (some CI images
  # and shells), every git-hn process the tests start would otherwise compile its modules again
  # (60-100 ms each). A module edited later is recompiled in memory (its timestamp no longer
  # matches), so nothing stale is ever run.
  "$venv/bin/python" -m compileall -q "$here/git_hn" >/dev/null
  echo "git-hn (editable) and the test tools are in $venv"
  echo "run the tests with: $venv/bin/python -m pytest"
  exit 0
fi

mkdir -p "$home" "$bin"
upgrade=
[ -x "$venv/bin/git-hn" ] && upgrade=1  # (an upgrade in place: the clones' hook wrappers stay the earlier ones)
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
# A fresh copy of the source, so that a re-run installs exactly this checkout.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade --force-reinstall \
  --no-deps "$here"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$here"
# setuptools, which `python -m venv` puts in an environment before Python 3.12, is not used at run
# time (pip builds in an isolated environment of its own), and its distutils-precedence.pth
# imports _distutils_hack at every start of this interpreter: ~1.7 M instructions of every git-hn
# command, 3% of a record (issue 11, fixed cost)
"$venv/bin/python" -m pip uninstall --quiet --disable-pip-version-check -y setuptools >/dev/null 2>&1 || :
ln -sf "$venv/bin/git-hn" "$bin/git-hn"

# Man pages, where `man` and `git help hn` look: man-db derives <prefix>/share/man from a
# <prefix>/bin directory on PATH, so the pages go beside the linked executable.
if [ -d "$here/man" ] && ls "$here"/man/*.[1-9] >/dev/null 2>&1; then
  for page in "$here"/man/*.[1-9]; do
    sec=${page##*.}
    mkdir -p "$mandir/man$sec"
    install -m 0644 "$page" "$mandir/man$sec/"
  done
fi

# Shell completion: bash-completion loads git-hn on demand (also for `git hn`), zsh from fpath.
if [ -d "$here/completion" ]; then
  mkdir -p "$bashdir" "$zshdir"
  install -m 0644 "$here/completion/git-hn.bash" "$bashdir/git-hn"
  install -m 0644 "$here/completion/_git-hn" "$zshdir/_git-hn"
fi

echo "installed git-hn into $venv and linked $bin/git-hn"
if [ -n "$upgrade" ]; then
  echo "note: in each clone with git-hn's hooks, git hn hooks install updates their wrappers to this version" \
    "(git hn hooks install --global, for hooks installed in your global core.hooksPath)"
fi
case ":$PATH:" in
  *":$bin:"*) ;;
  *) echo "note: $bin is not on PATH; add it with: export PATH=\"$bin:\$PATH\"" ;;
esac
