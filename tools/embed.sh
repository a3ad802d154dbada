#!/bin/sh
# embed.sh SYMBOL FILE: prints a C definition of FILE's bytes, NUL-terminated.
set -e
sym=$1; file=$2
printf '/* generated from %s by tools/embed.sh; do not edit */\n' "$file"
printf 'const char %s[] = {\n' "$sym"
od -An -v -tx1 "$file" | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g' -e 's/^/\t/'
printf '\t0x00\n};\n'
