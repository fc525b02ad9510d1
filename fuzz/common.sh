# Shared by .ci/fuzz (fixed seed, fixed run counts: the same commit gives the same verdict) and
# scripts/fuzz-explore (random seeds, long runs: finds new crashes before you stop). Source it
# with $root set to the top of the checkout. It defines:
#   fuzz_targets                 every target of fuzz/CMakeLists.txt, one a line
#   fuzz_build BUILD_DIR         configures (unless it is configured with the fuzzers on) and builds
#                                the fuzzers (clang, ASan + UBSan) and the CLI
#   fuzz_seeds BUILD_DIR OUT     the seed corpus of every target into OUT/<target>/ (deterministic:
#                                the fixtures, plus JSON dumps by the instrumented CLI)
#   fuzz_regressions TARGET      the committed regression inputs of TARGET, one path a line, sorted
#   fuzz_print_artifacts PREFIX  every crash input PREFIX* in full, gzip + base64, for replay
#   fuzz_parallel JOBS FN T...   FN T for each T, JOBS at a time (FN records its own failures)
#   fuzz_options, fuzz_env       the libFuzzer flags and sanitizer settings of every run

fuzz_targets() {
  sed -n '/^set(BLOOMCODEC_FUZZERS/,/)/p' "$root/fuzz/CMakeLists.txt" | grep -o '[a-z0-9_]*_fuzzer'
}

fuzz_build() {
  local build=$1 generator=() launcher=()
  if command -v ninja >/dev/null; then generator=(-G Ninja); fi
  # ccache, when present, keeps a rebuild after a small change (or in another worktree) short.
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  # A directory already configured with the fuzzers on is built as it is: .ci/run's sanitizer
  # build (build-asan: the tests and the fuzzers on one instrumented library) is fuzzed in place.
  if ! grep -q '^BLOOMCODEC_BUILD_FUZZERS:BOOL=ON$' "$build/CMakeCache.txt" 2>/dev/null; then
    cmake -S "$root" -B "$build" "${generator[@]}" "${launcher[@]}" -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
      -DBLOOMCODEC_BUILD_FUZZERS=ON -DBLOOMCODEC_BUILD_TESTS=OFF >/dev/null
  fi
  cmake --build "$build" -j"$(nproc)" --target fuzzers bloomcodec_cli
}

fuzz_seeds() {
  # The instrumented CLI dumps a few fixtures as JSON seeds for undump_fuzzer and convert_fuzzer.
  BLOOMCODEC_CLI="$1/tools/bloomcodec" bash "$root/fuzz/seed-corpus" "$2" >/dev/null
}

fuzz_regressions() {
  local dir="$root/fuzz/regressions/$1"
  [[ -d $dir ]] || return 0
  find "$dir" -type f | LC_ALL=C sort
}

fuzz_print_artifacts() {
  local a
  for a in "$1"*; do
    [[ -e $a ]] || continue
    # The whole input, so that it can be replayed from the log alone:
    #   base64 -d | gunzip > crash; build-fuzz/fuzz/TARGET crash
    # Into a variable first: no reader of a pipe stops early, so no SIGPIPE cuts the report.
    local encoded
    encoded=$(gzip -9nc < "$a" | base64 -w 100)
    echo "---- $a ($(stat -c %s "$a") bytes; gzip, base64):"
    printf '%s\n' "$encoded"
  done
}

fuzz_parallel() {
  local jobs=$1 fn=$2 t
  shift 2
  for t in "$@"; do
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
    "$fn" "$t" &
  done
  wait
}

# libFuzzer options both scripts use. -rss_limit_mb / -malloc_limit_mb: an input of at most a
# few hundred KB that makes a decoder allocate hundreds of MB is a finding (allocation from an
# unchecked header field).
fuzz_options=(-timeout=20 -rss_limit_mb=1536 -malloc_limit_mb=256 -print_final_stats=1)
fuzz_env=(ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
          UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
