#!/bin/sh
# Static zlib and libcrypto for an ARM cross build, from Debian's own
# packages, unpacked into a private sysroot: nothing is installed on the
# system and no foreign architecture is added to dpkg (which would make
# every apt-get update on this machine depend on the ARM mirrors).
#
#   mk/arm-sysroot.sh DEB_ARCH TRIPLET DIR
#
# Writes DIR/cflags, DIR/libs and DIR/note: the compiler flags, the link
# libraries and a one-line note. Never fails the build: without network or
# packages the ARM engine is built without these libraries and the note
# (recorded in the binary's tool/build record) says so.
set -u
arch=$1 triplet=$2 dir=$3
mkdir -p "$dir"
: > "$dir/cflags"; : > "$dir/libs"
apt="$dir/apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$dir/root"
: > "$apt/status"
opts="-o Dir::State::Lists=$apt/lists -o Dir::Cache=$apt/cache -o Dir::State::status=$apt/status \
 -o APT::Architecture=$arch -o APT::Architectures::=$arch -o Debug::NoLocking=1 -qq"
note=""
# apt-get update may complain about one mirror's index; what matters is
# whether the packages can then be fetched.
timeout 120 apt-get $opts update >"$dir/apt.log" 2>&1 || true
if (cd "$apt/debs" && timeout 180 apt-get $opts download zlib1g-dev zlib1g libssl-dev libssl3) >>"$dir/apt.log" 2>&1; then
    for d in "$apt"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root" || note="cannot unpack $d"; done
else
    note="could not fetch zlib1g-dev/libssl-dev:$arch (see $dir/apt.log)"
fi
lib="$dir/root/usr/lib/$triplet" inc="$dir/root/usr/include"
have=""
if [ -f "$lib/libz.a" ] && [ -f "$inc/zlib.h" ]; then
    printf ' -DHAVE_ZLIB' >> "$dir/cflags"; printf ' %s' "$lib/libz.a" >> "$dir/libs"; have="zlib"
fi
if [ -f "$lib/libcrypto.a" ] && [ -d "$inc/openssl" ]; then
    printf ' -DHAVE_LIBCRYPTO' >> "$dir/cflags"; printf ' %s' "$lib/libcrypto.a" >> "$dir/libs"; have="$have libcrypto"
fi
printf ' -isystem %s -isystem %s' "$inc/$triplet" "$inc" >> "$dir/cflags"
[ -z "$note" ] && [ -n "$have" ] && note="static$(echo " $have" | sed 's/ /, /g; s/^,//') from Debian $arch packages"
[ -z "$note" ] && note="zlib and libcrypto left out: packages unpacked but libraries not found"
echo "$note" > "$dir/note"
echo "arm sysroot ($arch): $note"
