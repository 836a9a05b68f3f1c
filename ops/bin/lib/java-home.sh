# Sourced by the project's scripts (.ci/run, run-platform, ops/bin/*): exports JAVA_HOME as a JDK 21 or
# newer: the one given if it qualifies, else the newest under /usr/lib/jvm; stops with a hint otherwise.

java_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'
}

is_jdk_21_or_newer() {
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] && [ "$(java_major "$1")" -ge 21 ] 2>/dev/null
}

if [ -z "${JAVA_HOME:-}" ] || ! is_jdk_21_or_newer "$JAVA_HOME"; then
  best="" best_major=0
  for candidate in /usr/lib/jvm/*; do
    if is_jdk_21_or_newer "$candidate"; then
      major="$(java_major "$candidate")"
      if [ "$major" -gt "$best_major" ]; then
        best="$candidate" best_major="$major"
      fi
    fi
  done
  if [ -z "$best" ]; then
    echo "No JDK 21 or newer found (JAVA_HOME=${JAVA_HOME:-unset}, nothing suitable in /usr/lib/jvm)." >&2
    echo "Install one, or point JAVA_HOME at it, e.g. export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64" >&2
    exit 1
  fi
  export JAVA_HOME="$best"
fi
export JAVA_HOME
