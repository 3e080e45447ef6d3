#!/bin/bash
# Re-run of the LSTM comparison on an idle machine with 9 repetitions (min) per row.
T=./lstm_cpu_bench; TB=/work/main/suites/lstm/torch_lstm_bench.py
date -u; uptime
OPENBLAS_NUM_THREADS=1 $T --threads 1 --reps 9 > r9_tandem_1t.json 2> /dev/null
OPENBLAS_NUM_THREADS=1 /usr/bin/python3 $TB --shapes shapes.json --threads 1 --reps 9 > r9_torch_1t.json 2> /dev/null
uptime
OPENBLAS_NUM_THREADS=2 $T --threads 1 --reps 9 > r9_tandem_2t.json 2> /dev/null
OPENBLAS_NUM_THREADS=2 /usr/bin/python3 $TB --shapes shapes.json --threads 2 --reps 9 > r9_torch_2t.json 2> /dev/null
date -u; uptime
