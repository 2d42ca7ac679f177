#!/usr/bin/env bash
# Installs (when missing) and starts the real services some tests use: PostgreSQL 15 on 127.0.0.1:5432
# (trust auth for local TCP, database `test`, user `postgres`) and NATS with JetStream on 127.0.0.1:4222.
# Idempotent: running it again with both up changes nothing. Used by .ci/run and by developers.
set -euo pipefail

log() { printf 'services: %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
state_dir=${SERVICES_STATE_DIR:-/tmp/pathgate-services}
mkdir -p "$state_dir"

apt_updated=0
need_pkg() {
  local pkg=$1
  dpkg -s "$pkg" >/dev/null 2>&1 && return 0
  if [ $apt_updated = 0 ]; then as_root apt-get update -qq >/dev/null; apt_updated=1; fi
  log "installing $pkg"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$pkg" >/dev/null
}

# Chromium for the dashboard's browser tests (test/dashboard/): Debian's package, never a downloaded browser.
command -v chromium >/dev/null 2>&1 || need_pkg chromium

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# PostgreSQL 15
if ! port_open 5432; then
  command -v pg_ctlcluster >/dev/null 2>&1 || need_pkg postgresql
  conf=/etc/postgresql/15/main
  if [ -d "$conf" ]; then
    hba=$conf/pg_hba.conf
    if ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
      log "configuring trust auth on 127.0.0.1"
      as_root sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
    fi
    as_root sed -i "s/^#\?listen_addresses.*/listen_addresses = '127.0.0.1'/" "$conf/postgresql.conf"
  fi
  as_root pg_ctlcluster 15 main start || as_root pg_ctlcluster 15 main restart
  for _ in $(seq 1 50); do port_open 5432 && break; sleep 0.2; done
fi
port_open 5432 || { log "PostgreSQL did not come up on 127.0.0.1:5432"; exit 1; }
if ! psql -h 127.0.0.1 -U postgres -tAc "select 1 from pg_database where datname='test'" | grep -q 1; then
  psql -h 127.0.0.1 -U postgres -qc 'create database test'
fi
log "PostgreSQL ready on 127.0.0.1:5432 (database test)"

# NATS with JetStream
if ! port_open 4222; then
  command -v nats-server >/dev/null 2>&1 || need_pkg nats-server
  mkdir -p "$state_dir/nats"
  nohup nats-server -a 127.0.0.1 -p 4222 -js -sd "$state_dir/nats" >"$state_dir/nats.log" 2>&1 &
  for _ in $(seq 1 50); do port_open 4222 && break; sleep 0.2; done
fi
port_open 4222 || { log "NATS did not come up on 127.0.0.1:4222 (see $state_dir/nats.log)"; exit 1; }
log "NATS ready on 127.0.0.1:4222 (JetStream)"
