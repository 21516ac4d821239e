#!/usr/bin/env bash
# Installs Debian packages for the test run (sourced by ensure-chromium.sh and
# ensure-postgres.sh): `apt_install SUDO_WORD... -- PACKAGE...`. Another apt-get or dpkg
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
