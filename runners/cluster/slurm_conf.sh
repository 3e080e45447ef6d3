#!/usr/bin/env bash
# Prints slurm.conf for the one-machine cluster of N hosts: every path under $CLUSTER_DIR,
# munge on its own socket, no cgroups (linuxproc tracking, no task plugin: the hosts share
# one kernel and cgroup tree), each node at its namespace's address.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster_env.sh"
n=$1 d=$CLUSTER_DIR
cat <<CONF
ClusterName=tandem
SlurmctldHost=node1($CLUSTER_NET.1)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.%n.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=pmix
ReturnToService=2
KillWait=5
# A job larger than the partition is refused when submitted, as most sites configure it,
# instead of pending for ever (reason PartitionConfig) with srun waiting on it.
EnforcePartLimits=ALL
CONF
for i in $(seq 1 "$n"); do echo "NodeName=node$i NodeAddr=$CLUSTER_NET.$i CPUs=2 RealMemory=1024 State=UNKNOWN"; done
echo "PartitionName=tandem Nodes=ALL Default=YES MaxTime=INFINITE OverSubscribe=FORCE:4 State=UP"
