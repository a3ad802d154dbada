# carry_libs.sh: sourced, from the repository root, by the GPU scripts
# (gpu_full.sh, gpu_screen.sh): the libraries the carried opscreend needs
# on a host without them. .carry/lib holds Debian's libmicrohttpd and
# libinih; the GnuTLS chain libmicrohttpd links, for a host that lacks it,
# is carried packed (.carry/lib2.tar.xz, 2 MB against 6.5: the working tree
# and what a device call carries must stay under 64 MiB) and unpacked here.
# Exits the sourcing script when a library is still missing. Also unpacks
# flag_gems' wheels, which bench/carry_setup.sh packs as stored zips in xz,
# beside their .xz, for the scripts' pip installs (source this first).
for w in .whl/*.whl.xz .whl/*/*.whl.xz; do
	[ -f "$w" ] && [ ! -f "${w%.xz}" ] && xz -dk "$w"
done
[ -f .carry/lib2.tar.xz ] && [ ! -d .carry/lib2 ] && tar xJf .carry/lib2.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
if ldd .carry/opscreend | grep -q "not found"; then
	export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/.carry/lib2
fi
ldd .carry/opscreend | grep "not found" && exit 1
