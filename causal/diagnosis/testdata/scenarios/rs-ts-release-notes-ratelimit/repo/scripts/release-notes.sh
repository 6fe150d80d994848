#!/usr/bin/env bash
# Lists the pull requests merged since the last tag, for the canary's notes.
set -euo pipefail

repo="${GITHUB_REPOSITORY:-quartzui/quartz}"
since=$(git describe --tags --abbrev=0)
since_date=$(git log -1 --format=%cI "$since")

resp=$(curl -sS -H "Accept: application/vnd.github+json" \
  "https://api.github.com/search/issues?q=repo:${repo}+is:pr+is:merged+merged:>${since_date}&per_page=100")
if ! jq -e '.items' >/dev/null <<<"$resp"; then
  echo "GitHub API request failed: $(jq -r '.message // "no message"' <<<"$resp")" >&2
  exit 1
fi

echo "## Changes since ${since}"
jq -r '.items[] | "- \(.title) (#\(.number)) @\(.user.login)"' <<<"$resp"
