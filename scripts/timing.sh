# Sourced by scripts/test and .ci/run: `timed NAME COMMAND...` runs COMMAND, then prints its wall
# time and the CPU time (user + system) of every process it started and waited for, and appends
# "NAME<TAB>wall<TAB>CPU" to $BLOOMCODEC_TIME_LOG when that is set (.ci/run's summary). The CPU
# time says what a step costs even when other work shares the cores; the wall time is what one
# waits. A failing COMMAND still prints its times, then its status is returned.

# Sets cpu_now to the CPU seconds (user + system) of this shell's finished children so far. Not a
# function whose output is captured: `times` in a subshell would count the subshell's children.
cpu_now=0
take_cpu_now() {
  local f
  f=$(mktemp)
  times >"$f"
  cpu_now=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%.2f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$f")
  rm -f "$f"
}

timed() {
  local name=$1 start cpu0 status=0 wall cpu
  shift
  start=$(date +%s.%N)
  take_cpu_now
  cpu0=$cpu_now
  "$@" || status=$?
  take_cpu_now
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
  cpu=$(awk -v a="$cpu0" -v b="$cpu_now" 'BEGIN { printf "%.0f", b - a }')
  echo "time: $name: $wall s wall, $cpu s CPU$( ((status == 0)) || echo " (failed: exit $status)")"
  if [[ -n ${BLOOMCODEC_TIME_LOG:-} ]]; then
    printf '%s\t%s\t%s\t%s\n' "$name" "$wall" "$cpu" "$status" >>"$BLOOMCODEC_TIME_LOG"
  fi
  return "$status"
}
