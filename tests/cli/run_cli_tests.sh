#!/usr/bin/env bash
# The command line as a user meets it: help, version, exit codes, and a
# one-line error with exit code 3 for every kind of bad input.
set -u
stagecheck=$1
tests=$2
sir=$tests/stages/sir
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() { # expect CODE PATTERN -- command...
  local code=$1 pattern=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [[ $got -ne $code ]]; then
    echo "FAIL: exit $got, wanted $code: $*"; cat "$tmp/out" "$tmp/err"; fails=$((fails + 1)); return
  fi
  if ! grep -q -- "$pattern" "$tmp/out" "$tmp/err"; then
    echo "FAIL: no '$pattern' in output of: $*"; cat "$tmp/out" "$tmp/err"; fails=$((fails + 1)); return
  fi
  if [[ $code -eq 3 && $(wc -l <"$tmp/err") -ne 1 ]]; then
    echo "FAIL: error is not one line: $*"; cat "$tmp/err"; fails=$((fails + 1))
  fi
}

also() { # also PATTERN WHAT: the last expect's output holds PATTERN too
  if ! grep -q -- "$1" "$tmp/out"; then
    echo "FAIL: $2"; cat "$tmp/out"; fails=$((fails + 1))
  fi
}

mutant_of() { # mutant_of NAME BUNDLE EXT SED-SCRIPT: $tmp/NAME, BUNDLE with its kernel's .EXT edited
  cp -r "$2" "$tmp/$1"
  local edited original
  edited=$(ls "$tmp/$1"/kernels/*/*."$3") original=$(ls "$2"/kernels/*/*."$3")
  sed -i "$4" "$edited"
  if cmp -s "$original" "$edited"; then
    echo "FAIL: mutant $1 changed nothing"; fails=$((fails + 1))
  fi
}

expect 0 "usage: stagecheck" -- "$stagecheck" --help
expect 0 "Z3 4" -- "$stagecheck" --version
expect 0 "SOURCE TARGET" -- "$stagecheck" check --help
expect 3 "unknown command 'frobnicate'" -- "$stagecheck" frobnicate
expect 3 "frobnicate.*does not exist" -- "$stagecheck" check --frobnicate "$sir/assoc.src.sir" "$sir/assoc.tgt.sir"
expect 3 "cannot read '$tmp/missing.sir'" -- "$stagecheck" check "$tmp/missing.sir" "$sir/assoc.tgt.sir"
expect 3 "needs two files" -- "$stagecheck" check "$sir/assoc.src.sir"
expect 3 "unknown --mode 'exact'" -- "$stagecheck" check --mode exact "$sir/assoc.src.sir" "$sir/assoc.tgt.sir"
printf 'buffer o : f32\nwrite o[0:i64] = %%nope\n' >"$tmp/bad.sir"
expect 3 "$tmp/bad.sir:2:18: use of undefined value %nope" -- "$stagecheck" check "$tmp/bad.sir" "$sir/assoc.tgt.sir"
head -c 60 "$sir/assoc.src.sir" >"$tmp/truncated.sir"
expect 3 "truncated.sir:" -- "$stagecheck" check "$tmp/truncated.sir" "$sir/assoc.tgt.sir"

expect 0 "verdict: proved" -- "$stagecheck" check --mode real "$sir/assoc.src.sir" "$sir/assoc.tgt.sir"
expect 1 "verdict: counterexample" -- "$stagecheck" check "$sir/assoc.src.sir" "$sir/assoc.tgt.sir"
expect 1 "source  out\[0\]" -- "$stagecheck" check "$sir/assoc.src.sir" "$sir/assoc.tgt.sir"
# A millisecond of solver work is far too little to factor a 63-bit
# number (whether the source can write 1): unknown, the budget named.
cat >"$tmp/factor.src.sir" <<'EOF'
buffer out : i32 size 1
symbol %x : i64 param
symbol %y : i64 param
%p = mul %x, %y
%n = icmp.eq %p, 9223372021822390277:i64
%x1 = icmp.ugt %x, 1:i64
%y1 = icmp.ugt %y, 1:i64
%xs = icmp.ult %x, 4294967296:i64
%ys = icmp.ult %y, 4294967296:i64
%a = and %n, %x1
%b = and %a, %y1
%c = and %b, %xs
%d = and %c, %ys
%r = select %d, 1:i32, 0:i32
write out[0:i64] = %r
EOF
printf 'buffer out : i32 size 1\nwrite out[0:i64] = 0:i32\n' >"$tmp/factor.tgt.sir"
expect 2 "timeout: the solver's budget of 1 ms of work was spent" -- "$stagecheck" check --timeout-ms 1 "$tmp/factor.src.sir" "$tmp/factor.tgt.sir"
expect 1 "counterexample" -- "$stagecheck" check --json "$tmp/r.json" "$sir/assoc.src.sir" "$sir/assoc.tgt.sir"
grep -q '"verdict": "counterexample"' "$tmp/r.json" || { echo "FAIL: json verdict"; fails=$((fails + 1)); }
expect 3 "cannot write" -- "$stagecheck" check --json /nonexistent/dir/r.json "$sir/assoc.src.sir" "$sir/assoc.tgt.sir"

# Each pair's check has a wall-clock limit: past it the check is stopped
# (killed when it does not stop by itself) and the verdict is unknown.
m=$(dirname "$0")/../corpus/tutorial_matmul/kernels/matmul_kernel/matmul_kernel
start=$SECONDS
# (0.02 s: the whole check of this kernel takes about 0.4 s, less on a fast
# machine, and must not finish within the limit.)
expect 2 "time limit of 0.02 s was reached" -- "$stagecheck" check --pair-time-limit-s 0.02 --from llir --to llir "$m.llir" "$m.llir"
(( SECONDS - start <= 5 )) || { echo "FAIL: a 0.02 s pair limit took $((SECONDS - start)) s"; fails=$((fails + 1)); }
# The check's own deadline or the parent stopping it, whichever comes first.
expect 2 "LLVM IR -> PTX .*time limit.* was reached" -- "$stagecheck" audit --stages 'llir->ptx' --pair-time-limit-s 0.02 "$(dirname "$0")/../corpus/tutorial_matmul"
# Every pair of an audit gets its own limit and its own verdict, though the
# pairs share a child process until one is stopped.
expect 2 "TTGIR -> LLVM IR .*time limit.* was reached" -- "$stagecheck" audit --pair-time-limit-s 0.02 "$(dirname "$0")/../corpus/tutorial_matmul"
[[ $(grep -c "^  [A-Z].*time limit.* was reached" "$tmp/out") -eq 4 ]] || { echo "FAIL: not every pair of a 0.02 s audit was stopped at its limit"; cat "$tmp/out"; fails=$((fails + 1)); }
expect 3 "pair-time-limit-s must be 0 or more" -- "$stagecheck" check --pair-time-limit-s -1 "$sir/assoc.src.sir" "$sir/assoc.tgt.sir"

# Bad input met inside a pair's child process is reported whole, with its
# file, line and column: inductor_sigmoid's TTIR with a constant's type cut.
cp -r "$tests/corpus/inductor_sigmoid" "$tmp/untyped"
ttir=$(ls "$tmp"/untyped/kernels/*/*.ttir)
sed -i '7s/ : tensor<128xf32>//' "$ttir"
expect 3 "$ttir:7:5: arith.constant: has no result type" -- "$stagecheck" audit --stages 'ttir->ttgir' "$tmp/untyped"

# A counterexample of an audit is shown at the bundle's own launch (its
# sizes and grid) where the bug shows there: inductor_sum_persistent's
# second shuffle of its row sum sent to the wrong lane.
cp -r "$tests/corpus/inductor_sum_persistent" "$tmp/shuffle"
ll=$(ls "$tmp"/shuffle/kernels/*/*.llir)
sed -i '33s/i32 8, i32 31/i32 4, i32 31/' "$ll"
expect 1 "arg2 = 16  arg3 = 128  nprog.x = 16" -- "$stagecheck" audit --stages 'ttgir->llir' --cache "$tmp/cache" "$tmp/shuffle"

# A load of the LLVM IR outside the tensor where the TTGIR reads within it:
# tutorial_vector_add's first load with its mask `offs < n` dropped (line
# 20). n = 1000 in a grid of 4 x 256, so program 3 reads past the end; the
# value read is never stored, so only the bounds of the bundle's tensors
# catch it. The note naming the load survives the pair's child process.
cp -r "$tests/corpus/tutorial_vector_add" "$tmp/unmasked"
ll=$(ls "$tmp"/unmasked/kernels/*/*.llir)
sed -i '20s/(ptr addrspace(1) %17, i1 %14)/(ptr addrspace(1) %17, i1 true)/' "$ll"
expect 1 "a load outside the 1000 elements arg0 may reach" -- "$stagecheck" audit --stages 'ttgir->llir' --cache "$tmp/cache" "$tmp/unmasked"
also "the load at .*add_kernel.llir:20, at the bundle's launch" "no note naming the load in the unmasked report"
also "pid.x = 3" "the unmasked report is not at program 3"

# The same in a loop: tutorial_fused_softmax's software-pipelined row loop
# made to prefetch one row past the last (`icmp slt` -> `sle`, line 49);
# loads are checked for every trip-count case before the slower queries.
cp -r "$tests/corpus/tutorial_fused_softmax" "$tmp/prefetch"
ll=$(ls "$tmp"/prefetch/kernels/*/*.llir)
sed -i '49s/icmp slt i32 %38, %26/icmp sle i32 %38, %26/' "$ll"
expect 1 "a load outside the 3200 elements arg1 may reach" -- "$stagecheck" audit --stages 'ttgir->llir' --cache "$tmp/cache" "$tmp/prefetch"
also "in the case trip count 4 of scf.for" "no loop case in the prefetch report"

# tutorial_layer_norm's TTGIR with `w * x_hat` made `w + x_hat` (line 90),
# audited with the bundle's tensor bounds: random trials must reach an
# element the small sizes they draw still write, and the summarised loops'
# counterexample, whose store ranges over every iteration, is left to the
# trip-count cases rather than enumerated.
cp -r "$tests/corpus/tutorial_layer_norm" "$tmp/layer_norm_add"
tg=$(ls "$tmp"/layer_norm_add/kernels/*/*.ttgir)
sed -i '90s/%y = arith.mulf %x_hat_19, %w_13/%y = arith.addf %x_hat_19, %w_13/' "$tg"
expect 1 "first differs at arith.addf (.*_layer_norm_fwd_fused.ttgir:90:" -- "$stagecheck" audit --stages 'ttir->ttgir' --pair-time-limit-s 60 --cache "$tmp/cache" "$tmp/layer_norm_add"

# tutorial_matmul's TTGIR audited with the bundle's tensor bounds: random
# sizes never meet them, so testing starts from the launch the bundle ran,
# and the loop case that launch runs (two iterations) comes first. The
# pipelined loop's prefetch mask `K - 32` made `32 - K` (line 95), and the
# column range moved by one (line 42), whose definedness query the solver
# does not finish: the stores are still tested.
cp -r "$tests/corpus/tutorial_matmul" "$tmp/matmul_mask"
tg=$(ls "$tmp"/matmul_mask/kernels/*/*.ttgir)
sed -i '95s/arith.subi %K, %c32_i32/arith.subi %c32_i32, %K/' "$tg"
expect 1 "first differs at arith.subi (.*matmul_kernel.ttgir:95:" -- "$stagecheck" audit --stages 'ttir->ttgir' --pair-time-limit-s 60 --cache "$tmp/cache" "$tmp/matmul_mask"
also "in the case trip count 2 of scf.for" "the launch's loop case is not the one reported"
# The prefetch's A mask one too wide (`<` -> `<=`, line 97): at the
# launch's K = 64 it reads nothing more, at K = 63 it reads A[m, 63] and
# multiplies it by B's masked zero, equal on every finite input. Testing
# gives what only the TTGIR reads an infinity or a NaN: 0 * inf is a NaN
# the TTIR never writes (every value query alone was a timeout).
cp -r "$tests/corpus/tutorial_matmul" "$tmp/matmul_wide"
tg=$(ls "$tmp"/matmul_wide/kernels/*/*.ttgir)
sed -i '97s/arith.cmpi slt, %a_ptrs_19, %a_54/arith.cmpi sle, %a_ptrs_19, %a_54/' "$tg"
expect 1 "verdict: counterexample" -- "$stagecheck" check --from ttir --to ttgir --pair-time-limit-s 60 "$m.ttir" "$tg"
also "arg0\[[0-9]*\] = \(-\?inf\|nan\)" "the element only the TTGIR reads is not an infinity or a NaN"
also "target  arg2\[[0-9]*\] = nan" "the TTGIR's value is not a NaN"
cp -r "$tests/corpus/tutorial_matmul" "$tmp/matmul_range"
tg=$(ls "$tmp"/matmul_range/kernels/*/*.ttgir)
sed -i '42s/{end = 32 : i32, start = 0 : i32}/{end = 33 : i32, start = 1 : i32}/' "$tg"
expect 1 "first differs at tt.make_range (.*matmul_kernel.ttgir:42:" -- "$stagecheck" audit --stages 'ttir->ttgir' --pair-time-limit-s 60 --timeout-ms 5000 --cache "$tmp/cache" "$tmp/matmul_range"

# A stage file against itself and against a mutant of it (what the
# mutation harness asks to set equivalent mutants aside).
k=$(dirname "$0")/../corpus/tutorial_vector_add/kernels/add_kernel/add_kernel
for s in ttir ttgir llir ptx; do
  expect 0 "verdict: proved" -- "$stagecheck" check --from $s --to $s "$k.$s" "$k.$s"
done
sed 's/setp.lt.s32/setp.le.s32/' "$k.ptx" >"$tmp/mutant.ptx"
expect 1 "verdict: counterexample" -- "$stagecheck" check --from ptx --to ptx --llir "$k.llir" "$k.ptx" "$tmp/mutant.ptx"
expect 3 "needs --llir" -- "$stagecheck" check --from ptx --to ptx "$tmp/mutant.ptx" "$k.ptx"
sed 's/icmp slt/icmp sle/' "$k.llir" >"$tmp/mutant.llir"
expect 1 "verdict: counterexample" -- "$stagecheck" check --from llir --to llir "$k.llir" "$tmp/mutant.llir"

# A column sum whose two rows per program are loaded as one vector: the
# second row's address is the first's plus one only while the program's
# offsets stay within i32, which Triton's lowering assumes and the bound
# states (without it the rows' sums are a timeout).
d=$(dirname "$0")/../../bench/heldout2/inductor_sum_dim0/kernels/triton_red_fused_sum_0/triton_red_fused_sum_0
expect 0 "proved within the bound: .*program offsets within i32: pid.x [*] 2 [+] 1 < 2.31" -- "$stagecheck" check --from ttgir --to llir "$d.ttgir" "$d.llir"
# Its PTX computes the row `x / 16 * 2032` with the shifts of a division
# by 16 whose last is logical (the product never reads the high bits it
# changes); read as shifts on both sides, the addresses are one node (as
# a bit-blasted divider they were a timeout at the first exchange). The
# quotient shifted by 5 instead is a counterexample.
expect 0 "verdict: proved" -- "$stagecheck" check --from llir --to ptx "$d.llir" "$d.ptx"
also "relaxations: rule: signed division by a power of two as shifts (1)" "the division by 16 read as shifts"
sed 's/shr.u32 \t%r10, %r9, 4;/shr.u32 \t%r10, %r9, 5;/' "$d.ptx" >"$tmp/sum_dim0.ptx"
expect 1 "verdict: counterexample" -- "$stagecheck" check --from llir --to ptx "$d.llir" "$tmp/sum_dim0.ptx"

# logsumexp guards the row maximum with `|m| == inf ? 0 : m`, and inf has
# no value over the reals. A kernel that multiplies log(sum) by the guarded
# maximum instead of adding it is still found: testing sees the values
# apart and the exact values, with such comparisons of finite values
# decided, differ there too (all zeros: log 64 against 0). The guard's own
# constant made 1, a change on infinite maxima only, stays unknown: no
# proof is drawn from reading the guard for finite values.
heldout2=$(dirname "$0")/../../bench/heldout2
mutant_of logsumexp_mul "$heldout2/inductor_logsumexp" ttir '63s/%tmp17 = arith.addf %tmp16, %tmp9_17/%tmp17 = arith.mulf %tmp16, %tmp9_17/'
expect 1 "they differ by 4.15888" -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/logsumexp_mul"
mutant_of logsumexp_guard "$heldout2/inductor_logsumexp" ttir '15s/dense<0.000000e+00>/dense<1.000000e+00>/'
expect 2 "FX -> TTIR *unknown" -- "$stagecheck" audit --stages 'fx->ttir' --timeout-ms 2000 "$tmp/logsumexp_guard"

# ELU's 128 stores each compute an inlined expm1f, one element per thread.
# The optimized body computes 2^127 where its overflow test `j == 128`
# picks 2^(j-1): equal only under that test, which reading each select's
# arms under its condition shows with no query (each value asked whole,
# the second element reached the query limit). A changed coefficient of
# the polynomial is still a counterexample.
d=$(dirname "$0")/../../bench/heldout2/inductor_elu/kernels/triton_poi_fused_elu_0/triton_poi_fused_elu_0
lib=$(dirname "$0")/../stages/ttgir_to_llir/libdevice/triton-3.6.0-libdevice.10.bc
expect 0 "proved within the bound" -- "$stagecheck" check --from ttgir --to llir --libdevice "$lib" "$d.ttgir" "$d.llir"
also "store 128 of 128 to arg1: values *proved .*where the two values part (5 places): 5 one node once each select's arms are read under its condition" "ELU's values equal once the selects' arms are read under their conditions"
sed 's/float 0x3F812ACC60000000) #4/float 0x3F912ACC60000000) #4/' "$d.llir" >"$tmp/elu.llir"
expect 1 "the LLVM IR first differs from the TTGIR at call @llvm.nvvm.fma.rn.f" -- "$stagecheck" check --from ttgir --to llir --libdevice "$lib" "$d.ttgir" "$tmp/elu.llir"

# log1p(|x|) + expm1(x / 2): the optimized bodies differ from libdevice's
# in places each equal alone (a test folded from |x| >= 0, a select of
# booleans for an or) or under a select's condition.
d=$(ls "$(dirname "$0")"/../../bench/heldout/inductor_log1p_expm1/kernels/*/*.ttgir)
d=${d%.ttgir}
expect 0 "proved within the bound" -- "$stagecheck" check --from ttgir --to llir --libdevice "$lib" "$d.ttgir" "$d.llir"
also "store 1 of 256 to arg1: values *proved .*where the two values part (7 places): .*proved equal for any element computed alike" "log1p/expm1's first values equal place by place"
also "store 256 of 256 to arg1: values *proved .*equal as the shape of an earlier element" "log1p/expm1's last values equal as the first one's places"

# bf16 a * b + a: inductor rounds once where eager PyTorch rounds the
# product to bf16 first (a = 7680, b = -0.9921875: 60 against 64), a real
# difference FX <-> TTIR shows.
expect 1 "bug introduced at FX -> TTIR: the kernel does not compute the reference at buf0" -- "$stagecheck" audit --stages 'fx->ttir' "$(dirname "$0")/../../bench/heldout/inductor_bf16_mul"

# --launch: only the bundle's launch. inductor_clamp's mask `x < 1024` made
# `x <= 1024` differs only for a program its grid of 8 x 128 never runs.
c=$(dirname "$0")/../corpus/inductor_clamp
ct=$(ls "$c"/kernels/*/*.ttir)
sed 's/%xmask_4 = arith.cmpi slt/%xmask_4 = arith.cmpi sle/' "$ct" >"$tmp/clamp.ttir"
expect 1 "verdict: counterexample" -- "$stagecheck" check --from ttir --to ttir "$ct" "$tmp/clamp.ttir"
expect 0 "proved within the bound: at the launch of .*inductor_clamp: grid 8x1x1, arg2 = 1024" -- "$stagecheck" check --from ttir --to ttir --launch "$c" "$ct" "$tmp/clamp.ttir"
# ... and a mutant that differs at the launch too still gives its input.
sed 's/%xmask_4 = arith.cmpi slt/%xmask_4 = arith.cmpi sgt/' "$ct" >"$tmp/clamp-gt.ttir"
expect 1 "verdict: counterexample" -- "$stagecheck" check --from ttir --to ttir --launch "$c" "$ct" "$tmp/clamp-gt.ttir"
expect 3 "no launch of .*inductor_clamp runs" -- "$stagecheck" check --from ttir --to ttir --launch "$c" "$tmp/clamp.ttir" "$ct"
# A bundle that runs the file twice, with xnumel 1024 and 1025: which
# launch is meant is not for stagecheck to pick.
cp -r "$c" "$tmp/clamp_twice"
python3 - "$tmp/clamp_twice/manifest.json" <<'PY'
import copy, json, sys
m = json.load(open(sys.argv[1]))
launch = next(s for s in m["steps"] if s["kind"] == "launch")
again = copy.deepcopy(launch)
next(a for a in again["args"] if a["name"] == "xnumel")["value"] += 1
m["steps"].append(again)
json.dump(m, open(sys.argv[1], "w"))
PY
expect 3 "runs .* at 2 launches that differ" -- "$stagecheck" check --from ttir --to ttir --launch "$tmp/clamp_twice" "$tmp/clamp_twice/${ct#"$c"/}" "$tmp/clamp.ttir"
expect 3 "$tmp/no_bundle: not a bundle directory" -- "$stagecheck" check --from ttir --to ttir --launch "$tmp/no_bundle" "$ct" "$tmp/clamp.ttir"
mkdir -p "$tmp/broken_bundle" && printf '{"schema' >"$tmp/broken_bundle/manifest.json"
expect 3 "broken_bundle/manifest.json:1:8: malformed JSON" -- "$stagecheck" check --from ttir --to ttir --launch "$tmp/broken_bundle" "$ct" "$tmp/clamp.ttir"
expect 3 "launch is for the files of a bundle" -- "$stagecheck" check --launch "$c" "$sir/assoc.src.sir" "$sir/assoc.tgt.sir"

# libdevice bodies with one polynomial step's __CUDA_FTZ choice turned
# around mean the same: erff's step is merged where the values part (the
# step, asked case by case over the flush of its operand: a subnormal
# square's product is absorbed by the step's addend); logf's operands are
# never subnormal, so the two are one node.
g=$(dirname "$0")/../corpus/inductor_gelu/kernels/triton_poi_fused_gelu_0/triton_poi_fused_gelu_0
sed '73s/icmp eq i32 %47, 0/icmp ne i32 %47, 0/' "$g.llir" >"$tmp/gelu.llir"
expect 0 "where the two values part (1 place): 1 proved equal" -- "$stagecheck" check --from llir --to llir "$g.llir" "$tmp/gelu.llir"
l=$(dirname "$0")/../corpus/inductor_log_softmax/kernels/triton_per_fused__log_softmax_prepare_softmax_online_sub_0/triton_per_fused__log_softmax_prepare_softmax_online_sub_0
sed '253s/icmp eq i32 %204, 0/icmp ne i32 %204, 0/' "$l.llir" >"$tmp/logf.llir"
expect 0 "verdict: proved" -- "$stagecheck" check --from llir --to llir "$l.llir" "$tmp/logf.llir"
if cmp -s "$g.llir" "$tmp/gelu.llir" || cmp -s "$l.llir" "$tmp/logf.llir"; then
  echo "FAIL: the ftz choices were not turned around"; fails=$((fails + 1))
fi

# Every query a verdict rests on is dumped and re-checked by another solver:
# inductor_clamp's `fcmp olt %19, 0.5` made `ole` is the original (a sweep's
# query proves it), and cvc5 answers each dumped query as Z3 did. A dump
# whose recorded answer is turned around is a disagreement.
c=$(dirname "$0")/../corpus/inductor_clamp/kernels/triton_poi_fused_clamp_0/triton_poi_fused_clamp_0
sed 's/fcmp olt float %19, 5.000000e-01/fcmp ole float %19, 5.000000e-01/' "$c.llir" >"$tmp/clamp.llir"
# The directory is made if it is not there; a path that
# cannot be one is an input error before anything is checked.
expect 0 "verdict: proved" -- "$stagecheck" check --from llir --to llir --dump-smt "$tmp/dump" "$c.llir" "$tmp/clamp.llir"
expect 3 "cannot write SMT-LIB queries into '$tmp/out/d'" -- "$stagecheck" check --dump-smt "$tmp/out/d" "$sir/assoc.src.sir" "$sir/assoc.tgt.sir"
if command -v cvc5 >/dev/null; then
  recheck=$(dirname "$0")/../../scripts/recheck_smt.py
  expect 0 " [1-9][0-9]* unsat and [0-9]* sat in both, 0 disagreeing" -- python3 "$recheck" "$tmp/dump"
  mkdir "$tmp/wrong"
  for f in "$tmp"/dump/*.smt2; do
    sed 's/:status unsat)/:status sat)/' "$f" >"$tmp/wrong/$(basename "$f")"
  done
  expect 1 "disagree .*z3 sat, cvc5 unsat" -- python3 "$recheck" "$tmp/wrong"
  # Bad input: a directory that is not there, one with no query in it, and
  # a query the dump could not write (said why, not asked).
  expect 2 "no directory $tmp/nowhere" -- python3 "$recheck" "$tmp/nowhere"
  mkdir "$tmp/empty"
  expect 2 "no .smt2 files" -- python3 "$recheck" "$tmp/empty"
  printf '; stagecheck query: q\n; not written: no real encoding for bitcast\n' >"$tmp/wrong/99999-q.smt2"
  expect 1 "1 not written" -- python3 "$recheck" "$tmp/wrong"
fi

# TTGIR -> LLVM IR: the last barrier of a two-warp max reduction dropped
# lets threads 1-63 read shared memory while thread 0 writes it. Only
# thread 0 stores the maximum, and it reads its own write: proved for any
# value the racing loads read, and the race is listed. Compared with the
# original thread by thread the two differ (one barrier fewer); as CTAs
# they are equal.
a=$(ls "$(dirname "$0")"/../corpus/inductor_amax/kernels/*/*.llir)
last=$(grep -n 'call void @llvm.nvvm.barrier' "$a" | tail -1 | cut -d: -f1)
sed "${last}d" "$a" >"$tmp/nobarrier.llir"
expect 0 "verdict: proved" -- "$stagecheck" check --from ttgir "${a%.llir}.ttgir" --to llir "$a"
expect 3 "cannot read '$tmp/no.bc'" -- "$stagecheck" check --from ttgir "${a%.llir}.ttgir" --to llir "$a" --libdevice "$tmp/no.bc"
expect 0 "racing loads read any value" -- "$stagecheck" check --from ttgir "${a%.llir}.ttgir" --to llir "$tmp/nobarrier.llir"
expect 0 "verdict: proved" -- "$stagecheck" check --from llir --to llir "$a" "$tmp/nobarrier.llir"
# A warp shuffle of the column sum's PTX made a move: the thread's
# exchanges differ in kind, shown with an input (replayed) that reaches
# the fourth.
mutant_of sum_noshfl "$(dirname "$0")/../corpus/inductor_sum_persistent" ptx '62s/shfl.sync.bfly.b32 \t%r20, %r19, 16, 31, -1;/mov.b32 \t%r20, %r19;/'
expect 1 "exchange 5 of the thread differs: the LLVM IR has shfl.sync.bfly, the PTX barrier" -- "$stagecheck" audit --stages 'llir->ptx' "$tmp/sum_noshfl"
also "input    nprog.x" "shuffle made a move: the input that reaches the exchange"

# The row max of softmax with its NaN test made always true (`une x, x`
# made `ueq`): the max is the row's first element. Equal over the reals
# (shift invariance), so it is the range question that shows the bug, at
# an element other than the first (exp(x0 - x0) never overflows).
mutant_of softmax_firstmax "$(dirname "$0")/../corpus/inductor_softmax" ttir '41s/arith.cmpf une/arith.cmpf ueq/'
expect 1 "the kernel overflows to nan .* where the reference stays finite" -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/softmax_firstmax"
also "the values are equal over the reals (proved)" "always-true NaN test: the values question still proves"

# hardswish: x * clamp(x + 3, 0, 6) / 6, the kernel's clamp spelled with
# NaN tests and the division a product by 0.166666672. Within tolerance,
# proved under the rounding model once the two clamps are one node; the
# factor 7 ulp low is beyond it.
expect 0 "proved within tolerance" -- "$stagecheck" audit --stages 'fx->ttir' "$heldout2/inductor_hardswish"
mutant_of hardswish_low "$heldout2/inductor_hardswish" ttir '9s/dense<0.166666672>/dense<0.166666567>/'
expect 1 "the kernel does not compute the reference" -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/hardswish_low"

# argmax: the kernel's tree of (value, index) selects, ties to the smaller
# index, and torch's left fold are one lexicographic arg-max over the
# reals (the index widened through f32 to i64 on the way out). The same
# combine picking the smaller value is a counterexample.
heldout=$(dirname "$0")/../../bench/heldout
expect 0 "FX -> TTIR *proved" -- "$stagecheck" audit --stages 'fx->ttir' "$heldout/inductor_argmax"
also "(value, index) selects as one lexicographic arg-max/min" "argmax: the pair tree read as one arg-max"
mutant_of argmax_min "$heldout/inductor_argmax" ttir '37s/arith.cmpf ogt/arith.cmpf olt/'
expect 1 "the kernel does not compute the reference at buf0" -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/argmax_min"
# Ties broken toward the larger index: the smallest input shows it, a row
# of zeros, where torch says 0 and the kernel 127.
mutant_of argmax_lasttie "$heldout/inductor_argmax" ttir '46s/arith.cmpi slt/arith.cmpi sgt/'
expect 1 "target  buf0\[0\] = 127 " -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/argmax_lasttie"
also "input    every element read = 0" "argmax tie-break: the counterexample shrunk to a row of zeros"

# cummax: torch's running maximum (a NaN or a value >= the running one
# replaces it) against the kernel's scan of (value, index) pairs; the
# combine made to keep the smaller value is a counterexample at the
# second element.
expect 0 "FX -> TTIR *proved" -- "$stagecheck" audit --stages 'fx->ttir' "$(dirname "$0")/../../bench/heldout3/inductor_cummax"
mutant_of cummax_min "$(dirname "$0")/../../bench/heldout3/inductor_cummax" ttir '26s/arith.cmpf ogt/arith.cmpf olt/'
expect 1 "the kernel does not compute the reference at buf0\[1\]" -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/cummax_min"

# nan_to_num(x * 1e30): the reals give the kernel's inf tests no value, so
# the values are proved bit-exact in IEEE with __nv_isnanf's libdevice
# body; posinf replaced by 2 instead of 1 is a counterexample at an input
# whose product overflows.
expect 0 "FX -> TTIR *proved.*bit-exact in IEEE where the reals give a value no meaning" -- "$stagecheck" audit --stages 'fx->ttir' --libdevice "$lib" "$tests/corpus/inductor_nan_to_num"
mutant_of nan_to_num_posinf "$tests/corpus/inductor_nan_to_num" ttir '7s/dense<1.000000e+00>/dense<2.000000e+00>/'
expect 1 "the kernel does not compute the reference at buf0.*they differ by 1" -- "$stagecheck" audit --stages 'fx->ttir' --libdevice "$lib" "$tmp/nan_to_num_posinf"
# isnan made isinf differs only at NaN inputs, outside the finite-input
# contract: no counterexample, and the bit-exact question must not prove it.
mutant_of nan_to_num_isinf "$tests/corpus/inductor_nan_to_num" ttir '28s/__nv_isnanf/__nv_isinff/'
expect 2 "FX -> TTIR *unknown" -- "$stagecheck" audit --stages 'fx->ttir' --libdevice "$lib" "$tmp/nan_to_num_isinf"
# The |x| == inf test made |x| != inf: a counterexample, checked exactly
# over the reals where it can be; the comparison with an infinity, which
# has no value there, once stopped the audit with an internal error.
mutant_of nan_to_num_notinf "$tests/corpus/inductor_nan_to_num" ttir '27s/arith.cmpf oeq, %tmp2_6, %tmp6/arith.cmpf one, %tmp2_6, %tmp6/'
expect 1 "the kernel does not compute the reference at buf0" -- "$stagecheck" audit --stages 'fx->ttir' --libdevice "$lib" "$tmp/nan_to_num_notinf"

# An int32 running sum widened to int64: each i64 crosses lanes as two
# 32-bit shuffles, its high word first built as the sign of the loaded
# int32 (ashr 31). Joined again they are the i64, so the scans meet; a
# high word made with a logical shift (a zero extension of a negative
# element) is a counterexample.
expect 0 "TTGIR -> LLVM IR *proved" -- "$stagecheck" audit --stages 'ttgir->llir' "$(dirname "$0")/../../bench/heldout3/inductor_cumsum_int"
mutant_of cumsum_int_zext "$(dirname "$0")/../../bench/heldout3/inductor_cumsum_int" llir '22s/ashr i32 %17, 31/lshr i32 %17, 31/'
expect 1 "bug introduced at TTGIR -> LLVM IR" -- "$stagecheck" audit --stages 'ttgir->llir' "$tmp/cumsum_int_zext"

# The scan of logcumsumexp with its cross-warp barrier dropped: warp 1
# reads warp 0's partial result before it is written. A counterexample
# (the racing loads read 0), its hundreds of racing bytes summarized.
heldout3=$(dirname "$0")/../../bench/heldout3
mutant_of scan_nobarrier "$heldout3/inductor_logcumsumexp" llir '776{/barrier.cta.sync/d}'
expect 1 "bug introduced at TTGIR -> LLVM IR" -- "$stagecheck" audit --stages 'ttgir->llir' --libdevice "$lib" "$tmp/scan_nobarrier"
also "racing loads read any value" "dropped barrier: the race is named"
also "every racing load's byte = 0" "dropped barrier: racing bytes summarized"
# The same with a freeze of a value that is poison for one input (an add
# that may overflow): a freeze is the thread's own unknown, named by its
# line, so the kernel and its copy without the barrier freeze alike (any
# value the source's freeze takes may be the target's).
sed 's/^  %22 = bitcast i32 %20 to float/  %p = add nsw i32 %20, 1\n  %f = freeze i32 %p\n  %22 = bitcast i32 %f to float/' "$a" >"$tmp/freeze.llir"
grep -q 'freeze i32 %p' "$tmp/freeze.llir" || { echo "FAIL: no freeze inserted"; fails=$((fails + 1)); }
last=$(grep -n 'call void @llvm.nvvm.barrier' "$tmp/freeze.llir" | tail -1 | cut -d: -f1)
sed "${last}d" "$tmp/freeze.llir" >"$tmp/freeze-nobarrier.llir"
expect 0 "verdict: proved" -- "$stagecheck" check --from llir --to llir "$tmp/freeze.llir" "$tmp/freeze-nobarrier.llir"
# Without the first barrier thread 0 combines warp 1's maximum before warp
# 1 has written it: the racing load's value reaches the store.
first=$(grep -n 'call void @llvm.nvvm.barrier' "$a" | head -1 | cut -d: -f1)
sed "${first}d" "$a" >"$tmp/nofirstbarrier.llir"
expect 1 "raced.smem@" -- "$stagecheck" check --from ttgir "${a%.llir}.ttgir" --to llir "$tmp/nofirstbarrier.llir"
expect 1 "verdict: counterexample" -- "$stagecheck" check --from llir --to llir "$a" "$tmp/nofirstbarrier.llir"

# An embedding's loads read rows at addresses taken from the index tensor.
# A row stride of 31 reads the wrong row (the input shows both rows); a
# select turned around makes every valid index fail the kernel's device
# assertion where the reference is defined; an assertion that lets index
# 64 through, where the reference is undefined, still refines it.
e=$(dirname "$0")/../corpus/inductor_embedding
ek=kernels/triton_poi_fused_embedding_mul_0/triton_poi_fused_embedding_mul_0.ttir
embedding_mutant() { # embedding_mutant NAME SED-SCRIPT
  cp -r "$e" "$tmp/$1"
  sed -i "$2" "$tmp/$1/$ek"
  if cmp -s "$e/$ek" "$tmp/$1/$ek"; then
    echo "FAIL: embedding mutant $1 changed nothing"; fails=$((fails + 1))
  fi
}
embedding_mutant emb_stride 's/%tmp6 = arith.constant dense<32> : tensor<8x1xi64>/%tmp6 = arith.constant dense<31> : tensor<8x1xi64>/'
expect 1 "does not compute the reference at buf0.*" -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/emb_stride"
also "input    arg0_1\[[0-9]*\] = .* arg0_1\[[0-9]*\] = .* arg1_1\[0\] = " "the stride mutant's input names both rows"
embedding_mutant emb_swap 's/%tmp4 = arith.select %tmp3, %tmp2, %tmp0_14/%tmp4 = arith.select %tmp3, %tmp0_14, %tmp2/'
expect 1 "is undefined: device assertion failed: index out of bounds: 0 <= tmp4 < 64, where the reference is defined" -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/emb_swap"
embedding_mutant emb_bound 's/%cst_0 = arith.constant dense<64>/%cst_0 = arith.constant dense<65>/'
expect 0 "verdict: proved" -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/emb_bound"
# A row stride of 33 reads past the table for index 63, where the
# reference is defined: the load check does not prove (a load is not known
# to be unmasked there, so it is unknown, never proved).
embedding_mutant emb_past 's/%tmp6 = arith.constant dense<32> : tensor<8x1xi64>/%tmp6 = arith.constant dense<33> : tensor<8x1xi64>/'
expect 2 "data-dependent loads: an address that depends on the data may lie outside its tensor (arg0_1" -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/emb_past"

# Over the reals expm1(0) = 0, so ELU's `x > 0 ? x : expm1(x)` made
# `x >= 0` is the same function (FX -> TTIR proves it); the comparison
# turned around (`x < 0`) is a counterexample.
mutant_of elu_oge "$heldout2/inductor_elu" ttir '19s/%tmp2_6 = arith.cmpf ogt/%tmp2_6 = arith.cmpf oge/'
expect 0 "FX -> TTIR *proved" -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/elu_oge"
mutant_of elu_olt "$heldout2/inductor_elu" ttir '19s/%tmp2_6 = arith.cmpf ogt/%tmp2_6 = arith.cmpf olt/'
expect 1 "the kernel does not compute the reference" -- "$stagecheck" audit --stages 'fx->ttir' "$tmp/elu_olt"

# `check` of a bundle's kernel files reads the metadata beside them, as the
# audit does: gelu's erff from the CUDA toolkit's libdevice differs from
# the copy Triton linked (named by the metadata, absent here), so the
# difference found is the libraries', unknown; with that copy given, proved.
gl=$(dirname "$0")/../corpus/inductor_gelu/kernels/triton_poi_fused_gelu_0/triton_poi_fused_gelu_0
expect 2 "give it with --libdevice" -- "$stagecheck" check --from ttgir --to llir "$gl.ttgir" "$gl.llir"
also "metadata: .*triton_poi_fused_gelu_0.json (beside the source" "check names the metadata it read"
expect 0 "verdict: proved" -- "$stagecheck" check --from ttgir --to llir --libdevice "$(dirname "$0")/../stages/ttgir_to_llir/libdevice/triton-3.6.0-libdevice.10.bc" "$gl.ttgir" "$gl.llir"
# Metadata beside the source that is malformed, or gives a field the
# checks read another type, is an input error, as with --meta.
mkdir -p "$tmp/badmeta"
cp "$gl.ttgir" "$gl.llir" "$tmp/badmeta/"
bm=$tmp/badmeta/triton_poi_fused_gelu_0
printf '{"target": {"arch": 90,\n "name": }\n' >"$bm.json"
expect 3 "triton_poi_fused_gelu_0.json: malformed kernel metadata: \[2:" -- "$stagecheck" check --from ttgir --to llir "$bm.ttgir" "$bm.llir"
echo '{"target": {"arch": "sm90"}}' >"$bm.json"
expect 3 "kernel metadata field 'target.arch' is not an integer" -- "$stagecheck" check --from llir --to llir "$bm.llir" "$bm.llir"
echo '{"enable_fp_fusion": "yes"}' >"$bm.json"
expect 3 "kernel metadata field 'enable_fp_fusion' is not a boolean" -- "$stagecheck" lift "$bm.llir"
echo '{"enable_reflect_ftz": 1}' >"$bm.json"
expect 3 "kernel metadata field 'enable_reflect_ftz' is not a boolean" -- "$stagecheck" check --from ttgir --to llir "$bm.ttgir" "$bm.llir"
echo '{"num_warps": "4"}' >"$bm.json"
expect 3 "kernel metadata field 'num_warps' is not an integer" -- "$stagecheck" check --from ttgir --to llir "$bm.ttgir" "$bm.llir"
echo '{"target": "cuda:90"}' >"$bm.json"
expect 3 "kernel metadata field 'target' is not an object" -- "$stagecheck" check --from llir --to llir "$bm.llir" "$bm.llir"

# On sm_90 a .ftz approximate instruction is its plain form between flushes
# (measured over every f32 input by scripts/ftz_relation.cu). libdevice's
# rsqrtf picks rsqrt.approx.ftz or rsqrt.approx by __nvvm_reflect; its
# answer turned around is then the same kernel, since the argument
# (a sum plus 1e-6) is never subnormal. The metadata gives the
# architecture; told sm_80, where nothing was measured, the two forms stay
# apart and the check does not prove.
r=$(dirname "$0")/../../bench/heldout2/inductor_rsqrt_scale/kernels/triton_per_fused_add_mul_rsqrt_sum_0/triton_per_fused_add_mul_rsqrt_sum_0
triton_libdevice=$(dirname "$0")/../stages/ttgir_to_llir/libdevice/triton-3.6.0-libdevice.10.bc
sed '98s/%.not.i7 = icmp eq i32 %93, 0/%.not.i7 = icmp ne i32 %93, 0/' "$r.llir" >"$tmp/rsqrt_reflect.llir"
cmp -s "$r.llir" "$tmp/rsqrt_reflect.llir" && { echo "FAIL: rsqrt reflect mutant changed nothing"; fails=$((fails + 1)); }
expect 0 "verdict: proved" -- "$stagecheck" check --from ttgir --to llir --meta "$r.json" --libdevice "$triton_libdevice" "$r.ttgir" "$tmp/rsqrt_reflect.llir"
sed 's/"arch": 90/"arch": 80/' "$r.json" >"$tmp/rsqrt_sm80.json"
expect 2 "verdict: unknown" -- "$stagecheck" check --from ttgir --to llir --timeout-ms 2000 --meta "$tmp/rsqrt_sm80.json" --libdevice "$triton_libdevice" "$r.ttgir" "$tmp/rsqrt_reflect.llir"

# The PTX's ex2.approx made .ftz flushes the subnormal exponentials the
# LLVM IR keeps. The solver's only counterexample reads a subnormal
# argument and assumes a value of ex2.approx there that no approximation
# gives (1.5 for about 1): unknown, naming that value, not a counterexample.
cp -r "$(dirname "$0")/../corpus/bug_g_softmax_nomax" "$tmp/ex2_ftz"
g=$tmp/ex2_ftz/kernels/softmax_nomax_kernel/softmax_nomax_kernel
sed -i 's/ex2.approx.f32/ex2.approx.ftz.f32/' "$g.ptx"
expect 2 "the only counterexample found assumes ex2.approx(" -- "$stagecheck" audit --stages 'llir->ptx' --json "$tmp/ex2_ftz.json" "$tmp/ex2_ftz"
/usr/bin/env python3 "$(dirname "$0")/../bundle/validate_json.py" "$(dirname "$0")/../../docs/audit-report.schema.json" "$tmp/ex2_ftz.json" ||
  { echo "FAIL: the ex2 mutant's report does not follow the schema"; fails=$((fails + 1)); }
# A value an approximation could give (ex2.approx(0.5) = 1.4140625) is
# kept, and listed as assumed in the text and the JSON report.
expect 1 "assumed ex2.approx(0.5 (0x3f000000)) = 1.4140625" -- "$stagecheck" check --json "$tmp/assumed.json" "$sir/approx_plausible.src.sir" "$sir/approx_plausible.tgt.sir"
grep -q '"function": "ex2.approx"' "$tmp/assumed.json" || { echo "FAIL: no assumed ex2.approx in the JSON report"; fails=$((fails + 1)); }

if [[ $fails -ne 0 ]]; then echo "$fails CLI test(s) failed"; exit 1; fi
echo "all CLI tests passed"
