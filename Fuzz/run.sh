#!/usr/bin/env bash
# `make fuzz`: FUZZ_SECONDS (default 60) for each libFuzzer target, then as long for schemathesis against the console's
# own /openapi.json on a `passconsole serve` with the demo configuration on free ports, and against the backend's
# REST API v2 (docs/openapi/rest-api-v2.json). Prints a summary table
# (also in .build/fuzz/summary.md); exits non-zero when a target crashed, schemathesis saw a server error, or the
# served process stopped answering. Findings stay in .build/fuzz/artifacts and .build/fuzz/schemathesis.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
SECONDS_EACH=${FUZZ_SECONDS:-60}
OUT=.build/fuzz
TARGETS=${FUZZ_TARGETS:-"FuzzRequest FuzzTokenXML FuzzStorageImport FuzzFilterQuery FuzzRESTAuthorization"}
FLAGS=(-c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)
mkdir -p "$OUT/artifacts" "$OUT/corpus"
summary="$OUT/summary.md"
failed=0

echo "==> building the libFuzzer targets (Fuzz/, -sanitize=fuzzer,address)"
$SWIFT build --package-path Fuzz --scratch-path "$OUT" "${FLAGS[@]}" || exit 1
bin=$($SWIFT build --package-path Fuzz --scratch-path "$OUT" "${FLAGS[@]}" --show-bin-path)

{
  echo "| target | seconds | executions | exec/s | corpus | crashes |"
  echo "| --- | --- | --- | --- | --- | --- |"
} > "$summary"
for target in $TARGETS; do
  echo "==> $target for $SECONDS_EACH s"
  mkdir -p "$OUT/corpus/$target"
  before=$(ls "$OUT/artifacts" | grep -c "^$target-" || true)
  ASAN_OPTIONS=detect_leaks=0 "$bin/$target" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -detect_leaks=0 \
    -max_len=8192 -rss_limit_mb=3072 -timeout=10 -artifact_prefix="$OUT/artifacts/$target-" \
    "$OUT/corpus/$target" "Fuzz/Seeds/$target" > "$OUT/$target.log" 2>&1
  status=$?
  executions=$(awk '/stat::number_of_executed_units/ {print $2}' "$OUT/$target.log")
  rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$OUT/$target.log")
  crashes=$(( $(ls "$OUT/artifacts" | grep -c "^$target-" || true) - before ))
  corpus=$(ls "$OUT/corpus/$target" | wc -l)
  echo "| $target | $SECONDS_EACH | ${executions:-?} | ${rate:-?} | $corpus | $crashes |" >> "$summary"
  if [ "$status" -ne 0 ] || [ "$crashes" -gt 0 ]; then
    failed=1
    echo "!! $target stopped (exit $status); see $OUT/$target.log"
    grep -m5 -E "Fatal error|ERROR: |SUMMARY" "$OUT/$target.log"
  fi
done

echo "==> schemathesis against the console's /openapi.json"
venv="$OUT/venv"
if [ ! -x "$venv/bin/schemathesis" ]; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q 'schemathesis>=4,<5' || exit 1
fi
$SWIFT build --product passconsole || exit 1
serve=$($SWIFT build --show-bin-path)/passconsole
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port); backend_port=$(free_port)
work="$OUT/schemathesis"; rm -rf "$work"; mkdir -p "$work"
"$serve" serve --port "$port" --backend-port "$backend_port" --config Config/demo.json --device "$work/device" \
  --history "$work/history.sqlite" --access-token-file "$work/access-token" > "$work/serve.log" 2>&1 &
pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 100); do curl -sf "$base/api/overview" > "$work/overview.json" && break; sleep 0.2; done
csrf=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["csrfToken"])' "$work/overview.json") || {
  echo "!! passconsole serve did not start; see $work/serve.log"; kill "$pid"; exit 1; }
"$venv/bin/schemathesis" run "$base/openapi.json" --url "$base" -H "X-PassConsole-CSRF: $csrf" --checks all \
  --max-time "$SECONDS_EACH" --seed 14 --continue-on-failure --report junit --report-junit-path "$work/junit.xml" \
  --request-timeout 30 --warnings off > "$work/schemathesis.log" 2>&1
st_status=$?
tail -40 "$work/schemathesis.log"
alive=yes
if ! kill -0 "$pid" 2>/dev/null || ! curl -sf "$base/api/overview" > /dev/null || \
   ! curl -sf "http://127.0.0.1:$backend_port/adobe-services/1.0/config/REF30" > /dev/null; then
  alive=no; failed=1
fi
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
server_errors=$(grep -c "Server error" "$work/schemathesis.log" || true)
[ "$server_errors" -gt 0 ] && failed=1
python3 - "$work/junit.xml" "$st_status" "$alive" "$server_errors" >> "$summary" <<'EOF'
import sys, xml.etree.ElementTree as ET
path, status, alive, server_errors = sys.argv[1:]
try:
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    tests = sum(int(s.get("tests", 0)) for s in suites)
    failures = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
except Exception as error:
    tests, failures = "?", f"? ({error})"
print()
print(f"schemathesis: {tests} operations tested, {failures} with a failed check (exit {status}), "
      f"{server_errors} server errors; process alive afterwards: {alive}")
EOF
# REST API v2 of the backend (docs/openapi/rest-api-v2.json) with an access token of the demo's REF30 app. Every check
# but positive_data_acceptance: the vendor answers 400 to a well-formed code nobody issued or an MVPD without a
# profile, which a generator cannot know (docs/rest-api-v2.md §3).
echo "==> schemathesis against the backend's REST API v2 (docs/openapi/rest-api-v2.json)"
bport=$(free_port)
v2work="$OUT/schemathesis-v2"; rm -rf "$v2work"; mkdir -p "$v2work"
"$serve" backend --port "$bport" --config Config/demo.json > "$v2work/backend.log" 2>&1 &
bpid=$!
bbase="http://127.0.0.1:$bport"
for _ in $(seq 100); do curl -sf "$bbase/adobe-services/1.0/config/REF30" > /dev/null && break; sleep 0.2; done
token=$(python3 - "$bbase" <<'PY'
import json, sys, urllib.request, urllib.parse
base = sys.argv[1]
def post(path, data, kind):
    request = urllib.request.Request(base + path, data=data, headers={"Content-Type": kind}, method="POST")
    return json.load(urllib.request.urlopen(request))
client = post("/o/client/register", json.dumps({"software_statement": "demo-software-statement"}).encode(), "application/json")
form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": client["client_id"], "client_secret": client["client_secret"]})
print(post("/o/client/token", form.encode(), "application/x-www-form-urlencoded")["access_token"])
PY
) || { echo "!! could not register with the backend; see $v2work/backend.log"; failed=1; }
"$venv/bin/schemathesis" run docs/openapi/rest-api-v2.json --url "$bbase" -H "Authorization: Bearer $token" --checks all \
  --exclude-checks positive_data_acceptance --max-time "$SECONDS_EACH" --seed 14 --continue-on-failure --request-timeout 30 \
  --warnings off > "$v2work/schemathesis.log" 2>&1
v2_status=$?
tail -20 "$v2work/schemathesis.log"
if ! kill -0 "$bpid" 2>/dev/null || ! curl -sf "$bbase/adobe-services/1.0/config/REF30" > /dev/null; then failed=1; v2alive=no; else v2alive=yes; fi
kill "$bpid" 2>/dev/null; wait "$bpid" 2>/dev/null
[ "$v2_status" -ne 0 ] && failed=1
echo "schemathesis REST API v2: exit $v2_status; backend alive afterwards: $v2alive (log: $v2work/schemathesis.log)" >> "$summary"

echo; cat "$summary"
exit $failed
