#!/bin/sh
wget -qO- localhost:8080/healthz
