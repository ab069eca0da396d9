#!/usr/bin/env bash
# Installs podman (with runc), debootstrap, Python's YAML module and podman-compose (pip), and
# configures podman for these machines: crun fails here on cgroups, so podman runs containers with
# runc, and its default ulimits (which runc cannot set here) are cleared. Safe to run again: it installs only what is missing and
# edits /etc/containers/containers.conf only when a setting is absent.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
python3 -c 'import yaml' >/dev/null 2>&1 || missing+=(python3-yaml)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]} with apt-get"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v podman-compose >/dev/null 2>&1; then
    echo "installing podman-compose with pip"
    python3 -m pip install --quiet podman-compose
fi

conf=/etc/containers/containers.conf
as_root mkdir -p /etc/containers
as_root touch "$conf"
# add_setting TABLE KEY VALUE: sets KEY under [TABLE] unless the file already sets KEY there.
add_setting() {
    as_root python3 - "$conf" "$1" "$2" "$3" <<'PY'
import re, sys
path, table, key, value = sys.argv[1:]
text = open(path).read()
lines = text.splitlines()
header = f"[{table}]"
start = next((i for i, line in enumerate(lines) if line.strip() == header), None)
if start is None:
    lines += ["", header, f"{key} = {value}"]
else:
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"\s*\[", lines[i])), len(lines))
    if any(re.match(rf"\s*{re.escape(key)}\s*=", line) for line in lines[start + 1:end]):
        sys.exit(0)
    lines.insert(start + 1, f"{key} = {value}")
open(path, "w").write("\n".join(lines).lstrip("\n") + "\n")
print(f"{path}: [{table}] {key} = {value}")
PY
}
add_setting containers default_ulimits '[]'
add_setting engine runtime '"runc"'
