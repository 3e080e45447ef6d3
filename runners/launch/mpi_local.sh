# shellcheck shell=sh
# Sourced (`. mpi_local.sh`, POSIX sh) by every entry point that may start Open MPI: ci/offline_env.sh, the env.sh of
# ci/unpack_debs.sh (copied in), runners/launch/mpirun.sh and, through cmake/MpiLocalEnv.cmake, every ctest test. Open
# MPI 4.1's default launcher (plm rsh) needs ssh or rsh on PATH even for ranks on this one host, and so does a singleton
# MPI_Init (its local daemon selects a launcher too): without either, mpirun exits 243 and MPI_Init fails with "Unable
# to start a daemon on the local node". The GPU machine has neither, so there the `isolated` launcher is chosen: ranks
# on this host only, no remote agent (a host list naming another node is refused). Where ssh or rsh exists, or a
# launcher or agent is already chosen, nothing changes: multi-host runs keep plm rsh. The PATH walk tests the execute
# bit as Open MPI does; bash's `command -v` would accept a non-executable file.
if [ -z "${OMPI_MCA_plm:-}${OMPI_MCA_plm_rsh_agent:-}" ] &&
   [ -z "$(IFS=:; for d in $PATH; do for n in ssh rsh; do
             [ -f "${d:-.}/$n" ] && [ -x "${d:-.}/$n" ] && echo "$n"; done; done)" ]; then
  export OMPI_MCA_plm=isolated
fi
