#!/bin/sh
# retry runs a command up to 5 times.
n=0
until "$@"; do
  n=$((n+1))
  [ "$n" -ge 5 ] && exit 1
  sleep $((n * 2))
done
