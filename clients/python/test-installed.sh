#!/usr/bin/env bash
# The Python client's tests against the INSTALLED package: a fresh virtual environment (no system
# site-packages), `pip install` of clients/python (pyzmq from PyPI or pip's cache; the build backend,
# setuptools >= 77, from the environment when it has one, else pip fetches it), then unittest from a
# directory where the source is not importable. With TICKWIRE_TEST_STACK=1 the stack tests run too
# (see clients/python/README.md).
# Ends with "N passed, N failed"; exits non-zero when a test failed or the install did.
#   PYTHON=python3.12 clients/python/test-installed.sh      # another interpreter (>= 3.11)
set -euo pipefail

PYTHON="${PYTHON:-python3}"
package="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$package/../.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/tickwire-python-client.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "== the Python client, installed into a fresh virtual environment ($("$PYTHON" --version 2>&1))"
"$PYTHON" -m venv "$work/venv"
python="$work/venv/bin/python"

# pip builds a local directory in place (build/, *.egg-info): install a clean copy, so the tree stays
# untouched and no file left in a build/ folder by an earlier build can slip into the package.
mkdir "$work/package"
tar -C "$package" --exclude=./build --exclude='*.egg-info' --exclude=__pycache__ -cf - . | tar -C "$work/package" -xf -
install=(-m pip install --quiet --disable-pip-version-check)
# The environment's setuptools builds the wheel when it is recent enough for pyproject.toml (>= 77, SPDX
# license); else pip fetches one (from PyPI, or its cache) into an isolated build environment.
if "$python" -c 'import setuptools, sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' 2>/dev/null; then
    install+=(--no-build-isolation)
fi
"$python" "${install[@]}" "$work/package"

# From $work, with no PYTHONPATH: only the installed package is importable.
cd "$work"
status=0
env -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 TICKWIRE_ROOT="${TICKWIRE_ROOT:-$root}" \
    "$python" -m unittest discover --start-directory "$package/tests" --top-level-directory "$package/tests" -v \
    >"$work/report" 2>&1 || status=$?
cat "$work/report"

ran="$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$work/report" | tail -1)"
count() {  # a number of unittest's closing "OK (skipped=4)" or "FAILED (failures=1, errors=2)", else 0
    local number
    number="$(sed -n "s/^\(OK\|FAILED\) (.*\b$1=\([0-9]*\).*/\2/p" "$work/report" | tail -1)"
    echo "${number:-0}"
}
failed=$(( $(count failures) + $(count errors) + $(count 'unexpected successes') ))
skipped=$(( $(count skipped) + $(count 'expected failures') ))
if [ -z "$ran" ]; then
    ran=0 failed=$(( failed > 0 ? failed : 1 ))  # unittest did not get to run the tests
fi
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1
fi
if [ "$skipped" -gt 0 ]; then
    echo "$skipped skipped (the reasons are above)"
fi
echo "$(( ran - failed - skipped < 0 ? 0 : ran - failed - skipped )) passed, $failed failed"
exit $(( failed > 0 ? 1 : 0 ))
