# Sourced by the commands in ops/bin: moves to the repository, finds a JDK 21+ (java-home.sh) and defines run_main,
# the one way a command builds its module and starts a main class of it.
#
#   run_main MODULE_DIR MAIN_CLASS [JVM_OPTION...] -- [ARGUMENT...]
#
# Builds MODULE_DIR and what it depends on (./mvnw install -pl MODULE_DIR -am, tests skipped), writes its runtime
# classpath to MODULE_DIR/target/runtime.classpath, then execs the JVM, so that Ctrl-C and SIGTERM reach it. An
# argument --skip-build skips the build when the module was built before; every other argument goes to the main class.
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
source ops/bin/lib/java-home.sh

run_main() {
  local module="$1" main_class="$2"
  shift 2
  local jvm_options=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    jvm_options+=("$1")
    shift
  done
  [ $# -gt 0 ] && shift
  local args=() build=true
  for arg in "$@"; do
    if [ "$arg" = "--skip-build" ]; then build=false; else args+=("$arg"); fi
  done
  local classpath_file="$module/target/runtime.classpath"
  if $build || [ ! -f "$classpath_file" ]; then
    echo "$(basename "$0"): building $module with JAVA_HOME=$JAVA_HOME ..." >&2
    ./mvnw -B -q -DskipTests -Dspotless.check.skip=true install -pl "$module" -am
    ./mvnw -B -q -pl "$module" dependency:build-classpath -Dmdep.includeScope=runtime \
      -Dmdep.outputFile=target/runtime.classpath >/dev/null
  fi
  exec "$JAVA_HOME/bin/java" ${jvm_options[@]+"${jvm_options[@]}"} \
    -cp "$module/target/classes:$(cat "$classpath_file")" "$main_class" ${args[@]+"${args[@]}"}
}
