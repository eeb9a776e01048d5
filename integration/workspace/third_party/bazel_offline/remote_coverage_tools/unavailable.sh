#!/bin/sh
echo "remote_coverage_tools: bazel coverage is not available offline (stub)" >&2
exit 1
