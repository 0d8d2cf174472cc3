#!/bin/bash
# Two CTAs an SM on the Hopper loop (fewer stages) against one (the table's stages).
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
el built
B=/tmp/b; mkdir -p $B
for v in base 4 3 2; do for p in tf32 ieee; do for f in anchors/s1/mlir/*.mlir; do n=$(basename $f .mlir)
  ( if [ $v = base ]; then unset SOLDER_WGMMA_STAGES; else export SOLDER_WGMMA_STAGES=$v; fi
    build-static/bin/solder-compile --arch=sm_90a --precision=$p $f -o $B/$v/$p/$n > /dev/null 2>&1 || echo "compile failed $v $p $n" ) &
  while [ $(jobs -r | wc -l) -ge 16 ]; do sleep 0.2; done
done; done; done; wait; el compiled
# Variants whose kernels differ from base.
: > $OUT/variants.txt
for p in tf32 ieee; do for d in $B/base/$p/*/; do n=$(basename $d)
  for v in 4 3 2; do cmp -s $d/kernels.cu $B/$v/$p/$n/kernels.cu || echo "$p $n $v" >> $OUT/variants.txt; done; done; done
cat $OUT/variants.txt | wc -l
for v in base 4 3 2; do for p in tf32 ieee; do for d in $B/$v/$p/*/; do
  echo "$v $p $(basename $d) $(cuobjdump --dump-resource-usage $d/kernels.sm_90a.cubin 2>/dev/null | grep -A1 '_k0_conv\b\|_k0_conv(' | grep -o 'REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*' | tr '\n' ' ')"; done; done; done > $OUT/resources.txt
el resources
# Correctness: the variant's outputs against base's, same seed.
python3 - <<'PY' > $OUT/compare.txt 2>&1
import subprocess, numpy as np, os
B="/tmp/b"
for line in open(os.environ["OUT"]+"/variants.txt"):
    p,n,v=line.split()
    outs=[]
    for t in ("base",v):
        d=f"/tmp/o/{t}/{p}/{n}"; os.makedirs(d,exist_ok=True)
        r=subprocess.run(["build-gpu/bin/solder-run",f"{B}/{t}/{p}/{n}","--seed=3",f"--output-dir={d}"],capture_output=True,text=True)
        if r.returncode: print("RUN FAILED",t,p,n,r.stderr[-300:]); break
        outs.append(np.load(f"{d}/output0.npy"))
    else:
        a,b=outs; print(p,n,v,"bitwise" if np.array_equal(a,b) else f"DIFF max {np.abs(a-b).max():.3e}")
PY
el compared; grep -c bitwise $OUT/compare.txt; grep -v bitwise $OUT/compare.txt | head
for round in 1 2; do while read p n v; do
  for t in base $v; do
    echo "$round $t $p $n $(build-gpu/bin/solder-run $B/$t/$p/$n --bench=30 2>&1 | grep -o 'median [0-9.]* ms')"
  done; done < $OUT/variants.txt; done > $OUT/ab.txt
el timed; cat $OUT/ab.txt | head -80
