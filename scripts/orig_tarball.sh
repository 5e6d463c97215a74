#!/usr/bin/env bash
# The upstream tarball of the Debian source package (format 3.0 (quilt)):
# fetchq_<version>.orig.tar.gz of a commit's tree, without debian/, for a
# source build (dpkg-buildpackage -us -uc, or dpkg-source -b). A binary build
# (dpkg-buildpackage -b) does not need it.
#   scripts/orig_tarball.sh [COMMIT [OUTDIR]]   (HEAD and .. by default)
# Prints the tarball's path. The same commit always gives the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-HEAD}
out=${2:-..}

version=$(git show "$rev:fetchq.control" | sed -n "s/^default_version = '\(.*\)'/\1/p")
debian=$(git show "$rev:debian/changelog" | dpkg-parsechangelog -l- -S Version)
# dpkg-source takes the orig tarball by the changelog's upstream version.
if [ "${debian%-*}" != "$version" ]; then
    echo "orig_tarball: debian/changelog is at $debian, fetchq.control at $version" >&2
    exit 1
fi

tarball=$out/fetchq_$version.orig.tar.gz
# gzip -n: no name or time stamp in the header; git archive dates every file
# with the commit's time.
git archive --format=tar --prefix="fetchq-$version/" "$rev" -- . ':(exclude)debian' |
    gzip -n -9 >"$tarball.tmp"
mv "$tarball.tmp" "$tarball"
echo "$tarball"
