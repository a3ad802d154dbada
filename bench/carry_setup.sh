#!/bin/sh
# carry_setup.sh: on the development machine (Debian, after `make deps`),
# what a GPU host's device call carries beside the working tree, none of it
# in git (.gitignore): the daemon and its Debian libraries (.carry/), the
# kernels (build/libopscreen_kernels*.so) and the libraries under test
# (.whl/).
#
#   sh bench/carry_setup.sh [534=FLAGGEMS_GIT_DIR] [500]
#
# always: `make all`; .carry/opscreend; .carry/lib (libmicrohttpd, libinih);
#   .carry/lib2.tar.xz (the GnuTLS chain libmicrohttpd links, for a host
#   without it: bench/carry_libs.sh unpacks it there); .whl/ with the
#   flag_gems 5.0.2 and SQLAlchemy 2.0.44 wheels (PyPI, no dependencies).
# 500: .whl/5.0.0/ with flag_gems 5.0.0 (issue 23's upgrade).
# 534=DIR: .whl/5.3.4/, the newest release built from its public source for
#   measurement (tag v5.3.4 of a FlagGems git directory, e.g. a mirror),
#   and .whl/534extra.tar.xz, the source files the wheel leaves out (its
#   directories without an __init__.py, flag_gems/fused/DSA among them),
#   which gpu_full.sh adds to the installed release.
# What a call carries must stay under 64 MiB with the tracked files: move a
# release's folder out of .whl for calls that do not screen it.
set -eu
cd "$(dirname "$0")/.."
make -s all
mkdir -p .carry/lib .whl
cp build/opscreend .carry/opscreend
for l in libmicrohttpd.so.12 libinih.so.1; do
	cp -L "$(ldconfig -p | awk -v l="$l" '$1 == l {print $NF; exit}')" .carry/lib/
done
t=$(mktemp -d)
mkdir "$t/lib2"
gnutls=$(ldconfig -p | awk '$1 == "libgnutls.so.30" {print $NF; exit}')
for l in "$gnutls" $(ldd "$gnutls" | awk '$3 ~ /^\// {print $3}' |
    grep -v -E '/(libc|libm|ld-linux[^/]*)\.so'); do
	cp -L "$l" "$t/lib2/"
done
tar cJf .carry/lib2.tar.xz -C "$t" lib2
rm -rf "$t"
dl() {	# $1 directory, then pip requirements
	d=$1; shift
	python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
	    --platform manylinux2014_x86_64 -d "$d" "$@"
}
[ -f .whl/flag_gems-5.0.2-py3-none-any.whl.xz ] || dl .whl flag-gems==5.0.2
ls .whl/[Ss][Qq][Ll][Aa]*.whl >/dev/null 2>&1 || dl .whl sqlalchemy==2.0.44
for a in "$@"; do
	case $a in
	500)	mkdir -p .whl/5.0.0
		[ -f .whl/5.0.0/flag_gems-5.0.0-py3-none-any.whl.xz ] || dl .whl/5.0.0 flag-gems==5.0.0;;
	534=*)	g=${a#534=}; t=$(mktemp -d); w=$PWD/.whl/5.3.4
		git --git-dir="$g" archive v5.3.4 | tar xf - -C "$t"
		mkdir -p "$w"
		(cd "$t" && SETUPTOOLS_SCM_PRETEND_VERSION=5.3.4 python3 -m pip wheel -q --no-deps -w "$w" .)
		(cd "$t/src" && unzip -l "$w"/flag_gems-5.3.4-*.whl | awk '{print $4}' |
		    grep '\.py$' | sort > "$t/inwheel.txt" &&
		    find flag_gems -name '*.py' | sort > "$t/insrc.txt" &&
		    comm -13 "$t/inwheel.txt" "$t/insrc.txt" > "$t/missing.txt" &&
		    tar cf - -T "$t/missing.txt" | xz -9 > "$w/../534extra.tar.xz" &&
		    echo "534extra.tar.xz: $(wc -l < "$t/missing.txt") files")
		rm -rf "$t";;
	*)	echo "carry_setup.sh: unknown argument $a" >&2; exit 2;;
	esac
done
# flag_gems' wheels (pure Python) travel as stored zips packed with xz:
# 6.4 MB of 5.3.4's zip become 1.8 (carry_libs.sh unpacks them; a wheel's
# RECORD hashes its files, not its zip's compression)
for w in .whl/flag_gems-*.whl .whl/*/flag_gems-*.whl; do
	[ -f "$w" ] || continue
	python3 -c 'import sys, zipfile
src, dst = sys.argv[1], sys.argv[1] + ".stored"
with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as b:
    for i in a.infolist():
        b.writestr(i, a.read(i), compress_type=zipfile.ZIP_STORED)' "$w"
	xz -9e -c "$w.stored" > "$w.xz" && rm -f "$w" "$w.stored"
done
du -sh .carry .whl build/libopscreen_kernels.so build/libopscreen_kernels_host.so build/libopscreen_nccl.so
