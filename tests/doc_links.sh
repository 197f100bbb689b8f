#!/bin/sh
# doc_links.sh ROOT — every file the repository's Markdown points to exists.
#
# Checks every *.md file under ROOT (build*/, results/ and .git/ left out):
#
# 1. Links. Every inline link [text](TARGET) whose TARGET is not a URL (a scheme such as
#    http:, https:, mailto:) and not a bare anchor (#...) must name an existing file or
#    folder, relative to the Markdown file's own folder; "#anchor" and "?query" tails are
#    dropped first.
# 2. Cited paths. Every `code span` that looks like a path to a file of the repository
#    must exist, relative to ROOT (or, failing that, to the Markdown file's folder). A
#    span looks like such a path when it is one word of [A-Za-z0-9_./+-] holding a '/',
#    and either starts with ./ or ../ or starts with a top-level entry of ROOT (lib/,
#    solvers/, papers/, tests/, ...), and its last part has an extension or the span ends
#    with '/'. So `solvers/vbd.c` is checked, and so is a path starting with ../ .
# A link or path that leaves the repository (../ past ROOT) fails even when it exists
# beside this checkout: a user's clone has nothing beside it.
# 3. Markdown names. Every word ending in .md outside a URL (`DESIGN.md`, or DESIGN.md in
#    plain prose) must exist, relative to the Markdown file's folder or to ROOT.
#
# Left alone: fenced code blocks (``` ... ```), which hold commands and output; paths
# that runs write, under results/, build/, build-asan/ or build-fuzz/; the tutorial's own
# folder mine/ (files the reader writes, ignored by git); absolute paths
# (/proc/...); and templates, spans holding * ? < > { } $ … or "..." or a placeholder
# in capitals as a whole part or between '_' and '.' (linear_NAME.c): NAME, TARGET,
# SPEC, DIR, RUN, FILE, SCENE, SOLVER, CONFIG, JOB, TASK, HASH, KIND.
#
# Prints one line per dangling reference, "file:line: what", and exits 1 if there is any.
set -u
ROOT=${1:?usage: doc_links.sh ROOT}
cd "$ROOT" || exit 2
root=$(pwd -P)

tops=$(ls -A | grep -v -e '^build' -e '^results$' -e '^mine$' -e '^\.git$' | tr '\n' ' ')

find . \( -name .git -o -name 'build*' -o -name results \) -prune -o -name '*.md' -print |
  sed 's|^\./||' | sort | {
  bad=0
  while IFS= read -r md; do
    dir=$(dirname "$md")
    # One candidate per line: "LINE<TAB>link<TAB>TARGET" or "LINE<TAB>path<TAB>SPAN".
    out=$(awk -v tops="$tops" '
      BEGIN { n = split(tops, t, " "); for (i = 1; i <= n; i++) top[t[i]] = 1 }
      /^[ \t]*```/ { fenced = !fenced; next }
      fenced { next }
      {
        line = $0
        s = line
        while (match(s, /\]\([^) \t]+\)/)) {
          target = substr(s, RSTART + 2, RLENGTH - 3)
          s = substr(s, RSTART + RLENGTH)
          if (target ~ /^[A-Za-z][A-Za-z0-9+.-]*:/ || target ~ /^#/) continue
          sub(/[#?].*$/, "", target)
          if (target != "") print NR "\tlink\t" target
        }
        s = line
        while (match(s, /`[^`]+`/)) {
          span = substr(s, RSTART + 1, RLENGTH - 2)
          s = substr(s, RSTART + RLENGTH)
          if (span !~ /^[A-Za-z0-9_.\/+-]+$/ || span !~ /\//) continue
          if (span ~ /\.\.\./) continue
          first = span; sub(/\/.*$/, "", first)
          if (span !~ /^\.\.?\// && !(first in top)) continue
          if (first == "results" || first ~ /^build/) continue
          last = span; sub(/^.*\//, "", last)
          if (span !~ /^\.\.?\// && last != "" && last !~ /\.[A-Za-z0-9]+$/) continue
          m = split(span, part, "/"); ph = 0
          for (i = 1; i <= m; i++) {
            if (part[i] ~ /(^|_)(NAME|TARGET|SPEC|DIR|RUN|FILE|SCENE|SOLVER|CONFIG|JOB|TASK|HASH|KIND)($|[_.])/) ph = 1
          }
          if (!ph) print NR "\tpath\t" span
        }
        s = line
        gsub(/[A-Za-z][A-Za-z0-9+.-]*:\/\/[^ \t)>]*/, "", s)
        gsub(/\[[^]]*\]\([^) \t]+\)/, "", s)
        while (match(s, /[A-Za-z0-9_.\/-]+\.md([^A-Za-z0-9_]|$)/)) {
          name = substr(s, RSTART, RLENGTH)
          s = substr(s, RSTART + RLENGTH)
          sub(/[^A-Za-z0-9_]$/, "", name)
          if (name ~ /^(results|build)/ || name ~ /^\//) continue
          print NR "\tpath\t" name
        }
      }' "$md" | awk '!seen[$0]++')
    [ -n "$out" ] || continue
    while IFS="$(printf '\t')" read -r ln kind target; do
      # Nothing outside the repository counts, even when it exists beside this checkout:
      # a ../ path must land inside ROOT from the Markdown file's folder (or, for a cited
      # path, from ROOT) and exist there.
      case $target in
        ../*) found=0 inside=0
              for base in "$dir" .; do
                [ "$kind" = link ] && [ "$base" = . ] && continue
                where=$(realpath -m "$base/$target")
                case $where in
                  "$root"/*) inside=1; [ -e "$where" ] && found=1 ;;
                esac
              done
              [ $found = 1 ] && continue
              if [ $inside = 0 ]; then
                echo "$md:$ln: '$target' lies outside the repository"
              else
                echo "$md:$ln: cites '$target', which does not exist"
              fi
              bad=1; continue ;;
      esac
      case $kind in
        link) [ -e "$dir/$target" ] && continue
              echo "$md:$ln: link to '$target', which does not exist" ;;
        path) { [ -e "$target" ] || [ -e "$dir/$target" ]; } && continue
              echo "$md:$ln: cites '$target', which does not exist" ;;
      esac
      bad=1
    done <<EOF
$out
EOF
  done
  exit $bad
}
