#!/bin/sh
# make deb: the Debian packages opscreen and opscreen-demolib (debian/) in
# build/deb/. dpkg-buildpackage writes its output to the parent of the tree
# it builds and cleans that tree first (make clean), so it runs in a copy at
# build/deb/src: the packages land in build/deb/ and the checkout's build/
# is left alone. The copy holds what git tracks plus the files git does not
# ignore (outside a git checkout: everything but build/, .venv and .git).
# Usage: sh tools/deb.sh [jobs]; DEB_BUILD_PROFILES passes through.
set -eu

jobs=${1:-2}
out=build/deb
command -v dpkg-buildpackage >/dev/null || {
	echo "deb: dpkg-buildpackage is missing (make deps installs dpkg-dev," \
	    "debhelper, fakeroot, lintian)" >&2
	exit 1
}
rm -rf "$out"
mkdir -p "$out/src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# a file deleted in the work tree is still in the index: skip it
	git ls-files -z -co --exclude-standard |
	    xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done; :' sh |
	    tar --null -T - -cf - | tar -C "$out/src" -xf -
else
	tar --exclude=./build --exclude=./.venv --exclude=./.git -cf - . |
	    tar -C "$out/src" -xf -
fi
(cd "$out/src" && dpkg-buildpackage -us -uc -b -J"$jobs")
rm -rf "$out/src"
# the profiles these packages were built with (tests/e2e/test_packaging.py
# rebuilds when they differ from its own)
printf '%s\n' "${DEB_BUILD_PROFILES:-}" > "$out/profiles"
ls -l "$out"
