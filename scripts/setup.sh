#!/bin/sh
# What `make env` and the targets that need tmux ask of the machine, said plainly.
#
#   sh scripts/setup.sh python [PYTHON]   print a Python 3.11+ that can make a venv
#   sh scripts/setup.sh tmux              make sure a tmux is on PATH
#   sh scripts/setup.sh sshd              make sure ssh and /usr/sbin/sshd are there
#                                         (the remote-tmux tests start a private sshd)
#
# PYTHON, when given, is the only interpreter considered. Otherwise the first of
# python3, python3.14 ... python3.11 on PATH that is new enough is used. Running
# as root with apt-get, a missing python3, python3.X-venv, tmux or OpenSSH is
# installed; otherwise the message says what to install. Only the answer goes to stdout.
set -eu

MINIMUM_MAJOR=3
MINIMUM_MINOR=11
CANDIDATES="python3 python3.14 python3.13 python3.12 python3.11"

say() { printf '%s\n' "$*" >&2; }

can_install() { [ "$(id -u 2>/dev/null)" = 0 ] && command -v apt-get >/dev/null 2>&1; }

apt_install() {
    say "installing $* with apt-get"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# "3.12" for an interpreter that runs, nothing otherwise.
version_of() {
    "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true
}

new_enough() {
    major=${1%%.*}
    minor=${1#*.}
    case "$major$minor" in '' | *[!0-9]*) return 1 ;; esac
    [ "$major" -gt "$MINIMUM_MAJOR" ] ||
        { [ "$major" -eq "$MINIMUM_MAJOR" ] && [ "$minor" -ge "$MINIMUM_MINOR" ]; }
}

# Sets $python and $version to the first new-enough candidate; $seen lists the others.
find_python() {
    python=
    version=
    seen=
    for candidate in $1; do
        command -v "$candidate" >/dev/null 2>&1 || continue
        found=$(version_of "$candidate")
        if [ -n "$found" ] && new_enough "$found"; then
            python=$candidate
            version=$found
            return 0
        fi
        seen="$seen $candidate (${found:-does not run})"
    done
    return 1
}

need_python() {
    wanted=${1:-}
    if [ -n "$wanted" ]; then
        if ! find_python "$wanted"; then
            if [ -z "$seen" ]; then
                say "PYTHON=$wanted: no such command."
            elif found=$(version_of "$wanted") && [ -n "$found" ]; then
                say "PYTHON=$wanted is Python $found."
            else
                say "PYTHON=$wanted does not run."
            fi
            say "tmux-contract-mcp needs Python $MINIMUM_MAJOR.$MINIMUM_MINOR or newer."
            exit 1
        fi
    elif ! find_python "$CANDIDATES"; then
        if [ -z "$seen" ] && can_install; then
            apt_install python3 python3-venv
            find_python "$CANDIDATES" || true
        fi
        if [ -z "$python" ]; then
            say "tmux-contract-mcp needs Python $MINIMUM_MAJOR.$MINIMUM_MINOR or newer (found:${seen:- none})."
            say "Install one (Debian 12 and newer, Ubuntu 24.04 and newer ship it as python3),"
            say "or name it: make PYTHON=/path/to/python3.12 ..."
            exit 1
        fi
    fi
    # Debian and Ubuntu ship venv's pip bootstrap (ensurepip) as python3.X-venv.
    if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        if can_install; then
            apt_install "python$version-venv"
        fi
        if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
            say "$python (Python $version) cannot create a virtual environment:"
            say "install python$version-venv (apt-get install python$version-venv), or name another"
            say "Python with make PYTHON=/path/to/python3.X ..."
            exit 1
        fi
    fi
    printf '%s\n' "$python"
}

need_tmux() {
    command -v tmux >/dev/null 2>&1 && return 0
    if can_install; then
        apt_install tmux
        command -v tmux >/dev/null 2>&1 && return 0
    fi
    say "tmux-contract-mcp needs tmux 3.2 or newer on PATH: install it (apt-get install tmux,"
    say "dnf install tmux, brew install tmux) and run make again."
    exit 1
}

need_sshd() {
    [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null 2>&1 && return 0
    if can_install; then
        apt_install openssh-server openssh-client
        [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null 2>&1 && return 0
    fi
    say "the tests reach tmux through a private OpenSSH server: install ssh and /usr/sbin/sshd"
    say "(apt-get install openssh-server openssh-client) and run make again."
    exit 1
}

case "${1:-}" in
python) need_python "${2:-}" ;;
tmux) need_tmux ;;
sshd) need_sshd ;;
*)
    say "usage: sh scripts/setup.sh python [PYTHON] | tmux | sshd"
    exit 2
    ;;
esac
