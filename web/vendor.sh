#!/usr/bin/env bash
# Re-vendors mermaid.js from the npm registry at the exact version that
# package.json pins, checks the tarball's integrity against the pinned hash,
# and copies the built browser bundle and its licence under static/vendor.
# Run from any directory: bash web/vendor.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="$(sed -n 's/.*"mermaid": "\([0-9][0-9.]*\)".*/\1/p' "$here/package.json")"
integrity="sha512-4113TdXeLAsMruJ79OpFL5O8+LTFXhQqZ260rF3tgUmiNAtRm4Uume04I+65PRN6yZ69J4f8rVYWW8zRk65UYw=="
want_version="12.3.0"
if [ "$version" != "$want_version" ]; then
  echo "package.json pins mermaid $version but vendor.sh knows the integrity of $want_version only" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "mermaid@$version" >/dev/null)
tgz="$tmp/mermaid-$version.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$got" != "$integrity" ]; then
  echo "mermaid-$version.tgz integrity $got, want $integrity" >&2
  exit 1
fi
tar -xzf "$tgz" -C "$tmp" package/dist/mermaid.min.js package/LICENSE
dest="$here/static/vendor/mermaid"
mkdir -p "$dest"
cp "$tmp/package/dist/mermaid.min.js" "$dest/mermaid.min.js"
cp "$tmp/package/LICENSE" "$dest/LICENSE"
sha="$(sha256sum "$dest/mermaid.min.js" | cut -d' ' -f1)"
printf 'mermaid %s from the npm registry (%s)\nsha256 of mermaid.min.js: %s\n' "$version" "$integrity" "$sha" > "$dest/VERSION"
echo "vendored mermaid $version into $dest"
