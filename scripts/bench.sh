#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark the three kernels with tests/guest/bench.c: fork+execve+wait
# with an empty and a five-capability ambient set, prctl(PR_CAP_AMBIENT)
# IS_SET, capget+capset and setresuid round trips.
#
#   bench.sh            ROUNDS rounds (default 3); each boots every kernel once,
#                       the order rotating, so that machine noise hits all alike
#   SMOKE=1 bench.sh    one round of a few short batches: proves the benchmark
#                       runs and reports, in seconds
#
# BATCHES and BATCH_MS override the guest's batches per benchmark and the
# length of one batch. The guests get the host's TSC frequency on their
# command line (TSC_KHZ overrides it): under TCG the guest's TSC runs at
# the host's rate, and a guest that fails to calibrate it on a busy host
# falls back to a jiffies clock that would quantise every batch. Writes to build/bench (build/bench/smoke for SMOKE=1):
# table.txt (medians per benchmark and kernel, ratios with their spread),
# results.json, bench.png and raw/ (the guest's lines, one file per boot).
#
# The figures are reported, never compared with a threshold: the run fails
# only when a guest fails or reports nothing.
. "$(dirname "$0")/lib.sh"

SMOKE=${SMOKE:-}
if [ -n "$SMOKE" ]; then
	ROUNDS=${ROUNDS:-1} BATCHES=${BATCHES:-3} BATCH_MS=${BATCH_MS:-10}
	OUT=$BUILD/bench/smoke
	TAG=bench-smoke
else
	ROUNDS=${ROUNDS:-3} BATCHES=${BATCHES:-11} BATCH_MS=${BATCH_MS:-60}
	OUT=$BUILD/bench
	TAG=bench
fi
PAYLOAD=${PAYLOAD:-$BUILD/payload}
export PAYLOAD
RAW=$OUT/raw

# The pairs whose ratios are reported: the product against both others,
# and upstream's own cost of the set for comparison.
PAIRS="ambient/stock ambient/pre-ambient stock/pre-ambient"

build() {
	local k
	for k in $FLAVOURS; do
		"$TOP/scripts/kernel.sh" "$k" ||
			die "building the $k kernel failed" "run make kernel KERNEL=$k and read its log"
	done
	"$TOP/scripts/payload.sh" || die "building the initramfs failed" "run make payload"
	command -v gnuplot >/dev/null || die "gnuplot is missing" "run make deps (package gnuplot-nox)"
}

# tsc_khz: the host's TSC frequency in kHz.
tsc_khz() {
	local khz=${TSC_KHZ:-}
	[ -n "$khz" ] ||
		khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
	[ "${khz:-0}" -gt 0 ] 2>/dev/null ||
		die "cannot tell the host's TSC frequency from /proc/cpuinfo" \
		    "set TSC_KHZ to it (kHz)"
	echo "$khz"
}

# order ROUND: the flavours rotated by ROUND - 1.
order() {
	local -a f
	read -ra f <<<"$FLAVOURS"
	local i n=${#f[@]}
	for ((i = 0; i < n; i++)); do
		printf '%s ' "${f[((i + $1 - 1) % n)]}"
	done
}

# check_raw FILE FLAVOUR: the guest finished and reported every benchmark,
# skipping only those that need an ambient set on a kernel without one.
check_raw() {
	awk -v k="$2" '
		function name(s) { sub(/^name=/, "", s); return s }
		$1 == "start" {
			start = 1; amb = ($3 == "ambient=yes")
			cs = $6; sub(/^clocksource=/, "", cs)
			if (cs !~ /^tsc/) { print "the guest clock is " cs ", not the TSC"; bad = 1 }
		}
		$1 == "end" { end = $2 }
		$1 == "result" { res[name($2)] = 1; nres++ }
		$1 == "batches" { bat[name($2)] = 1 }
		$1 == "skip" { skip[name($2)] = 1 }
		$1 == "error" { sub(/^error /, ""); print "guest error: " $0; bad = 1 }
		END {
			if (!start) { print "no start line"; exit 1 }
			if (end != "status=ok") { print "the guest reported " (end ? end : "no end line"); bad = 1 }
			if (!nres) { print "no results"; bad = 1 }
			for (b in res) if (!(b in bat)) { print b ": result without batches"; bad = 1 }
			for (b in skip) if (amb) { print b ": skipped on a kernel with an ambient set"; bad = 1 }
			exit bad
		}' "$1"
}

# boot FLAVOUR ROUND: run the benchmark in one VM, keep its lines.
boot() {
	local k=$1 r=$2 name=$TAG-$1-$2 log raw=$RAW/$1-$2.txt rc=0
	log=$LOGS/vm-$name.log
	VM_MODE=run VM_APPEND="tsc_early_khz=$KHZ tsc=reliable ambient.run=bench ambient.args=$BATCHES,$BATCH_MS" \
		"$TOP/scripts/vm.sh" "$name" "$OBJ/$k/arch/x86/boot/bzImage" \
		"$PAYLOAD/initramfs.cpio.gz" >"$RAW/$1-$2.vm" 2>&1 || rc=$?
	sed -n 's/^@@ bench //p' "$log" >"$raw" 2>/dev/null || : >"$raw"
	if [ $rc -ne 0 ]; then
		cat "$RAW/$1-$2.vm" >&2
		grep '^error' "$raw" >&2 || true
		die "the benchmark failed on $k (round $r)" "read $log"
	fi
	check_raw "$raw" "$k" >&2 ||
		die "the benchmark on $k (round $r) did not report as it must" "read $log"
	msg "round $r/$ROUNDS $k: $(grep -c '^result' "$raw") results," \
	    "$(grep -c '^skip' "$raw") skipped ($(grep -o '[0-9.]* s from start' "$RAW/$1-$2.vm" | cut -d' ' -f1) s)"
}

run_rounds() {
	local r k
	rm -rf "$RAW"
	mkdir -p "$RAW"
	for ((r = 1; r <= ROUNDS; r++)); do
		for k in $(order "$r"); do
			boot "$k" "$r"
		done
	done
}

# samples: BENCH KERNEL ROUND NS-PER-OP, one line per batch.
samples() {
	local k r
	for k in $FLAVOURS; do
		for ((r = 1; r <= ROUNDS; r++)); do
			awk -v k="$k" -v r="$r" -v OFS='\t' '$1 == "batches" {
				b = $2; sub(/^name=/, "", b); v = $3; sub(/^ns=/, "", v)
				n = split(v, a, ",")
				for (i = 1; i <= n; i++) print b, k, r, a[i]
			}' "$RAW/$k-$r.txt"
		done
	done
}

# quantiles KEYS: read samples sorted by the first KEYS fields then value;
# print KEY... N MEDIAN P25 P75 MIN MAX per group (the guest's method).
quantiles() {
	awk -F'\t' -v keys="$1" -v OFS='\t' '
		function q(p,   pos, i) {
			pos = p * (n - 1); i = int(pos)
			return i + 1 >= n ? v[n - 1] : v[i] + (pos - i) * (v[i + 1] - v[i])
		}
		function flush() {
			if (n) print key, n, q(0.5), q(0.25), q(0.75), v[0], v[n - 1]
			n = 0
		}
		{
			k = $1; for (i = 2; i <= keys; i++) k = k OFS $i
			if (k != key) { flush(); key = k }
			v[n++] = $NF
		}
		END { flush() }'
}

# stats: the pooled quantiles (stats.tsv) and the per-round medians
# (rounds.tsv) of every benchmark and kernel.
stats() {
	samples | cut -f1,2,4 | sort -t"$(printf '\t')" -k1,1 -k2,2 -k3,3g |
		quantiles 2 >"$OUT/stats.tsv"
	samples | sort -t"$(printf '\t')" -k1,1 -k2,2 -k3,3n -k4,4g |
		quantiles 3 | cut -f1-3,5 >"$OUT/rounds.tsv"
	[ -s "$OUT/stats.tsv" ] || die "no benchmark results at all" "read $RAW/*.vm"
}

# meta: KERNEL RELEASE AMBIENT(yes|no) from the guest's start lines, and
# BENCH KERNEL pa=N|skip: one line per benchmark and kernel.
meta() {
	local k
	for k in $FLAVOURS; do
		awk -v k="$k" -v OFS='\t' '$1 == "start" {
			sub(/^release=/, "", $2); sub(/^ambient=/, "", $3)
			print k, $2, $3; exit
		}' "$RAW/$k-1.txt"
	done >"$OUT/kernels.tsv"
	for k in $FLAVOURS; do
		awk -v k="$k" -v OFS='\t' '
			$1 == "result" { b = $2; sub(/^name=/, "", b); print b, k, $3 }
			$1 == "skip" { b = $2; sub(/^name=/, "", b); print b, k, "skip" }
		' "$RAW/$k-1.txt"
	done >"$OUT/state.tsv"
	awk -F'\t' '$3 == "no" && $1 != "pre-ambient" { bad = bad " " $1 }
		END { if (bad) { print "no prctl(PR_CAP_AMBIENT) on:" bad; exit 1 } }' \
		"$OUT/kernels.tsv" >&2 ||
		die "a kernel that must have the ambient set has none" \
		    "run make kselftest KERNEL=ambient (or stock)"
}

# report: the table, results.json and the gnuplot data files, from one awk
# over stats.tsv, rounds.tsv, state.tsv and kernels.tsv.
report() {
	awk -F'\t' -v flavours="$FLAVOURS" -v pairs="$PAIRS" -v out="$OUT" \
	    -v rounds="$ROUNDS" -v batches="$BATCHES" -v batch_ms="$BATCH_MS" \
	    -v smoke="${SMOKE:+true}" -v accel="$(cut -d' ' -f1 "$BUILD/accel" 2>/dev/null)" '
	FILENAME ~ /stats.tsv$/ {
		if (!($1 in seen)) { seen[$1] = 1; names[++nb] = $1 }
		g = $1 SUBSEP $2; n[g] = $3; med[g] = $4; p25[g] = $5; p75[g] = $6
		mn[g] = $7; mx[g] = $8; next
	}
	FILENAME ~ /rounds.tsv$/ { rm[$1, $2, $3] = $4; next }
	FILENAME ~ /state.tsv$/ {
		if (!($1 in seen)) { seen[$1] = 1; names[++nb] = $1 }
		st[$1, $2] = $3; next
	}
	FILENAME ~ /kernels.tsv$/ { rel[$1] = $2; amb[$1] = $3; next }
	function has(b, k) { return (b SUBSEP k) in med }
	function ratio(b, p,   a, c, r, lo, hi) {
		split(p, a, "/")
		if (!has(b, a[1]) || !has(b, a[2])) return 0
		R[b, p] = med[b, a[1]] / med[b, a[2]]
		RLO[b, p] = p25[b, a[1]] / p75[b, a[2]]
		RHI[b, p] = p75[b, a[1]] / p25[b, a[2]]
		lo = ""; hi = ""
		for (r = 1; r <= rounds; r++) {
			if (!((b, a[1], r) in rm) || !((b, a[2], r) in rm)) continue
			c = rm[b, a[1], r] / rm[b, a[2], r]
			if (lo == "" || c < lo) lo = c
			if (hi == "" || c > hi) hi = c
		}
		RRLO[b, p] = lo; RRHI[b, p] = hi
		return 1
	}
	function unit(b) { return med[b, K[1]] >= 100000 ? "us" : "ns" }
	function scale(b) { return unit(b) == "us" ? 1000 : 1 }
	function cell(b, k,   s) {
		if (!has(b, k)) return sprintf("%-24s", "skipped")
		s = scale(b)
		return sprintf("%-24s", sprintf("%.1f [%.1f-%.1f]", med[b, k] / s,
			p25[b, k] / s, p75[b, k] / s))
	}
	function rcell(b, p) {
		if (!((b SUBSEP p) in R)) return sprintf("%-20s", "-")
		return sprintf("%-20s", sprintf("%.3f [%.2f-%.2f]", R[b, p], RLO[b, p], RHI[b, p]))
	}
	function jnum(x) { return x == "" ? "null" : sprintf("%.4g", x) }
	END {
		nk = split(flavours, K, " "); np = split(pairs, P, " ")
		for (i = 1; i <= nb; i++) for (j = 1; j <= np; j++) ratio(names[i], P[j])

		# the table
		tab = out "/table.txt"
		printf "median per batch [p25-p75], %d round(s) x %d batches of ~%d ms per kernel (%s)\n", \
			rounds, batches, batch_ms, accel > tab
		printf "%-15s %-4s", "benchmark", "unit" > tab
		for (j = 1; j <= nk; j++) printf " %-24s", K[j] > tab
		for (j = 1; j <= np; j++) printf " %-20s", P[j] > tab
		printf "\n" > tab
		for (i = 1; i <= nb; i++) {
			b = names[i]
			printf "%-15s %-4s", b, unit(b) > tab
			for (j = 1; j <= nk; j++) printf " %s", cell(b, K[j]) > tab
			for (j = 1; j <= np; j++) printf " %s", rcell(b, P[j]) > tab
			printf "\n" > tab
		}
		printf "ratios: ratio of medians [p25(A)/p75(B) - p75(A)/p25(B)]\n" > tab
		for (j = 1; j <= nk; j++)
			printf "%s: %s, prctl(PR_CAP_AMBIENT) %s\n", K[j], rel[K[j]], \
				(amb[K[j]] == "yes" ? "present" : "EINVAL (ambient benchmarks skipped)") > tab

		# results.json
		js = out "/results.json"
		printf "{\"settings\":{\"rounds\":%d,\"batches\":%d,\"batch_ms\":%d,\"smoke\":%s,\"accel\":\"%s\",\"unit\":\"ns/op\"},\n", \
			rounds, batches, batch_ms, (smoke ? "true" : "false"), accel > js
		printf "\"kernels\":{" > js
		for (j = 1; j <= nk; j++)
			printf "%s\"%s\":{\"release\":\"%s\",\"ambient\":%s}", (j > 1 ? "," : ""), \
				K[j], rel[K[j]], (amb[K[j]] == "yes" ? "true" : "false") > js
		printf "},\n\"benchmarks\":{" > js
		for (i = 1; i <= nb; i++) {
			b = names[i]
			printf "%s\n\"%s\":{", (i > 1 ? "," : ""), b > js
			for (j = 1; j <= nk; j++) {
				k = K[j]
				printf "%s\"%s\":", (j > 1 ? "," : ""), k > js
				if (!has(b, k)) { printf "{\"skipped\":true}" > js; continue }
				printf "{\"state\":\"%s\",\"batches\":%d,\"median\":%s,\"p25\":%s,\"p75\":%s,\"min\":%s,\"max\":%s,\"round_medians\":[", \
					st[b, k], n[b, k], jnum(med[b, k]), jnum(p25[b, k]), jnum(p75[b, k]), \
					jnum(mn[b, k]), jnum(mx[b, k]) > js
				for (r = 1; r <= rounds; r++)
					printf "%s%s", (r > 1 ? "," : ""), jnum(rm[b, k, r]) > js
				printf "]}" > js
			}
			printf ",\"ratios\":{" > js
			c = 0
			for (j = 1; j <= np; j++) {
				p = P[j]
				if (!((b SUBSEP p) in R)) continue
				printf "%s\"%s\":{\"median\":%s,\"iqr_lo\":%s,\"iqr_hi\":%s,\"round_min\":%s,\"round_max\":%s}", \
					(c++ ? "," : ""), p, jnum(R[b, p]), jnum(RLO[b, p]), jnum(RHI[b, p]), \
					jnum(RRLO[b, p]), jnum(RRHI[b, p]) > js
			}
			printf "}}" > js
		}
		printf "\n}}\n" > js

		# gnuplot data: absolute (us), ratios; "?" where skipped
		abs = out "/abs.dat"; rat = out "/ratios.dat"
		for (i = 1; i <= nb; i++) {
			b = names[i]
			printf "%s", b > abs
			for (j = 1; j <= nk; j++)
				if (has(b, K[j]))
					printf " %g %g %g", med[b, K[j]] / 1000, p25[b, K[j]] / 1000, \
						p75[b, K[j]] / 1000 > abs
				else
					printf " ? ? ?" > abs
			printf "\n" > abs
			printf "%s", b > rat
			for (j = 1; j <= np; j++)
				if ((b SUBSEP P[j]) in R)
					printf " %g %g %g", R[b, P[j]], RLO[b, P[j]], RHI[b, P[j]] > rat
				else
					printf " ? ? ?" > rat
			printf "\n" > rat
		}
	}' "$OUT/state.tsv" "$OUT/stats.tsv" "$OUT/rounds.tsv" "$OUT/kernels.tsv"
	jq -e . "$OUT/results.json" >/dev/null ||
		die "results.json is not valid JSON" "read $OUT/results.json"
}

# chart: bench.png, medians with p25-p75 bars (log scale) above, ratios below.
chart() {
	local -a k p
	read -ra k <<<"$FLAVOURS"
	read -ra p <<<"$PAIRS"
	gnuplot >"$OUT/gnuplot.log" 2>&1 <<-EOF || die "gnuplot failed" "read $OUT/gnuplot.log"
		set terminal pngcairo noenhanced size 1100,900 font ",10"
		set output "$OUT/bench.png"
		set datafile missing "?"
		set style data histograms
		set style histogram errorbars gap 1 lw 1
		set style fill solid 0.7 border -1
		set key outside top center horizontal
		set grid ytics
		set multiplot layout 2,1 title "ambient capability set: $ROUNDS round(s) x $BATCHES batches of about $BATCH_MS ms per kernel, QEMU $(cut -d' ' -f1 "$BUILD/accel")"
		set title "median cost per operation, bars p25-p75 (skipped: kernel without the ambient set)"
		set logscale y
		set ylabel "microseconds per operation (log)"
		plot "$OUT/abs.dat" using 2:3:4:xtic(1) title "${k[0]}", \
		     "" using 5:6:7 title "${k[1]}", \
		     "" using 8:9:10 title "${k[2]}"
		unset logscale y
		set title "ratios of medians, bars p25(A)/p75(B) - p75(A)/p25(B)"
		set ylabel "ratio"
		set yrange [0:*]
		plot "$OUT/ratios.dat" using 2:3:4:xtic(1) title "${p[0]}", \
		     "" using 5:6:7 title "${p[1]}", \
		     "" using 8:9:10 title "${p[2]}", \
		     1 notitle with lines lc rgb "black" dt 2
		unset multiplot
	EOF
	[ -s "$OUT/bench.png" ] || die "gnuplot wrote no chart" "read $OUT/gnuplot.log"
}

main() {
	local start
	start=$(date +%s)
	lock bench
	mkdir -p "$OUT"
	build
	KHZ=$(tsc_khz)
	rm -f "$OUT"/{table.txt,results.json,bench.png,stats.tsv,rounds.tsv,state.tsv,kernels.tsv}
	msg "$ROUNDS round(s) of $FLAVOURS, $BATCHES batches of ~$BATCH_MS ms per benchmark"
	run_rounds
	stats
	meta
	report
	chart
	cat "$OUT/table.txt"
	msg "results: ${OUT#"$TOP"/}/results.json, chart: ${OUT#"$TOP"/}/bench.png" \
	    "($(($(date +%s) - start)) s)"
}

main "$@"
