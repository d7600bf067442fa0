#!/usr/bin/env bash
# The timing snapshot (designs/tests/testdata/timing_snapshot*) is re-blessed only in a commit
# of its own, whose message gives the reason (issue 25): a commit that changes the snapshot
# and anything else fails this check. Commits up to 2017721 (before the rule) are not checked.
set -euo pipefail
cd "$(dirname "$0")/.."
since=2017721f3ce614819d902ce3cca2aa2ee03f9866
snap='designs/tests/testdata/timing_snapshot'
if git cat-file -e "$since^{commit}" 2>/dev/null; then
  range="$since..HEAD"
else
  range=HEAD # a shallow clone: check the commits it has
fi
bad=0
for c in $(git rev-list "$range" -- "$snap.jsonl" "${snap}_gtx480.toml" "${snap}_rtx2060.toml"); do
  others=$(git diff-tree --no-commit-id --name-only -r "$c" | grep -v "^$snap" || true)
  if [ -n "$others" ]; then
    echo "commit $(git log --format='%h %s' -1 "$c") re-blesses the timing snapshot together with:"
    echo "$others" | sed 's/^/  /'
    bad=1
  fi
done
if [ "$bad" -ne 0 ]; then
  echo "re-bless the snapshot in a commit of its own, with the reason in its message"
  exit 1
fi
echo "ok"
