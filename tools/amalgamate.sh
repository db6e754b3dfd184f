#!/bin/sh
# Builds rcloth.h from src/*.h: the prologue, then every part's public half (above the line
# "/* ==== IMPLEMENTATION ==== */") in file order, then every part's implementation half inside
# #ifdef RCLOTH_IMPLEMENTATION, then the license. Written atomically.
set -e
cd "$(dirname "$0")/.."
out=rcloth.h
tmp=$(mktemp rcloth.h.XXXXXX)
cat src/prologue.txt > "$tmp"
printf '#ifndef RCLOTH_H\n#define RCLOTH_H\n\n' >> "$tmp"
for f in src/[0-9]*.h; do awk '/^\/\* ==== IMPLEMENTATION ==== \*\/$/{exit} {print}' "$f" >> "$tmp"; echo >> "$tmp"; done
printf '#endif /* RCLOTH_H */\n\n#ifdef RCLOTH_IMPLEMENTATION\n#ifndef RCLOTH_IMPLEMENTATION_DONE\n#define RCLOTH_IMPLEMENTATION_DONE\n\n' >> "$tmp"
for f in src/[0-9]*.h; do awk 'p{print} /^\/\* ==== IMPLEMENTATION ==== \*\/$/{p=1}' "$f" >> "$tmp"; echo >> "$tmp"; done
printf '#endif /* RCLOTH_IMPLEMENTATION_DONE */\n#endif /* RCLOTH_IMPLEMENTATION */\n\n' >> "$tmp"
cat src/license.txt >> "$tmp"
mv "$tmp" "$out"
