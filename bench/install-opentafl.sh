#!/usr/bin/env bash
# Builds OpenTafl (https://github.com/jslater89/OpenTafl) from its public source, outside
# this repository, so Kingstable can be played against it over the OpenTafl Engine
# Protocol in both directions. OpenTafl is GPL: it is only ever run as a separate program,
# never vendored here, and nothing in Kingstable's build or CI needs it.
#
#   bench/install-opentafl.sh [DIR]     # default DIR: ${OPENTAFL_DIR:-$HOME/.local/share/opentafl}
#
# Needs git, a JDK (Debian: default-jdk-headless) and Debian's libini4j-java,
# libjline2-java and libjsonp-java (installed with apt-get when missing, if run as root).
# OPENTAFL_SRC may name a clone to build from instead of cloning from GitHub;
# OPENTAFL_COMMIT the commit (default: 6895051, v0.4.8.0b, the version the recorded
# conversations in crates/protocol/tests/data/opentafl/ come from).
#
# Afterwards DIR/opentafl runs OpenTafl from DIR (it keeps its settings and logs there):
#
#   kingstable match --game fetlar --engine1 level:3 --engine2 "otep:DIR/opentafl --engine" \
#       --movetime 2s --games 2
#
# Kingstable's Copenhagen counts a third repetition a win for the attackers; OpenTafl's
# Copenhagen makes whoever causes it lose: add --repetition mover-loses to referee by
# OpenTafl's rule.
set -euo pipefail
dir=${1:-${OPENTAFL_DIR:-$HOME/.local/share/opentafl}}
commit=${OPENTAFL_COMMIT:-6895051}
jars=(/usr/share/java/ini4j.jar /usr/share/java/jline2.jar /usr/share/java/javax.json.jar)

missing=()
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
[ -e "${jars[0]}" ] || missing+=(libini4j-java)
[ -e "${jars[1]}" ] || missing+=(libjline2-java)
[ -e "${jars[2]}" ] || missing+=(libjsonp-java)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get install -y "${missing[@]}"
    else
        echo "install first: ${missing[*]} (e.g. sudo apt-get install ${missing[*]})" >&2
        exit 1
    fi
fi

mkdir -p "$dir"
if [ ! -d "$dir/src/.git" ]; then
    git clone --quiet "${OPENTAFL_SRC:-https://github.com/jslater89/OpenTafl.git}" "$dir/src"
fi
git -C "$dir/src" checkout --quiet "$commit"

echo "compiling OpenTafl $(git -C "$dir/src" log -1 --format=%h) into $dir/classes…"
classpath="$dir/src/lib/lanterna.jar:$(IFS=:; echo "${jars[*]}")"
rm -rf "$dir/classes"
mkdir -p "$dir/classes"
find "$dir/src/src" -name '*.java' >"$dir/sources.txt"
# OpenTafl (written for Java 8) uses two JDK-internal packages.
exports=(--add-exports java.xml/com.sun.org.apache.xerces.internal.impl.dv.util=ALL-UNNAMED
    --add-exports java.base/sun.net=ALL-UNNAMED)
javac -nowarn -encoding UTF-8 "${exports[@]}" -d "$dir/classes" -cp "$classpath" \
    @"$dir/sources.txt" 2>"$dir/javac.log" \
    || { cat "$dir/javac.log" >&2; exit 1; }
cp -r "$dir/src/engines" "$dir/" 2>/dev/null || true

cat >"$dir/opentafl" <<EOF
#!/bin/sh
# OpenTafl, built from $commit by Kingstable's bench/install-opentafl.sh.
cd "$dir" && exec java ${exports[*]} -Xss8m -cp "$dir/classes:$classpath" com.manywords.softworks.tafl.OpenTafl "\$@"
EOF
chmod +x "$dir/opentafl"
echo "installed: $dir/opentafl (an OTEP engine with --engine)"
