#!/bin/bash

VARIANT_TYPE=java SCRIPT_NAME=$0 ./start_presto_helper.sh "$@"
