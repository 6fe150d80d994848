#!/bin/sh
set -eu
curl -fsS https://10.0.0.1/healthz
