#!/usr/bin/env bash
# Ship-it checks, run by .ci/run after the tests (needs the release build of
# mpit-conform and mpit-reference):
#   1. the release binary copied alone into an empty directory, with the checkout's
#      specs/ moved away, runs --lib (same results as the in-tree run), list, coverage,
#      catalog, specs export and fuzz-props;
#   2. `cargo install --path harness --root <tmp>` (the GitHub action's install step, run
#      from action.yml itself) gives a working mpit-conform, run from another directory;
#   3. the gate script every integration runs (scripts/mpit-gate.sh), through the shell
#      lines of action.yml, docs/ci/gitlab-ci.yml and docs/ci/Jenkinsfile: against the
#      reference with a baseline and a waiver (exit 0), and against a reference fault
#      (exit 1, the JUnit file has the failure);
#   4. the Containerfile's build steps (no container engine runs here: no daemon, and
#      its base images are on a registry this machine does not reach): the files its
#      COPY lines name, alone in a new directory, built with its RUN line, give a binary
#      that runs standalone.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
bin=$repo/target/release/mpit-conform
ref=$repo/target/release/libmpit_reference.so
[ -x "$bin" ] && [ -f "$ref" ] || { echo "ci-integrations: build the release first" >&2; exit 2; }

tmp=$(mktemp -d)
restore() {
  [ -d "$tmp/specs.hidden" ] && mv "$tmp/specs.hidden" "$repo/specs"
  rm -rf "$tmp"
}
trap restore EXIT
fail() { echo "ci-integrations: FAIL: $*" >&2; exit 1; }
same_results() { # old.json new.json
  local d
  d=$("$bin" diff "$1" "$2" | grep -E '^[0-9]+ new fails') || true
  [[ $d == "0 new fails, 0 new crashes/timeouts, 0 new errors, 0 fixed, 0 changed, 0 only in new, 0 only in old,"* ]] \
    || fail "results differ from the in-tree run: $d"
}

echo "== 1. the binary alone, the checkout's specs/ moved away"
"$bin" --lib "$ref" -q --out "$tmp/intree" >/dev/null
mkdir -p "$tmp/alone" "$tmp/elsewhere"
cp "$bin" "$tmp/alone/mpit-conform"
cp "$ref" "$tmp/alone/libmpit_reference.so"
mv "$repo/specs" "$tmp/specs.hidden"
(
  cd "$tmp/elsewhere"
  a=$tmp/alone/mpit-conform
  # Outputs are captured whole, then searched (grep -q would cut a pipe short).
  has() { [[ $1 == *"$2"* ]]; }
  has "$("$a" --version)" "spec bundle sha256:" || fail "--version names no spec bundle"
  "$a" --lib "$tmp/alone/libmpit_reference.so" -q --out "$tmp/alone-run" >/dev/null
  has "$("$a" list)" " cases" || fail "list"
  has "$("$a" coverage)" "MUST" || fail "coverage"
  has "$("$a" catalog --lib "$tmp/alone/libmpit_reference.so")" "ref_cvar_int_local" || fail "catalog"
  has "$("$a" specs export "$tmp/exported")" "files written" || fail "specs export"
  "$a" fuzz-props --lib "$tmp/alone/libmpit_reference.so" --cases 16 --out "$tmp/props" >/dev/null \
    || fail "fuzz-props"
)
mv "$tmp/specs.hidden" "$repo/specs"
# Where strace is there, also prove the copy opens nothing under the checkout.
if command -v strace >/dev/null 2>&1; then
  (cd "$tmp/elsewhere" && strace -f -qq -e trace=open,openat,stat,newfstatat,statx,access -o "$tmp/trace" \
    "$tmp/alone/mpit-conform" --lib "$tmp/alone/libmpit_reference.so" -q --out "$tmp/traced" >/dev/null)
  ! grep -F "\"$repo/" "$tmp/trace" | grep -v ENOENT >/dev/null || fail "the copy opened files of the checkout: $(grep -F "\"$repo/" "$tmp/trace" | head -3)"
  echo "ok: under strace, the copy opened nothing under $repo"
else
  echo "note: no strace here; the checkout's specs/ were moved away instead"
fi
same_results "$tmp/intree/report.json" "$tmp/alone-run/report.json"
grep -q '"source": "bundled"' "$tmp/alone-run/report.json" || fail "report.json names no bundled specs"
diff -r "$repo/specs" "$tmp/exported" >/dev/null || fail "specs export differs from specs/"
echo "ok: standalone run, list, coverage, catalog, specs export, fuzz-props"

echo "== 2. the action's install step (cargo install --path harness --root <tmp>)"
# The shell lines of action.yml with GitHub's expressions filled in as a runner would.
action_run() { # step name -> its run: line, expressions substituted
  awk -v step="$1" '
    $0 ~ "- name: " step { on = 1; next }
    on && /- name:/ { on = 0 }
    on && /run:/ { sub(/^ *run: */, ""); print; exit }' action.yml |
    sed -e "s|\${{ github.action_path }}|$repo|g"
}
install=$(action_run "Install mpit-conform")
[ -n "$install" ] || fail "action.yml has no install step"
export RUNNER_TEMP=$tmp GITHUB_PATH=$tmp/github_path
# The install reuses this build (same sources, same target directory): no rebuild.
(export CARGO_TARGET_DIR=$repo/target; eval "$install") >/dev/null 2>&1 || fail "cargo install: $install"
installed=$tmp/mpit/bin/mpit-conform
[ -x "$installed" ] || fail "cargo install put no mpit-conform in $tmp/mpit/bin"
grep -qx "$tmp/mpit/bin" "$GITHUB_PATH" || fail "the action does not add the install dir to PATH"
(
  cd "$tmp/elsewhere"
  has() { [[ $1 == *"$2"* ]]; }
  "$installed" --lib "$ref" -q --out "$tmp/installed-run" >/dev/null
  has "$("$installed" list)" " cases" || fail "installed: list"
  has "$("$installed" coverage)" "MUST" || fail "installed: coverage"
  has "$("$installed" catalog --lib "$ref")" "ref_cvar_int_local" || fail "installed: catalog"
  "$installed" fuzz-props --lib "$ref" --cases 16 --out "$tmp/props2" >/dev/null || fail "installed: fuzz-props"
)
same_results "$tmp/intree/report.json" "$tmp/installed-run/report.json"
echo "ok: installed with cargo install: --lib (same results), list, coverage, catalog, fuzz-props from another directory"

echo "== 3. the gate script through the action, GitLab and Jenkins"
mkdir -p "$tmp/gate-bin"
ln -s "$installed" "$tmp/gate-bin/mpit-conform"
ln -s "$repo/scripts/mpit-gate.sh" "$tmp/gate-bin/mpit-gate"
cat >"$tmp/waivers.yaml" <<'W'
- case: "strings.cvar.name.sizes"
  target: "*libmpit_reference*"
  reason: "a waiver the clean reference does not need (listed as unmatched)"
W
gate_run() { # integration, expected exit, fault
  local how=$1 want=$2 fault=$3 out=$tmp/gate-$1-$2 rc=0 cmd
  case $how in
    action) cmd=$(action_run "Run the MPI_T conformance suite") ;;
    gitlab) cmd=$(awk '/^  script:/ { on = 1; next } on && /^    - / { sub(/^    - /, ""); print; exit }' docs/ci/gitlab-ci.yml) ;;
    jenkins) cmd=$(grep -oE "sh '[^']+'" docs/ci/Jenkinsfile | head -1 | sed -e "s/^sh '//" -e "s/'$//") ;;
  esac
  [ -n "$cmd" ] || fail "$how: no gate command found"
  (
    cd "$tmp/elsewhere"
    export PATH="$tmp/gate-bin:$PATH" MPIT_LIB=$ref MPIT_BASELINE=$tmp/intree/report.json \
      MPIT_WAIVERS=$tmp/waivers.yaml MPIT_STRICT=false MPIT_OUT=$out MPIT_ARGS="-q" \
      MPIT_SUMMARY=$tmp/summary-$how.md MPIT_REFERENCE_FAULTS=$fault
    eval "$cmd"
  ) >"$tmp/gate-$how.log" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || { cat "$tmp/gate-$how.log" >&2; fail "$how: exit $rc, want $want ($cmd)"; }
  for f in report.json report.html report.md junit.xml; do
    [ -f "$out/$f" ] || fail "$how: no $f"
  done
  if [ "$want" = 1 ]; then
    grep -q '<failure' "$out/junit.xml" || fail "$how: the JUnit file has no failure"
  fi
}
for how in action gitlab jenkins; do
  gate_run "$how" 0 ""
  gate_run "$how" 1 "trunc-len-off-by-one"
done
grep -q "| \*\*all\*\* |" "$tmp/summary-action.md" || fail "action: no report.md in the step summary"
echo "ok: action, GitLab and Jenkins gates: clean 0, with a fault 1 and a JUnit failure"

echo "== 4. the Containerfile's build steps, outside a container"
ctx=$tmp/container
mkdir -p "$ctx"
# The build stage's COPY lines (not --from): only those files go in.
awk '/^FROM / { stage++ } stage == 1 && /^COPY / && !/--from/ { for (i = 2; i < NF; i++) print $i }' Containerfile |
  while read -r src; do cp -r "$repo/$src" "$ctx/"; done
run=$(awk '/^FROM / { stage++ } stage == 1 && /^RUN / { sub(/^RUN /, ""); print }' Containerfile)
[ -n "$run" ] || fail "Containerfile: no RUN line in the build stage"
# This build's target directory: the registry crates are reused (their builds do not
# depend on where the workspace is), the workspace's own crates are built from the copy.
(cd "$ctx" && CARGO_TARGET_DIR=$repo/target eval "$run") >"$tmp/container-build.log" 2>&1 \
  || { tail -5 "$tmp/container-build.log" >&2; fail "Containerfile RUN: $run"; }
mkdir -p "$tmp/image/usr/local/bin"
cp "$repo/target/release/mpit-conform" "$tmp/image/usr/local/bin/"
(cd "$tmp/elsewhere" && "$tmp/image/usr/local/bin/mpit-conform" --lib "$ref" -q --out "$tmp/image-run" >/dev/null)
same_results "$tmp/intree/report.json" "$tmp/image-run/report.json"
echo "ok: the Containerfile's COPY and RUN steps build a binary that runs standalone"
