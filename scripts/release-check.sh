#!/usr/bin/env bash
# scripts/release-check.sh: what a user of the release gets, checked on
# this machine (Debian or Ubuntu, as root) from the dist/ that
# `scripts/release.sh --snapshot` built, the way README's Install lines
# use it: the .deb installed with apt, gputop run from /usr/bin, its man
# page, completions and systemd unit where they belong, then removed; the
# amd64 archive unpacked and run; the .rpm's files listed; the arm64 binary
# an aarch64 ELF, run under qemu-user where Debian provides it.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { echo "release-check: $*"; }
fail() { echo "release-check: FAILED: $*" >&2; exit 1; }

need=()
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || need+=(libc6-arm64-cross)
command -v rpm >/dev/null || need+=(rpm)
command -v man >/dev/null || need+=(man-db)
command -v gcc >/dev/null || need+=(gcc)
[ -f /usr/share/bash-completion/bash_completion ] || need+=(bash-completion)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  # qemu-user only where Debian provides it: the rest is required.
  for p in "${need[@]}"; do
    apt-get install -y -qq "$p" >/dev/null || [ "$p" = qemu-user ] || fail "could not install $p"
  done
fi

deb=$(ls dist/gputop_*_amd64.deb)
version=$(dpkg-deb -f "$deb" Version)
step "installing $deb ($version)"
apt-get install -y -qq "./$deb" >/dev/null
trap 'apt-get purge -y -qq gputop >/dev/null 2>&1 || true' EXIT
[ "$(command -v gputop)" = /usr/bin/gputop ] || fail "gputop is not /usr/bin/gputop"

out=$(/usr/bin/gputop version)
step "gputop version: $out"
[[ $out == "gputop ${version%%~*}"*" (commit "*")" ]] || fail "gputop version does not name the version and commit: $out"
# (Each output is read whole before grep -q: under pipefail a grep that
# stops early would fail the command it reads by SIGPIPE.)
out=$(/usr/bin/gputop snapshot --demo) && grep -q "DEMO TRAINING" <<<"$out" || fail "gputop snapshot --demo"
out=$(/usr/bin/gputop --help) && grep -q "^Usage:" <<<"$out" || fail "gputop --help"

# The binary binds NVML's functions when go-nvml opens the driver's
# library (packaging/zig-cc): a stand-in library that answers nvmlInit
# with an error proves the binding works, on a machine with no GPU.
fake=$(mktemp -d)
printf 'int nvmlInit_v2(void){return 999;}\nint nvmlInitWithFlags(unsigned f){return 999;}\nint nvmlShutdown(void){return 0;}\n' >"$fake/fake.c"
gcc -shared -fPIC -o "$fake/libnvidia-ml.so.1" "$fake/fake.c"
out=$(LD_LIBRARY_PATH=$fake /usr/bin/gputop snapshot) && grep -q "nvmlInit failed" <<<"$out" ||
  fail "gputop did not reach a stand-in libnvidia-ml.so.1"
rm -rf "$fake"

for f in /usr/share/man/man1/gputop.1.gz /usr/share/bash-completion/completions/gputop \
  /usr/share/zsh/vendor-completions/_gputop /usr/share/fish/vendor_completions.d/gputop.fish \
  /usr/lib/systemd/system/gputop-serve.service /etc/default/gputop; do
  [ -f "$f" ] || fail "$f is not installed"
done
[ "$(man -w gputop)" = /usr/share/man/man1/gputop.1.gz ] || fail "man does not find gputop(1)"
out=$(MANWIDTH=80 man gputop 2>/dev/null) && grep -q "gputop import prometheus" <<<"$out" ||
  fail "man gputop does not show every command"
# cobra's bash completion asks /usr/bin/gputop (__complete), on top of
# bash-completion; compopt answers only in a completion bash started.
bash -c 'source /usr/share/bash-completion/bash_completion; source /usr/share/bash-completion/completions/gputop
  compopt() { :; }; COMP_LINE="gputop rep"; COMP_POINT=10; COMP_WORDS=(gputop rep); COMP_CWORD=1; __start_gputop
  [[ "${COMPREPLY[*]}" == "replay report" ]]' || fail "the bash completion does not complete commands"
systemd-analyze verify /usr/lib/systemd/system/gputop-serve.service || fail "systemd-analyze verify"
[ ! -e /etc/systemd/system/multi-user.target.wants/gputop-serve.service ] || fail "the package enabled the service"
step "deb: /usr/bin/gputop runs; man page, completions and the unit (verified, not enabled) installed"

apt-get purge -y -qq gputop >/dev/null
trap - EXIT
[ ! -e /usr/bin/gputop ] && [ ! -e /etc/default/gputop ] || fail "apt-get purge left gputop's files"
step "deb: removed"

archive=$(ls dist/gputop_*_linux_amd64.tar.gz)
unpacked=$(mktemp -d)
tar -xzf "$archive" -C "$unpacked"
dir=$(basename "$archive" .tar.gz)
for f in gputop README.md man/gputop.1.gz completions/gputop.bash completions/_gputop completions/gputop.fish; do
  [ -f "$unpacked/$dir/$f" ] || fail "$archive has no $dir/$f"
done
out=$("$unpacked/$dir/gputop" version) && grep -q "(commit " <<<"$out" || fail "the archive's gputop does not run"
rm -rf "$unpacked"
step "archive: $archive holds the binary, README, man page and completions, and runs"

rpmfile=$(ls dist/gputop-*.x86_64.rpm)
files=$(rpm -qlp "$rpmfile" 2>/dev/null)
for f in /usr/bin/gputop /usr/share/man/man1/gputop.1.gz /usr/share/zsh/site-functions/_gputop /usr/lib/systemd/system/gputop-serve.service; do
  grep -qx "$f" <<<"$files" || fail "$rpmfile has no $f"
done
step "rpm: $rpmfile holds the binary, man page, completions and unit"

arm=dist/gputop_linux_arm64_v8.0/gputop
[ "$(readelf -h "$arm" | sed -n 's/^ *Machine: *//p')" = AArch64 ] || fail "$arm is not an aarch64 ELF"
if command -v qemu-aarch64 >/dev/null; then
  out=$(qemu-aarch64 -L /usr/aarch64-linux-gnu "$arm" version)
  [[ $out == "gputop "*" (commit "*")" ]] || fail "$arm under qemu-aarch64: $out"
  step "arm64: an aarch64 ELF; under qemu-aarch64: $out"
else
  step "arm64: an aarch64 ELF (no qemu-user here to run it)"
fi
echo "release-check passed"
