#!/bin/sh
# quick: tools/eva/run1.sh drivers/file.c entry [extra frama-c options]
d=$(dirname "$0"); f=$1; e=$2; shift 2
exec frama-c -machdep gcc_x86_64 -cpp-extra-args="-I$d/../../csrc -I$d" \
  $d/../../csrc/*.c $d/../../csrc/host/fxdp_host_rappor_full.c $d/eva_builtins.c $d/$f \
  -eva -main eva_$e -eva-precision 1 -eva-no-show-progress -eva-msg-key=-initial-state,-final-states "$@"
