#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark the kernels with tests/guest/bench.c (bench/README.md lists its
# benchmarks): fork+execve+wait of a plain, an ambient-capable, a
# set-user-ID and a file-capability program; prctl(PR_CAP_AMBIENT) IS_SET,
# LOWER+RAISE, CLEAR_ALL; capget+capset; setresuid round trips.
#
#   bench.sh            ROUNDS rounds (default 3); each boots every kernel
#                       once, the order rotating: stock, pre-ambient, ambient
#                       and the layout control (scripts/layout-kernel.sh)
#   SMOKE=1 bench.sh    one round of a few short batches on the three 6.12
#                       kernels: proves the benchmark runs and reports
#
# CLOCK=icount (the default) counts guest instructions: QEMU runs with
# -icount shift=0,sleep=off, so that the guest's clock advances one
# nanosecond per instruction and every figure is instructions per
# operation, independent of the host's load; norandmaps keeps the guest's
# address-space layout, and hence its page-table work, the same from one
# exec to the next. CLOCK=wall times the same benchmarks in nanoseconds of
# the host's clock (under TCG, about +-20 % from one run to the next).
# BATCHES and BATCH_MS override the batches per benchmark and the length of
# one batch (under icount, 1 ms is 1,000,000 instructions); the guest
# discards a calibration and one warm-up batch before them.
#
# Writes to build/bench (build/bench/smoke for SMOKE=1): table.txt (per
# benchmark and kernel: median, min, max and spread of the batches of all
# rounds; the series' cost and the stock gap beside the layout floor; the
# agreement of every median with the previous run's), results.json,
# bench.png and raw/ (the guest's lines, one file per boot).
#
# The figures are reported, never compared with a threshold: the run fails
# only when a guest fails or reports nothing.
. "$(dirname "$0")/lib.sh"

SMOKE=${SMOKE:-}
CLOCK=${CLOCK:-icount}
case $CLOCK in
icount)
	UNIT=instructions
	VM_QEMU="-icount shift=0,sleep=off"
	GUEST_APPEND=norandmaps
	# ASLR=1: the guest's default, which bench/README.md uses to explain
	# what a per-boot draw of the address-space layout costs
	[ "${ASLR:-0}" != 1 ] || GUEST_APPEND=
	# icount needs TCG: no KVM probe, whatever build/accel says
	export ACCEL=tcg
	;;
wall)
	UNIT=ns
	VM_QEMU=
	GUEST_APPEND=
	;;
*) die "unknown CLOCK '$CLOCK'" "use CLOCK=icount (instructions) or CLOCK=wall (ns)" ;;
esac
export VM_QEMU
if [ -n "$SMOKE" ]; then
	ROUNDS=${ROUNDS:-1} BATCHES=${BATCHES:-3} BATCH_MS=${BATCH_MS:-10}
	OUT=$BUILD/bench/smoke
	TAG=bench-smoke
	KERNELS=$FLAVOURS
else
	ROUNDS=${ROUNDS:-3} BATCHES=${BATCHES:-6} BATCH_MS=${BATCH_MS:-200}
	OUT=$BUILD/bench
	TAG=bench
	KERNELS="$FLAVOURS layout"
fi
[ "$CLOCK" = icount ] || OUT=$OUT/wall
[ "${ASLR:-0}" != 1 ] || OUT=$OUT/aslr
PAYLOAD=${PAYLOAD:-$BUILD/payload}
export PAYLOAD
RAW=$OUT/raw

build() {
	local k
	for k in $FLAVOURS; do
		up_to_date "$k" || "$TOP/scripts/kernel.sh" "$k" ||
			die "building the $k kernel failed" "run make kernel KERNEL=$k and read its log"
	done
	case " $KERNELS " in
	*" layout "*)
		"$TOP/scripts/layout-kernel.sh" ||
			die "building the layout control failed" "read build/logs/kernel-layout.log" ;;
	esac
	"$TOP/scripts/payload.sh" || die "building the initramfs failed" "run make payload"
	command -v gnuplot >/dev/null || die "gnuplot is missing" "run make deps (package gnuplot-nox)"
}

# tsc_khz: the guest's TSC frequency in kHz: under icount 1 GHz (a tick
# per instruction), otherwise the host's.
tsc_khz() {
	local khz=${TSC_KHZ:-}
	[ "$CLOCK" = icount ] && khz=${khz:-1000000}
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
	read -ra f <<<"$KERNELS"
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
	VM_MODE=run VM_APPEND="tsc_early_khz=$KHZ tsc=reliable $GUEST_APPEND ambient.run=bench ambient.args=$BATCHES,$BATCH_MS" \
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
	for k in $KERNELS; do
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
			if (n) printf "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\n", key, n, \
				q(0.5), q(0.25), q(0.75), v[0], v[n - 1]
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
	for k in $KERNELS; do
		awk -v k="$k" -v img="$(sha1sum <"$OBJ/$k/arch/x86/boot/bzImage" | cut -c1-12)" \
		    -v OFS='\t' '$1 == "start" {
			sub(/^release=/, "", $2); sub(/^ambient=/, "", $3)
			print k, $2, $3, img; exit
		}' "$RAW/$k-1.txt"
	done >"$OUT/kernels.tsv"
	for k in $KERNELS; do
		awk -v k="$k" -v OFS='\t' '
			$1 == "result" { b = $2; sub(/^name=/, "", b); print b, k, $3 }
			$1 == "skip" { b = $2; sub(/^name=/, "", b); print b, k, "skip" }
		' "$RAW/$k-1.txt"
	done >"$OUT/state.tsv"
	awk -F'\t' '$3 == "no" && $1 != "pre-ambient" && $1 != "layout" { bad = bad " " $1 }
		END { if (bad) { print "no prctl(PR_CAP_AMBIENT) on:" bad; exit 1 } }' \
		"$OUT/kernels.tsv" >&2 ||
		die "a kernel that must have the ambient set has none" \
		    "run make kselftest KERNEL=ambient (or stock)"
}

# report: table.txt, results.json and the chart's data (diff.dat), from one
# awk over stats.tsv, rounds.tsv, state.tsv, kernels.tsv and the previous
# run's medians (medians.prev.tsv; this run's go to medians.tsv).
#
# The series' cost is ambient - pre-ambient, the stock gap stock - ambient,
# the layout floor |layout - pre-ambient| (kernels that differ only in where
# code lies); boot-to-boot is the widest range of one kernel's per-round
# medians among those compared. A difference no larger than the floor and
# the boot-to-boot range is "not measurable".
report() {
	local settings="clock=$CLOCK batches=$BATCHES batch_ms=$BATCH_MS aslr=${ASLR:-0}"
	touch "$OUT/medians.prev.tsv"
	awk -F'\t' -v kernels="$KERNELS" -v out="$OUT" -v unit="$UNIT" -v clock="$CLOCK" \
	    -v rounds="$ROUNDS" -v batches="$BATCHES" -v batch_ms="$BATCH_MS" \
	    -v settings="$settings" -v smoke="${SMOKE:+true}" \
	    -v accel="$(cut -d' ' -f1 "$BUILD/accel" 2>/dev/null)" '
	function add(b) { if (!(b in seen)) { seen[b] = 1; names[++nb] = b } }
	FILENAME ~ /stats.tsv$/ {
		add($1); g = $1 SUBSEP $2
		n[g] = $3; med[g] = $4; mn[g] = $7; mx[g] = $8; next
	}
	FILENAME ~ /rounds.tsv$/ {
		g = $1 SUBSEP $2
		rm[g, $3] = $4
		if (!(g in rlo) || $4 < rlo[g]) rlo[g] = $4
		if (!(g in rhi) || $4 > rhi[g]) rhi[g] = $4
		next
	}
	FILENAME ~ /state.tsv$/ { add($1); st[$1, $2] = $3; next }
	FILENAME ~ /kernels.tsv$/ { rel[$1] = $2; amb[$1] = $3; img[$1] = $4; next }
	# the previous run of the same settings on the same kernel images
	FILENAME ~ /medians.prev.tsv$/ { if ($1 == settings && $4 == img[$3]) prev[$2, $3] = $5; next }
	function has(b, k) { return (b SUBSEP k) in med }
	function pct(x, base) { return base ? 100 * x / base : 0 }
	function bootrange(b, k) { return rhi[b, k] - rlo[b, k] }
	function fmt(x) { return sprintf(x >= 10000 ? "%.0f" : "%.1f", x) }
	# diff B A C: median(A) - median(C) for benchmark B, "" if either lacks it
	function diff(b, x, y) { return has(b, x) && has(b, y) ? med[b, x] - med[b, y] : "" }
	function floor_of(b,   d) { d = diff(b, "layout", "pre-ambient"); return d == "" ? "" : (d < 0 ? -d : d) }
	function noise(b, x, y,   u, v) {
		u = bootrange(b, x); v = bootrange(b, y); return u > v ? u : v
	}
	# verdict B A C: the difference A - C, or "not measurable" beside the floor
	function verdict(b, x, y,   d, f, t, s) {
		d = diff(b, x, y)
		if (d == "") return "-"
		f = floor_of(b); t = noise(b, x, y)
		if (f != "" && f > t) t = f
		s = sprintf("%+.1f (%+.3f %%)", d, pct(d, med[b, y]))
		if (f == "") s = s ", no floor"
		if ((d < 0 ? -d : d) <= t)
			return "not measurable: " s
		return s
	}
	END {
		nk = split(kernels, K, " ")
		tab = out "/table.txt"
		if (clock == "icount")
			printf "%s per operation, QEMU TCG -icount shift=0,sleep=off (the guest clock counts instructions)\n", unit > tab
		else
			printf "WALL CLOCK: ns per operation, QEMU %s (under TCG about +-20 %% between runs)\n", accel > tab
		printf "%d round(s) (boots) x %d batches of up to %d %s per kernel; per benchmark a calibration and a warm-up batch are discarded\n", \
			rounds, batches, batch_ms, (clock == "icount" ? "M instructions" : "ms") > tab
		printf "median, min, max and spread ((max - min) / median) of all batches; boots: the range of the\n" > tab
		printf "per-boot medians / median; prev: the median'\''s change since the previous run\n\n" > tab
		printf "%-18s %-12s %-4s %12s %12s %12s %9s %9s %10s\n", "benchmark", "kernel", "pA", "median", "min", "max", "spread", "boots", "prev" > tab
		for (i = 1; i <= nb; i++) {
			b = names[i]
			for (j = 1; j <= nk; j++) {
				k = K[j]
				if (!has(b, k)) {
					printf "%-18s %-12s %-4s %12s\n", b, k, "-", "skipped" > tab
					continue
				}
				pa = st[b, k]; sub(/^pa=/, "", pa)
				pv = ((b SUBSEP k) in prev) ? sprintf("%+.3f %%", pct(med[b, k] - prev[b, k], prev[b, k])) : "-"
				if ((b SUBSEP k) in prev) {
					c = pct(med[b, k] - prev[b, k], prev[b, k]); if (c < 0) c = -c
					if (c >= worst) { worst = c; worstat = b " on " k }
					compared++
				}
				printf "%-18s %-12s %-4s %12s %12s %12s %7.3f %% %7.3f %% %10s\n", b, k, pa, fmt(med[b, k]), \
					fmt(mn[b, k]), fmt(mx[b, k]), pct(mx[b, k] - mn[b, k], med[b, k]), \
					pct(bootrange(b, k), med[b, k]), pv > tab
				printf "%s\t%s\t%s\t%s\t%s\n", settings, b, k, img[k], med[b, k] > (out "/medians.tsv")
			}
		}
		printf "\n%-18s %-40s %-40s %-22s\n", "benchmark", "series: ambient - pre-ambient", \
			"stock gap: stock - ambient", "floor |layout - pre|" > tab
		for (i = 1; i <= nb; i++) {
			b = names[i]; f = floor_of(b)
			printf "%-18s %-40s %-40s %-22s\n", b, verdict(b, "ambient", "pre-ambient"), \
				verdict(b, "stock", "ambient"), \
				(f == "" ? "-" : sprintf("%.1f (%.3f %%)", f, pct(f, med[b, "pre-ambient"]))) > tab
		}
		printf "\nnot measurable: no larger than the larger of the layout floor and the boot-to-boot range\n" > tab
		printf "of the medians; no floor: no layout control in this run, or pre-ambient (and so the\n" > tab
		printf "control) cannot run the benchmark: then the boot-to-boot range alone is the threshold\n" > tab
		printf "where stock and ambient differ, and why: bench/README.md, \"The stock gap\"\n" > tab
		if (compared)
			printf "previous run (same settings and kernel images): largest change of a median %.3f %% (%s), %d medians compared\n", \
				worst, worstat, compared > tab
		else
			printf "previous run: none with the same settings and kernel images\n" > tab
		for (j = 1; j <= nk; j++)
			printf "%s: %s, prctl(PR_CAP_AMBIENT) %s\n", K[j], rel[K[j]], \
				(amb[K[j]] == "yes" ? "present" : "EINVAL (ambient benchmarks skipped)") > tab

		js = out "/results.json"
		printf "{\"settings\":{\"clock\":\"%s\",\"unit\":\"%s per op\",\"rounds\":%d,\"batches\":%d,\"batch_ms\":%d,\"smoke\":%s,\"accel\":\"%s\"},\n", \
			clock, unit, rounds, batches, batch_ms, (smoke ? "true" : "false"), accel > js
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
				printf "{\"state\":\"%s\",\"batches\":%d,\"median\":%.1f,\"min\":%.1f,\"max\":%.1f,\"spread_pct\":%.4f,\"previous_median\":%s,\"round_medians\":[", \
					st[b, k], n[b, k], med[b, k], mn[b, k], mx[b, k], \
					pct(mx[b, k] - mn[b, k], med[b, k]), \
					(((b SUBSEP k) in prev) ? prev[b, k] : "null") > js
				for (r = 1; r <= rounds; r++)
					printf "%s%s", (r > 1 ? "," : ""), (((b, k, r) in rm) ? rm[b, k, r] : "null") > js
				printf "]}" > js
			}
			f = floor_of(b)
			printf ",\"series_cost\":%s,\"stock_gap\":%s,\"layout_floor\":%s,\"series_verdict\":\"%s\",\"stock_gap_verdict\":\"%s\"}", \
				(diff(b, "ambient", "pre-ambient") == "" ? "null" : diff(b, "ambient", "pre-ambient")), \
				(diff(b, "stock", "ambient") == "" ? "null" : diff(b, "stock", "ambient")), \
				(f == "" ? "null" : f), verdict(b, "ambient", "pre-ambient"), \
				verdict(b, "stock", "ambient") > js
		}
		printf "\n}}\n" > js

		# the chart: each kernel against pre-ambient, in per cent
		dat = out "/diff.dat"
		for (i = 1; i <= nb; i++) {
			b = names[i]
			printf "%s", b > dat
			for (j = 1; j <= nk; j++)
				if (K[j] != "pre-ambient")
					printf " %s", (diff(b, K[j], "pre-ambient") == "" ? "?" : \
						pct(diff(b, K[j], "pre-ambient"), med[b, "pre-ambient"])) > dat
			printf "\n" > dat
		}
	}' "$OUT/state.tsv" "$OUT/stats.tsv" "$OUT/rounds.tsv" "$OUT/kernels.tsv" "$OUT/medians.prev.tsv"
	jq -e . "$OUT/results.json" >/dev/null ||
		die "results.json is not valid JSON" "read $OUT/results.json"
}

# chart: bench.png, each kernel's median against pre-ambient's, in per cent.
chart() {
	local k col=2 plot=
	for k in $KERNELS; do
		[ "$k" = pre-ambient ] && continue
		plot="$plot${plot:+, }\"$OUT/diff.dat\" using $col:xtic(1) title \"$k\""
		col=$((col + 1))
	done
	gnuplot >"$OUT/gnuplot.log" 2>&1 <<-EOF || die "gnuplot failed" "read $OUT/gnuplot.log"
		set terminal pngcairo noenhanced size 1100,600 font ",10"
		set output "$OUT/bench.png"
		set datafile missing "?"
		set style data histograms
		set style histogram clustered gap 1
		set style fill solid 0.7 border -1
		set key outside top center horizontal
		set grid ytics
		set xtics rotate by -30
		set title "median $UNIT per operation against pre-ambient's (layout: the floor), $ROUNDS round(s) x $BATCHES batches, $CLOCK"
		set ylabel "difference from pre-ambient, %"
		plot $plot, 0 notitle with lines lc rgb "black"
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
	rm -f "$OUT"/{table.txt,results.json,bench.png,stats.tsv,rounds.tsv,state.tsv,kernels.tsv,diff.dat}
	# the previous run's medians, to print how far this run's are from them
	if [ -f "$OUT/medians.tsv" ]; then mv "$OUT/medians.tsv" "$OUT/medians.prev.tsv"; fi
	msg "$ROUNDS round(s) of $KERNELS ($CLOCK), $BATCHES batches of up to $BATCH_MS ms per benchmark"
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
