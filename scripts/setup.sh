#!/usr/bin/env bash
# Installs the Debian packages stagecheck needs, only when some are missing.
# Quick and silent when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build
  llvm-22-dev llvm-22-tools libzstd-dev
  libz3-dev libcxxopts-dev libgtest-dev
  cvc5 python3 python3-jsonschema libxml2-utils
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The CUDA toolkit is optional: libdevice gives libdevice calls their meaning,
# ptxas re-checks PTX. Without it those features report themselves disabled.
if [[ -f /usr/local/cuda/nvvm/libdevice/libdevice.10.bc ]]; then
  [[ -n ${STAGECHECK_SETUP_VERBOSE:-} ]] && echo "setup: CUDA toolkit at /usr/local/cuda" >&2
else
  echo "setup: no CUDA toolkit at /usr/local/cuda (libdevice features disabled)" >&2
fi
exit 0
