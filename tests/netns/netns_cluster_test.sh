#!/usr/bin/env bash
# The three-task cluster (ps/0, worker/0, worker/1) with every task in its own network
# namespace, so each has its own address and nothing can lean on a shared loopback:
#
#   caflow-<pid>-ps  10.200.X.1 ──┐
#   caflow-<pid>-w0  10.200.X.2 ──┼── br0 in caflow-<pid>-hub, 10.200.X.10: runs the client
#   caflow-<pid>-w1  10.200.X.3 ──┘
#
# caflow-example --target caflow://10.200.X.2:PORT then runs W on ps, MatMul on worker 1 and
# the rest on worker 0, and must print the values worked out by hand in apps/example_main.cpp.
#
#   netns_cluster_test.sh CAFLOW_SERVER CAFLOW_EXAMPLE
#
# Exit 0: passed. 77: skipped (not root, or network namespaces unavailable here). Else failed.
# The bridge lives in a namespace of its own rather than on the host, so host firewall rules
# (br_netfilter) cannot drop the traffic and deleting the namespaces removes every link.
set -uo pipefail

readonly skip=77
if (($# != 2)); then
  echo "usage: $0 CAFLOW_SERVER CAFLOW_EXAMPLE" >&2
  exit 2
fi
readonly server_bin=$1 example_bin=$2
for bin in "$server_bin" "$example_bin"; do
  [[ -x $bin ]] || { echo "FAIL: $bin is not an executable" >&2; exit 1; }
done

if (($(id -u) != 0)); then
  echo "SKIP: network namespaces need root (running as uid $(id -u))"
  exit $skip
fi
if ! command -v ip >/dev/null 2>&1; then
  echo "SKIP: the ip command (iproute2) is not installed"
  exit $skip
fi

# Each namespace is fresh, so a fixed port is free in it; the /24 is private to these
# namespaces (no host address, no route out), so X only keeps parallel runs' logs distinct.
readonly port=2222
readonly net="10.200.$(($$ % 256))"
readonly hub="caflow-$$-hub"
readonly tasks=(ps:0 worker:0 worker:1)
readonly task_ns=("caflow-$$-ps" "caflow-$$-w0" "caflow-$$-w1")
readonly task_addr=("$net.1" "$net.2" "$net.3")
readonly start_timeout_s=20 client_timeout_s=45 stop_timeout_s=5

workdir=$(mktemp -d "${TMPDIR:-/tmp}/caflow-netns.XXXXXX") || { echo "FAIL: mktemp" >&2; exit 1; }
created_ns=()
server_pids=()
client_pid=

# Waits until process $1 has exited (bash reaps its children as they exit) or until
# $SECONDS reaches $2; returns 1 if it is still running.
wait_gone() {
  local pid=$1 deadline=$2
  while kill -0 "$pid" 2>/dev/null; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

# Stops and reaps every server: SIGTERM, then SIGKILL for any still running after
# $stop_timeout_s in all. Returns 1 unless every one exited 0 on its own.
stop_servers() {
  local pid status clean=0 deadline=$((SECONDS + stop_timeout_s))
  for pid in "${server_pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${server_pids[@]}"; do
    if ! wait_gone "$pid" "$deadline"; then
      kill -KILL "$pid" 2>/dev/null
      clean=1
    fi
    wait "$pid" 2>/dev/null
    status=$?
    ((status == 0)) || clean=1
  done
  server_pids=()
  return $clean
}

# Runs on every exit: stops and reaps the client and every server, then deletes the
# namespaces, which takes their veths and the bridge with them.
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -n $client_pid ]]; then
    kill -TERM "$client_pid" 2>/dev/null
    wait "$client_pid" 2>/dev/null  # bounded: timeout SIGKILLs the client 5 s after a signal
  fi
  stop_servers
  local ns
  for ns in "${created_ns[@]}"; do
    ip netns delete "$ns" 2>/dev/null || echo "warning: could not delete namespace $ns" >&2
  done
  rm -rf "$workdir"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

show_logs() {
  local i
  for i in "${!tasks[@]}"; do
    echo "---- server ${tasks[$i]} (${task_ns[$i]}, ${task_addr[$i]}:$port) ----"
    cat "$workdir/server$i.log" 2>/dev/null
  done
}

fail() {
  echo "FAIL: $*"
  show_logs
  exit 1
}

# Setting up the network may be forbidden (containers without CAP_SYS_ADMIN, no veth or
# bridge support): that is this machine's limit, not caflow's, so it skips.
net_step() {
  local out
  if ! out=$("$@" 2>&1); then
    echo "SKIP: cannot set up network namespaces here: '$*' failed: ${out//$'\n'/ }"
    exit $skip
  fi
}

for ns in "$hub" "${task_ns[@]}"; do
  net_step ip netns add "$ns"
  created_ns+=("$ns")
  net_step ip -n "$ns" link set lo up
done
net_step ip -n "$hub" link add br0 type bridge
net_step ip -n "$hub" addr add "$net.10/24" dev br0
net_step ip -n "$hub" link set br0 up
for i in "${!task_ns[@]}"; do
  net_step ip -n "$hub" link add "veth$i" type veth peer name eth0 netns "${task_ns[$i]}"
  net_step ip -n "$hub" link set "veth$i" master br0
  net_step ip -n "$hub" link set "veth$i" up
  net_step ip -n "${task_ns[$i]}" addr add "${task_addr[$i]}/24" dev eth0
  net_step ip -n "${task_ns[$i]}" link set eth0 up
done

readonly cluster="ps=${task_addr[0]}:$port;worker=${task_addr[1]}:$port,${task_addr[2]}:$port"
# `ip netns exec` execs the command in place, so $! is the server itself.
for i in "${!tasks[@]}"; do
  ip netns exec "${task_ns[$i]}" "$server_bin" --insecure --cluster "$cluster" \
    --job "${tasks[$i]%:*}" --task "${tasks[$i]#*:}" \
    --intra-op-threads 1 --inter-op-threads 1 --peer-wait-ms 15000 \
    >"$workdir/server$i.log" 2>&1 </dev/null &
  server_pids+=($!)
done

deadline=$((SECONDS + start_timeout_s))
for i in "${!tasks[@]}"; do
  expected="serving at caflow://${task_addr[$i]}:$port"
  until grep -qF "$expected" "$workdir/server$i.log"; do
    kill -0 "${server_pids[$i]}" 2>/dev/null || fail "server ${tasks[$i]} exited before '$expected'"
    ((SECONDS < deadline)) || fail "no '$expected' from ${tasks[$i]} within ${start_timeout_s} s"
    sleep 0.1
  done
done

# In the background so that `wait` (unlike a command substitution) lets a SIGTERM to this
# script run the cleanup at once; timeout passes the signal on to the client.
target="caflow://${task_addr[1]}:$port"
timeout --kill-after=5 "$client_timeout_s" \
  ip netns exec "$hub" "$example_bin" --target "$target" >"$workdir/client.log" 2>&1 </dev/null &
client_pid=$!
wait "$client_pid"
client_rc=$?
client_pid=
client_out=$(<"$workdir/client.log")
echo "$client_out"
((client_rc != 124 && client_rc != 137)) ||
  fail "caflow-example --target $target took over ${client_timeout_s} s"
((client_rc == 0)) || fail "caflow-example --target $target exited with $client_rc"
for want in "round 0): float32[3,2] {1.5, 1.5, 3.5, 3.5, 11.5, 15.5}" \
            "round 1): float32[3,2] {2.5, 2.5, 4.5, 4.5, 16.5, 20.5}"; do
  grep -qF "$want" <<<"$client_out" || fail "caflow-example did not print '$want'"
done
for i in "${!tasks[@]}"; do
  kill -0 "${server_pids[$i]}" 2>/dev/null || fail "server ${tasks[$i]} died during the run"
done
stop_servers || fail "a server did not stop cleanly on SIGTERM within ${stop_timeout_s} s"
echo "PASS: tasks at ${task_addr[*]} (namespaces ${task_ns[*]}) computed the hand-checked values"
