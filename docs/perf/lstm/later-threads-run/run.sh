#!/bin/bash
# The row split with single-threaded BLAS, against no split; and the default all-threads setting.
set -x
cd /tmp/perf5
date -u; uptime
OPENBLAS_NUM_THREADS=1 ./lstm_cpu_bench --threads 1 --reps 3 > blas1_rows1.json 2> blas1_rows1.log
OPENBLAS_NUM_THREADS=1 ./lstm_cpu_bench --threads 2 --reps 3 > blas1_rows2.json 2> blas1_rows2.log
OPENBLAS_NUM_THREADS=2 ./lstm_cpu_bench --threads 2 --reps 3 > blas2_default.json 2> blas2_default.log
date -u; uptime
