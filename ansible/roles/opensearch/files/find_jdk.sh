#!/bin/sh
# Print the home of the newest JDK >= $2 (and <= $3 when given and not 0) under $1 (Temurin preferred
# on equal versions); nothing if none.
search_dir="$1"
min_major="$2"
max_major="${3:-0}"
best_home=""
best_rank=0
for java in "$search_dir"/*/bin/java; do
  [ -x "$java" ] || continue
  home=$(dirname "$(dirname "$java")")
  [ -L "$home" ] && continue
  version=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n 1)
  major=${version%%.*}
  case "$major" in ''|*[!0-9]*) continue ;; esac
  [ "$major" -ge "$min_major" ] || continue
  [ "$max_major" -eq 0 ] || [ "$major" -le "$max_major" ] || continue
  rank=$((major * 10))
  case "$home" in *temurin*) rank=$((rank + 1)) ;; esac
  if [ "$rank" -gt "$best_rank" ]; then
    best_rank=$rank
    best_home=$home
  fi
done
printf '%s\n' "$best_home"
