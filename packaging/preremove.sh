#!/bin/sh
# On removal (not on an upgrade: deb's "upgrade", rpm's 1), stop and
# disable the service before its binary goes, in case it was enabled.
case "$1" in
  remove|0)
    if [ -d /run/systemd/system ]; then
      systemctl disable --now gputop-serve.service >/dev/null 2>&1 || true
    fi
    ;;
esac
