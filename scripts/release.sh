#!/usr/bin/env bash
# Release artefacts, built into dist/ (emptied first):
#
#   errband-VERSION-HOST          the command line, statically linked
#                                 (glibc's libc.a) and stripped
#   errband-VERSION-HOST.tar.gz   that binary with README.md, CHANGELOG.md
#                                 and the licence files
#   errband-*.whl                 the Python package, built by maturin
#   SHA256SUMS                    sha256sum's format; check with
#                                 `cd dist && sha256sum -c SHA256SUMS`
#
# The binary must be static (`file` says so) and must run: `--version` and
# a real analysis (models/hpl.tm, data/hpl.csv); the script fails otherwise.
#
# Environment:
#   MATURIN           a maturin to use; by default one is installed into a
#                     temporary venv, pinned by python/constraints.txt
#   CARGO_TARGET_DIR  honoured, as by cargo
#   RUSTFLAGS         the static binary gets these plus
#                     `-C target-feature=+crt-static`
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
DIST="$ROOT/dist"

step() { echo "== release.sh: $* ($(date +%T), ${SECONDS}s)" >&2; }
fail() { echo "release.sh: $*" >&2; exit 1; }

for tool in cargo rustc python3 file sha256sum tar gzip; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is not on PATH"
done

HOST="$(rustc -vV | sed -n 's/^host: //p')"
[ -n "$HOST" ] || fail "cannot read the host triple from rustc -vV"
# The version and the target directory (CARGO_TARGET_DIR or .cargo/config
# included) as cargo sees them.
read -r VERSION TARGET_DIR < <(cargo metadata --no-deps --format-version 1 --locked |
    python3 -c 'import json, sys
m = json.load(sys.stdin)
v = next(p["version"] for p in m["packages"] if p["name"] == "errband")
print(v, m["target_directory"])')
[ -n "$VERSION" ] && [ -n "$TARGET_DIR" ] || fail "cannot read the version from cargo metadata"
NAME="errband-$VERSION-$HOST"

# File times in the archive and the wheel: the last commit's (or
# SOURCE_DATE_EPOCH's), so that the same sources give the same files.
EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

rm -rf "$DIST"
mkdir -p "$DIST"

# An explicit --target: RUSTFLAGS then apply to the target's crates only,
# not to build scripts and proc macros (which are loaded by the compiler
# and cannot be static). The output is under TARGET_DIR/HOST/dist/.
step "static binary: cargo build --profile dist --target $HOST (crt-static)"
RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C target-feature=+crt-static" \
    cargo build --locked --profile dist --target "$HOST" --bin errband
cp "$TARGET_DIR/$HOST/dist/errband" "$DIST/$NAME"
chmod 755 "$DIST/$NAME"

step "static binary: checks"
FILE_OUT="$(file -b "$DIST/$NAME")"
echo "file: $FILE_OUT" >&2
case "$FILE_OUT" in
    *"statically linked"* | *"static-pie linked"*) ;;
    *) fail "$NAME is not statically linked: $FILE_OUT" ;;
esac
case "$FILE_OUT" in
    *"not stripped"*) fail "$NAME is not stripped: $FILE_OUT" ;;
esac
if command -v ldd >/dev/null 2>&1; then
    # ldd exits 1 on a static executable; its message is what counts.
    LDD_OUT="$(ldd "$DIST/$NAME" 2>&1 || true)"
    case "$LDD_OUT" in
        *"not a dynamic executable"* | *"statically linked"*) ;;
        *) fail "ldd lists shared libraries for $NAME: $LDD_OUT" ;;
    esac
fi
"$DIST/$NAME" --version
"$DIST/$NAME" models/hpl.tm data/hpl.csv >"$TMP/hpl.out" ||
    fail "$NAME models/hpl.tm data/hpl.csv failed (exit $?)"
[ -s "$TMP/hpl.out" ] || fail "$NAME models/hpl.tm data/hpl.csv printed nothing"

step "archive: $NAME.tar.gz"
mkdir "$TMP/$NAME"
cp "$DIST/$NAME" "$TMP/$NAME/errband"
cp README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE "$TMP/$NAME/"
# The same inputs give the same archive: sorted names, the last commit's
# time, no owner names, no gzip time stamp.
tar -C "$TMP" --sort=name --mtime="@$EPOCH" --owner=0 --group=0 --numeric-owner \
    -cf - "$NAME" | gzip -9n >"$DIST/$NAME.tar.gz"

step "Python wheel: maturin build --release"
if [ -z "${MATURIN:-}" ]; then
    python3 -m venv "$TMP/maturin"
    "$TMP/maturin/bin/pip" install -q -c python/constraints.txt maturin
    MATURIN="$TMP/maturin/bin/maturin"
fi
# The extension module is a shared library: the crt-static flag above was
# given to that cargo build alone, never exported.
(cd python && SOURCE_DATE_EPOCH="$EPOCH" "$MATURIN" build --release --locked --quiet -o "$DIST")
compgen -G "$DIST/errband-*.whl" >/dev/null || fail "maturin wrote no wheel into dist/"

step "SHA256SUMS"
(
    cd "$DIST"
    find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort |
        xargs -d '\n' sha256sum >SHA256SUMS
    sha256sum -c SHA256SUMS
)

step "done"
ls -l "$DIST" >&2
