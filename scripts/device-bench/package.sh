#!/usr/bin/env bash
# Packs what `scripts/bench` needs on a bare x86-64 Linux machine (no Swift, PostgreSQL or wrk) into one
# archive, OUTDIR/bundle.tar.xz, unpacked to / by device.sh (adapted from ../shared/device-bench):
#   /opt/sl/<set>/       for each binary set named in SETS: subledger and subledger-bench (stripped)
#   /opt/sl/bin/wrk, /opt/sl/extra/curl (curl used only where the machine has none)
#   /opt/sl/lib          the non-glibc shared libraries of all of these and of PostgreSQL (Swift runtime too)
#   /opt/sl/zoneinfo     tz data (installed on the machine only where it has none)
#   /opt/sl/project      scripts/bench and scripts/with-postgres of SRC
#   /usr/lib/postgresql/15, /usr/share/postgresql/15   PostgreSQL 15 at its usual paths
#   /opt/sl/peers        with WITH_PEERS=1: ../shared/peers/bench-peers and the two reference servers it measures
#                        SubLedger beside (built by ../shared/peers/build-peers into PEERS_BUILD, stripped)
#
#   SRC=<project root> OUTDIR=<dir> SETS="base=/path/to/bin new=/path/to/bin" scripts/device-bench/package.sh
# Each set's directory holds release builds of subledger and subledger-bench. scripts/device-bench/prepare runs this
# for the one-run check (.perfcarry/, the peers included, its size checked). XZ_LEVEL (-9e, about 3 minutes on 2
# quiet cores and what keeps the bundle with the peers under 64 MiB; -1 packs in seconds, for a test here).
set -euo pipefail
SRC="${SRC:?set SRC to the project root}"
OUTDIR="${OUTDIR:?set OUTDIR}"
SETS="${SETS:-new=$SRC/.build/release}"
PG=/usr/lib/postgresql/15
STAGE="$(mktemp -d /tmp/slpkg.XXXXXX)"
trap 'rm -rf "$STAGE"' EXIT

# BINARIES_ONLY=1: only the sets' binaries, as OUTDIR/SET.bin.tar.xz each (device.sh unpacks them over the
# bundle's), for a rebuilt binary without packing PostgreSQL again.
if [[ -n "${BINARIES_ONLY:-}" ]]; then
    for set in $SETS; do
        name="${set%%=*}" dir="${set#*=}"
        mkdir -p "$STAGE/$name"
        for b in subledger subledger-bench; do cp "$dir/$b" "$STAGE/$name/" && strip "$STAGE/$name/$b"; done
        tar -C "$STAGE" -cf - "$name" | xz -6 -T2 >"$OUTDIR/$name.bin.tar.xz"
    done
    ls -l "$OUTDIR"
    exit 0
fi
mkdir -p "$STAGE/opt/sl/bin" "$STAGE/opt/sl/extra" "$STAGE/opt/sl/lib" "$STAGE/opt/sl/project/scripts" \
    "$STAGE$PG/bin" "$STAGE$PG/lib" "$STAGE/usr/share/postgresql" "$STAGE/opt/sl/zoneinfo"
for set in $SETS; do
    name="${set%%=*}" dir="${set#*=}"
    mkdir -p "$STAGE/opt/sl/$name"
    for b in subledger subledger-bench; do
        cp "$dir/$b" "$STAGE/opt/sl/$name/"
        strip "$STAGE/opt/sl/$name/$b"
    done
done
if [[ -n "${WITH_PEERS:-}" ]]; then
    PEERS_SRC="${PEERS_SRC:-$SRC/../shared/peers}"
    PEERS_BUILD="${PEERS_BUILD:-${XDG_CACHE_HOME:-$HOME/.cache}/subledger-peers}"
    mkdir -p "$STAGE/opt/sl/peers"
    cp "$PEERS_SRC/bench-peers" "$STAGE/opt/sl/peers/"
    for b in "$PEERS_BUILD/swift/.build/release/peer-hummingbird" "$PEERS_BUILD/rust/target/release/peer-hyper"; do
        cp "$b" "$STAGE/opt/sl/peers/" && strip "$STAGE/opt/sl/peers/$(basename "$b")"
    done
fi
cp "$(command -v wrk)" "$STAGE/opt/sl/bin/"
cp "$(command -v curl)" "$STAGE/opt/sl/extra/"
for b in postgres postmaster initdb pg_ctl pgbench psql pg_config; do cp -a "$PG/bin/$b" "$STAGE$PG/bin/"; done
# PostgreSQL's modules without the LLVM JIT (it needs libLLVM; without it JIT is simply off) and without Citus.
(cd "$PG/lib" && tar --exclude=bitcode --exclude='llvmjit*' --exclude='citus*' -cf - .) | tar -xf - -C "$STAGE$PG/lib"
cp -a /usr/share/postgresql/15 "$STAGE/usr/share/postgresql/"
(cd /usr/share/zoneinfo && tar --exclude=right --exclude=posix -cf - .) | tar -xf - -C "$STAGE/opt/sl/zoneinfo"
cp "$SRC/scripts/bench" "$SRC/scripts/with-postgres" "$STAGE/opt/sl/project/scripts/"
chmod +x "$STAGE/opt/sl/project/scripts/"*

# The ldd closure of every ELF file staged, minus glibc itself.
GLIBC='^(libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl|ld-linux-x86-64)\.so'
find "$STAGE" -type f \( -perm -u+x -o -name '*.so*' \) -print0 | while IFS= read -r -d '' f; do
    file -b "$f" | grep -q ELF || continue
    LD_LIBRARY_PATH=/opt/swift/usr/lib/swift/linux ldd "$f" 2>/dev/null | awk '/=> \// { print $1, $3 }'
done | sort -u | while read -r name path; do
    [[ "$name" =~ $GLIBC ]] && continue
    cp -L "$path" "$STAGE/opt/sl/lib/$name"
done
strip --strip-unneeded "$STAGE/opt/sl/lib/"*.so* 2>/dev/null || true
# LIBRARIES_ONLY=1: the sets' binaries only chose the libraries; they travel apart (BINARIES_ONLY).
if [[ -n "${LIBRARIES_ONLY:-}" ]]; then for set in $SETS; do rm -rf "$STAGE/opt/sl/${set%%=*}"; done; fi
du -sh "$STAGE"/opt/sl/* "$STAGE$PG"
mkdir -p "$OUTDIR"
tar -C "$STAGE" -cf - opt usr | xz "${XZ_LEVEL:--9e}" -T2 >"$OUTDIR/bundle.tar.xz"
cp "$(dirname "$0")/device.sh" "$OUTDIR/"
ls -l "$OUTDIR"
