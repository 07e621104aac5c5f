#!/usr/bin/env bash
# Builds htsim (Broadcom/csg-htsim, the trimming paper's simulator) from its
# public source and runs its NDP incast and archsim's copy of it
# (configs/scenarios/htsim-incast-*.yaml) back to back, alternating, then
# prints each simulator's median wall time and the ratio.
#
#   scripts/htsim-vs-archsim.sh [RUNS]          (default 7 runs of each)
#
# HTSIM_SRC may name a local checkout (or a bare mirror) of csg-htsim;
# otherwise it is cloned from GitHub into .cache/htsim. HTSIM_REV pins the
# commit (default 841d9e7, the one the README's numbers were taken at).
# Needs git, make, g++ and go.
#
# The workload: 63 senders, one 512 KiB or 2 MiB NDP flow each, to one
# receiver through one 64-port switch; 4000 B packets, window 50, 35-packet
# queues, 100 Gb/s, 1 us links. htsim does not count its switch hops; both
# simulators send the same data packets (checked below: htsim's New + Rtx
# against archsim's data_sent), so the ratio of wall times is the ratio of
# switch packet-hops per second, and htsim's hops/s is printed as archsim's
# hop count over htsim's time.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
runs=${1:-7}
rev=${HTSIM_REV:-841d9e7}
cache=$root/.cache/htsim
mkdir -p "$cache"

# --- htsim source and build ---------------------------------------------
src=$cache/src
if [ ! -x "$src/sim/datacenter/htsim_ndp" ]; then
  rm -rf "$src" && mkdir -p "$src"
  repo=${HTSIM_SRC:-}
  if [ -z "$repo" ]; then
    repo=$cache/repo.git
    [ -d "$repo" ] || git clone --quiet --bare https://github.com/Broadcom/csg-htsim "$repo"
  fi
  # Only sim/ is needed (the experiments/ tree holds large data files).
  git -C "$repo" archive "$rev" sim | tar -x -C "$src"
  echo "building htsim $rev (sim/, then sim/datacenter/htsim_ndp) ..." >&2
  make -C "$src/sim" -j"$(nproc)" >"$cache/build.log" 2>&1
  make -C "$src/sim/datacenter" -j"$(nproc)" htsim_ndp >>"$cache/build.log" 2>&1
fi
htsim=$src/sim/datacenter/htsim_ndp

# One 64-port switch: a two-tier fat-tree file whose ToR has 64 host ports
# and one uplink (oversubscribed 64:1) to a spine nobody's traffic uses.
work=$cache/run
mkdir -p "$work"
cat >"$work/one-switch.topo" <<'EOF'
Nodes 64
Tiers 2
Podsize 64
Tier 0
Downlink_speed_Gbps 100
Radix_Down 64
Radix_Up 1
Oversubscribed 64
Downlink_Latency_ns 1000
Tier 1
Downlink_speed_Gbps 100
Radix_Down 1
Downlink_Latency_ns 1000
EOF
for size in 512k:528000 2m:2100000; do
  name=${size%%:*} bytes=${size##*:}
  { echo "Nodes 64"; echo "Connections 63"
    for i in $(seq 1 63); do echo "$i->0 id $i start 0 size $bytes"; done; } >"$work/incast-$name.cm"
done

# Start-up and set-up of each simulator, timed on the same topology and
# flows with (almost) nothing to simulate: htsim with the 63 flows cut to
# one packet each, archsim with the 2 MiB scenario cut to 1 us. The second
# ratio subtracts them.
{ echo "Nodes 64"; echo "Connections 63"
  for i in $(seq 1 63); do echo "$i->0 id $i start 0 size 4000"; done; } >"$work/empty.cm"
sed 's/^duration_us: .*/duration_us: 1/' configs/scenarios/htsim-incast-2m.yaml >"$work/empty.yaml"

# --- archsim build -------------------------------------------------------
go build -o "$cache/archsim" ./cmd/archsim
archsim=$cache/archsim

now_ns() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

printf '%s, %s cores, %s runs each (alternating)\n\n' "$(date -u +%Y-%m-%d)" "$(nproc)" "$runs"
: >"$work/h0.t"; : >"$work/Ideal0.t"; : >"$work/Tofino0.t"
for _ in $(seq "$runs"); do
  t0=$(now_ns); (cd "$work" && "$htsim" -strat perm -q 35 -mtu 4000 -cwnd 50 -nodes 64 -conns 63 -seed 13 -end 100000 \
    -topo "$work/one-switch.topo" -tm "$work/empty.cm" -o "$work/htsim.log" >/dev/null 2>&1); t1=$(now_ns); echo $(( t1 - t0 )) >>"$work/h0.t"
  for variant in Ideal Tofino; do
    t0=$(now_ns); "$archsim" run --scenario "$work/empty.yaml" --variant "$variant" --jobs 1 --no-files --quiet --json >/dev/null; t1=$(now_ns); echo $(( t1 - t0 )) >>"$work/$variant"0.t
  done
done
h0=$(median <"$work/h0.t")
printf 'start-up and set-up (nothing to simulate): htsim %.4f s, archsim Ideal %.4f s, Tofino %.4f s (placing ndp.p4)\n\n' \
  "$(awk -v x="$h0" 'BEGIN{print x/1e9}')" "$(median <"$work/Ideal0.t" | awk '{print $1/1e9}')" "$(median <"$work/Tofino0.t" | awk '{print $1/1e9}')"
printf '%-22s %12s %12s %12s %14s %14s %8s %10s\n' workload "htsim s" "archsim s" "data pkts" "htsim hops/s" "archsim hops/s" "ratio" "sim ratio"
for name in 512k 2m; do
  hs_cmd=("$htsim" -strat perm -q 35 -mtu 4000 -cwnd 50 -nodes 64 -conns 63 -seed 13 -end 100000
          -topo "$work/one-switch.topo" -tm "$work/incast-$name.cm" -o "$work/htsim.log")
  # htsim writes idmap.txt into its working directory: run it in $work.
  out=$(cd "$work" && "${hs_cmd[@]}" 2>&1)
  hs_pkts=$(sed -n 's/^New: \([0-9]*\) Rtx: \([0-9]*\).*/\1 \2/p' <<<"$out" | awk '{print $1+$2}')
  for variant in Ideal Tofino; do
    as_cmd=("$archsim" run --scenario "htsim-incast-$name" --variant "$variant" --jobs 1 --no-files --quiet --json)
    json=$("${as_cmd[@]}")
    as_pkts=$(grep -m1 '"data_sent"' <<<"$json" | tr -dc 0-9)
    as_hops=$("$archsim" bench --only "htsim-incast-$name/$variant" --in-process --json | grep -m1 '"switch_hops"' | tr -dc 0-9)
    : >"$work/h.t"; : >"$work/a.t"
    for _ in $(seq "$runs"); do
      t0=$(now_ns); (cd "$work" && "${hs_cmd[@]}" >/dev/null 2>&1); t1=$(now_ns); echo $(( t1 - t0 )) >>"$work/h.t"
      t0=$(now_ns); "${as_cmd[@]}" >/dev/null; t1=$(now_ns); echo $(( t1 - t0 )) >>"$work/a.t"
    done
    h=$(median <"$work/h.t") a=$(median <"$work/a.t") a0=$(median <"$work/$variant"0.t)
    awk -v w="$name $variant" -v h="$h" -v a="$a" -v hp="$hs_pkts" -v ap="$as_pkts" -v hops="$as_hops" -v h0="$h0" -v a0="$a0" 'BEGIN {
      printf "%-22s %12.4f %12.4f %6d/%-6d %14.0f %14.0f %7.2fx %9.2fx\n", w, h/1e9, a/1e9, hp, ap, hops/(h/1e9), hops/(a/1e9), h/a, (h-h0)/(a-a0) }'
  done
done
echo
echo "data pkts: htsim New+Rtx / archsim data_sent. ratio: htsim wall / archsim wall (above 1: archsim is faster)."
echo "sim ratio: the same with each simulator's start-up and set-up subtracted (its run with nothing to simulate)."
