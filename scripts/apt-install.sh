#!/usr/bin/env bash
# Installs Debian packages for the test run (sourced by ensure-chromium.sh and
# ensure-postgres.sh): `root_prefix || …` sets SUDO to what runs apt-get as root here, then
# `apt_install "${SUDO[@]}" -- PACKAGE...`. Another apt-get or dpkg
# running (an image's own updater, a second clone's CI) holds the package manager's locks;
# we wait for them (DPkg::Lock::Timeout) instead of failing with "Could not get lock", and
# try `update` again a few times, since its lists lock is not always covered by that wait.
apt_install() {
  local sudo=() packages=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do sudo+=("$1"); shift; done
  shift
  packages=("$@")
  export DEBIAN_FRONTEND=noninteractive
  local lock=(-o DPkg::Lock::Timeout=300) try
  for try in 1 2 3 4 5 6; do
    "${sudo[@]}" apt-get "${lock[@]}" update -qq >&2 && break
    [[ $try -eq 6 ]] && return 1
    echo "apt-install: apt-get update failed (another apt holding its lock?); again in 10 s" >&2
    sleep 10
  done
  "${sudo[@]}" apt-get "${lock[@]}" install -y -qq "${packages[@]}" >&2
}

# Nothing as root (CI), `sudo -n` where sudo needs no password; else returns 1 for the caller
# to say what to run: a test run never prompts.
root_prefix() {
  if [[ $(id -u) -eq 0 ]]; then
    SUDO=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
  else
    return 1
  fi
}
