#!/bin/sh
# deps.sh - make sure the Debian packages nnefkit builds with are installed.
# Installs what is missing when running as root (or with sudo available
# without a password); otherwise prints the exact command to run.
set -eu

# jq, mandoc and graphviz: the tests validate JSON and SARIF output, lint
# the manual pages and draw DOT output; python3-dev, python3-numpy and
# python3-pytest build and test the Python module (make python).
PACKAGES="gcc make flex bison libtar-dev zlib1g-dev libzip-dev check pkg-config gzip tar libopenblas-dev jq mandoc graphviz binutils python3-dev python3-numpy python3-pytest"

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing$missing"
	apt-get update -q
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	echo "deps: installing$missing (with sudo)"
	sudo -n apt-get update -q
	# shellcheck disable=SC2086
	sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
else
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run as root:  apt-get update && $cmd" >&2
	exit 1
fi
