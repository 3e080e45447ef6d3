#!/bin/bash
# The measurement run behind docs/PERFORMANCE.md "LSTM"; every output is kept in this folder.
set -x
cd /tmp/perf4
T=./lstm_cpu_bench          # this branch's kernel (copied from the build)
O=./before_bench            # the same tool linked with the kernel before this work (b7eca8c)
TB=/work/wt-lstm/suites/lstm/torch_lstm_bench.py
date -u; uptime; lscpu | grep -E "Model name|^CPU\(s\)"
$T --list-shapes > shapes.json
OPENBLAS_NUM_THREADS=1 ./blas_sgemm_compare libopenblas.so.0 > sgemm_1t.txt 2>&1
OPENBLAS_NUM_THREADS=1 /usr/bin/python3 sgemm_cpu.py > sgemm_cpu_1t.txt 2>&1
OPENBLAS_NUM_THREADS=2 ./blas_sgemm_compare libopenblas.so.0 > sgemm_2t.txt 2>&1
OPENBLAS_NUM_THREADS=2 /usr/bin/python3 sgemm_cpu.py > sgemm_cpu_2t.txt 2>&1
OPENBLAS_NUM_THREADS=1 $T --threads 1 --reps 3 > tandem_1t.json 2> tandem_1t.log
OPENBLAS_NUM_THREADS=1 /usr/bin/python3 $TB --shapes shapes.json --threads 1 --reps 3 > torch_1t.json 2> torch_1t.log
OPENBLAS_NUM_THREADS=1 $O --threads 1 --reps 3 > before_1t.json 2> before_1t.log
uptime
OPENBLAS_NUM_THREADS=2 $T --threads 2 --reps 3 > tandem_2t.json 2> tandem_2t.log
OPENBLAS_NUM_THREADS=2 /usr/bin/python3 $TB --shapes shapes.json --threads 2 --reps 3 > torch_2t.json 2> torch_2t.log
OPENBLAS_NUM_THREADS=2 $T --threads 1 --reps 3 > tandem_blas2_rows1.json 2> tandem_blas2_rows1.log
OPENBLAS_NUM_THREADS=2 $O --threads 1 --reps 3 > before_2t.json 2> before_2t.log
date -u; uptime
