#!/bin/sh
# A local stand-in for the Dockerfile's pinned base (python:3.11-slim-bookworm), for a machine
# whose engine can't pull it: Debian 12's own Python 3.11 from Debian's archive, shaped like the
# real image where the build and autofix look (python, python3 and pip in /usr/local/bin, pip
# free to install outside a virtual environment, LANG and PATH as the image sets them), imported
# into the engine as IMAGE. The host's local CAs (/usr/local/share/ca-certificates) are trusted in
# it too: where HTTPS goes through an intercepting proxy, that is the only way to reach PyPI.
#
#     tests/container/standin_base.sh ENGINE [IMAGE]     # ENGINE: docker, podman, or a command line
#
# Needs mmdebstrap (installed with apt-get when missing and run as root). Prints IMAGE's name.
set -eu
engine=${1:?usage: standin_base.sh ENGINE [IMAGE]}
image=${2:-localhost/autofix-standin-base:bookworm}

if ! command -v mmdebstrap >/dev/null; then
  [ "$(id -u)" = 0 ] || { echo "standin_base.sh: install mmdebstrap (apt-get install mmdebstrap)" >&2; exit 2; }
  apt-get update -qq >&2 && apt-get install -y -qq mmdebstrap >/dev/null
fi

tar=$(mktemp --suffix=.tar)
trap 'rm -f "$tar"' EXIT
mirror=http://deb.debian.org
# minbase: what a slim image has (no systemd, no docs); the archive's current bookworm, with its
# updates and security fixes, as the real image's rebuilds take them. The hooks are sh scripts
# mmdebstrap runs with the new tree as $1.
# shellcheck disable=SC2016
mmdebstrap --quiet --variant=minbase --include=python3,python3-venv,python3-pip,ca-certificates \
  --aptopt='Acquire::Check-Valid-Until "false"' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --customize-hook='for crt in /usr/local/share/ca-certificates/*.crt; do [ -e "$crt" ] && cp "$crt" "$1/usr/local/share/ca-certificates/"; done; chroot "$1" update-ca-certificates >/dev/null' \
  --customize-hook='ln -s /usr/bin/python3 "$1/usr/local/bin/python"; ln -s /usr/bin/python3 "$1/usr/local/bin/python3"; ln -s /usr/bin/pip3 "$1/usr/local/bin/pip"' \
  --customize-hook='rm -f "$1"/usr/lib/python3*/EXTERNALLY-MANAGED; rm -rf "$1"/var/lib/apt/lists/*' \
  bookworm "$tar" \
  "deb $mirror/debian bookworm main" "deb $mirror/debian bookworm-updates main" \
  "deb $mirror/debian-security bookworm-security main" >&2

# shellcheck disable=SC2086  # ENGINE may be a command line ("podman --runtime runc")
$engine import --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' --change 'CMD ["python3"]' "$tar" "$image" >/dev/null
echo "$image"
