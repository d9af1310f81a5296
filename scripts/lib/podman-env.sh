# The podman set-up both stack tests use (scripts/compose-test.sh,
# scripts/scale-test.sh), sourced: root, the tools, and podman configured for
# this machine (runc, cgroupfs, vfs storage under $work shared with the image
# build, netavark). The caller sets `work` and `die` first; afterwards
# `scratch` is a fresh folder holding the two configuration files, and
# CONTAINERS_CONF and CONTAINERS_STORAGE_CONF point at them.

podman_env() {
  [ "$(id -u)" = 0 ] || die "run as root (podman with vfs storage shared with the image build)"
  local tool
  for tool in podman podman-compose buildah netavark iptables; do
    command -v "$tool" >/dev/null || [ -x "/usr/lib/podman/$tool" ] || [ -x "/usr/sbin/$tool" ] || die "$tool is missing: apt-get install podman podman-compose buildah debootstrap netavark aardvark-dns runc iptables"
  done
  scratch=$(mktemp -d)
  mkdir -p "$work"
  cat > "$scratch/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"

[network]
network_backend = "netavark"
CONF
  cat > "$scratch/storage.conf" <<CONF
[storage]
driver = "vfs"
graphroot = "$work/storage"
runroot = "$work/run"
CONF
  export CONTAINERS_CONF="$scratch/containers.conf" CONTAINERS_STORAGE_CONF="$scratch/storage.conf"
}
