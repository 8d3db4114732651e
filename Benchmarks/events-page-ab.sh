#!/usr/bin/env bash
# `GET /api/events?limit=50` from two builds side by side, beside nginx serving the same 16 KB static file as
# `make bench` (Benchmarks/run.sh) in the same run: wrk rounds alternate nginx, build A, build B, so the machine's
# load weighs on all three alike. Both servers answer from copies of one history file filled by two real
# `passconsole flow login` runs (build A writes it; build B migrates its copy), and must send the same bytes.
#
#   Benchmarks/events-page-ab.sh OLD_BINARY NEW_BINARY
#
# Environment: ROUNDS [3]  DURATION [10s]  THREADS [2]  CONNECTIONS [64]  CONFIG [Config/demo.json]
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
A=${1:?usage: $0 OLD_BINARY NEW_BINARY}
B=${2:?usage: $0 OLD_BINARY NEW_BINARY}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
CONFIG=${CONFIG:-Config/demo.json}
CLK_TCK=$(getconf CLK_TCK)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/events-page-ab.XXXXXX")
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

port() { echo $((20000 + RANDOM % 10000)); }
wait_http() { for _ in $(seq 100); do curl -s -o /dev/null --max-time 1 "$1" && return 0; sleep 0.2; done; echo "no answer on $1" >&2; exit 1; }
ticks() {
    local total=0 pid
    for pid in "$@"; do total=$((total + $(sed 's/^.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }'))); done
    echo "$total"
}
# wrk against $1 with server PIDs $2…: prints "req/s µs-CPU/req"
measure() {
    local url=$1
    shift
    local before after out requests
    before=$(ticks "$@")
    out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "$url")
    after=$(ticks "$@")
    requests=$(awk '$2 == "requests" && $3 == "in" { print $1; exit }' <<<"$out")
    awk -v r="$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' <<<"$out")" -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$requests" \
        'BEGIN { printf "%s %.1f\n", r, t * 1e6 / hz / n }'
}
serve() {  # binary, history file, name → sets SERVE_PID, SERVE_URL, SERVE_BACKEND
    local p=$(port) b=$(port)
    "$1" serve --port "$p" --backend-port "$b" --config "$CONFIG" --public-dir Public --no-demo \
        --device "$WORK/device-$3" --history "$2" >"$WORK/$3.log" 2>&1 &
    SERVE_PID=$!
    PIDS+=("$SERVE_PID")
    SERVE_URL=http://127.0.0.1:$p
    SERVE_BACKEND=http://127.0.0.1:$b
    wait_http "$SERVE_URL/index.html"
}

# The history: two real flows reported to build A's console.
serve "$A" "$WORK/history.sqlite" fill
for user in carol alice; do
    "$A" flow login --backend "$SERVE_BACKEND" --requestor REF30 --mvpd "$([[ $user == carol ]] && echo Dish || echo Cablevision)" \
        --user "$user" --password "${user}123" --device "$WORK/flow-$user" --report-to "$SERVE_URL" >"$WORK/flow-$user.log" 2>&1 \
        || { echo "flow login as $user failed:" >&2; tail -5 "$WORK/flow-$user.log" >&2; exit 1; }
done
sleep 1
kill "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true
# With its write-ahead log: a console stopped by a signal leaves its last commits there.
for copy in a b; do
    cp "$WORK/history.sqlite" "$WORK/$copy.sqlite"
    if [[ -f $WORK/history.sqlite-wal ]]; then cp "$WORK/history.sqlite-wal" "$WORK/$copy.sqlite-wal"; fi
done

# nginx on the same 16 KB asset as run.sh.
mkdir -p "$WORK/public" "$WORK/nginx"
echo "// PassConsole benchmark asset: a console script of typical size." >"$WORK/public/app.js"
for ((i = 0; $(wc -c <"$WORK/public/app.js") < 16384; i++)); do
    printf 'export function render%d(e){const r=document.createElement("tr");r.dataset.id=e.id;r.textContent=`${e.time} ${e.kind} ${e.path}`;return r}\n' "$i" >>"$WORK/public/app.js"
done
NGINX_PORT=$(port)
cat >"$WORK/nginx/nginx.conf" <<NGINX
$([[ $(id -u) == 0 ]] && echo "user $(id -un) $(id -gn);")
worker_processes $(nproc);
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
    types { application/javascript js; }
    access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
    client_body_temp_path $WORK/nginx/cb; proxy_temp_path $WORK/nginx/p; fastcgi_temp_path $WORK/nginx/f;
    uwsgi_temp_path $WORK/nginx/u; scgi_temp_path $WORK/nginx/s;
    server { listen 127.0.0.1:$NGINX_PORT; root $WORK/public; }
}
NGINX
nginx -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" -g "daemon off;" &
NGINX_PID=$!
PIDS+=("$NGINX_PID")
wait_http "http://127.0.0.1:$NGINX_PORT/app.js"
NGINX_PIDS="$NGINX_PID $(pgrep -P "$NGINX_PID" | tr '\n' ' ')"

serve "$A" "$WORK/a.sqlite" a
A_PID=$SERVE_PID A_URL=$SERVE_URL
serve "$B" "$WORK/b.sqlite" b
B_PID=$SERVE_PID B_URL=$SERVE_URL
API="/api/events?limit=50"
curl -fsS "$A_URL$API" >"$WORK/a.json"
curl -fsS "$B_URL$API" >"$WORK/b.json"
if cmp -s "$WORK/a.json" "$WORK/b.json"; then same="identical"; else same="DIFFERENT"; fi
# Two flows report ~40 events: a page much smaller than that measures an empty history, not the page.
if (($(wc -c <"$WORK/a.json") < 10000)); then echo "the page holds too few events: $(head -c 300 "$WORK/a.json")" >&2; exit 1; fi
echo "GET $API: $(wc -c <"$WORK/a.json") B from A, $(wc -c <"$WORK/b.json") B from B ($same); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| round | nginx /app.js req/s (µs CPU/req) | A req/s (µs CPU/req) | B req/s (µs CPU/req) | A / nginx | B / nginx |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for round in $(seq "$ROUNDS"); do
    read -r n_rps n_cpu < <(measure "http://127.0.0.1:$NGINX_PORT/app.js" $NGINX_PIDS)
    read -r a_rps a_cpu < <(measure "$A_URL$API" "$A_PID")
    read -r b_rps b_cpu < <(measure "$B_URL$API" "$B_PID")
    awk -v r="$round" -v n="$n_rps" -v nc="$n_cpu" -v a="$a_rps" -v ac="$a_cpu" -v b="$b_rps" -v bc="$b_cpu" \
        'BEGIN { printf "| %s | %d (%.1f) | %d (%.1f) | %d (%.1f) | %.2f | %.2f |\n", r, n, nc, a, ac, b, bc, a / n, b / n }'
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
