#!/bin/sh
# Runs a test under a virtual X server; 77 (skipped) without xvfb-run.
command -v xvfb-run >/dev/null 2>&1 || { echo "xvfb-run not found: skipped"; exit 77; }
exec xvfb-run -a -s "-screen 0 1280x1024x24" "$@"
