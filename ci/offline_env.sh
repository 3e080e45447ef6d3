# Sourced by the ci/*.sh entry points. With TANDEM_OFFLINE_PREFIX set (an unpacked bundle,
# ci/unpack_debs.sh), loads its env.sh so configure, build and tests find the bundle's
# OpenBLAS, Open MPI, GoogleTest, ... and nothing calls apt-get. Unset: does nothing.
if [ -n "${TANDEM_OFFLINE_PREFIX:-}" ]; then
  if [ ! -f "$TANDEM_OFFLINE_PREFIX/env.sh" ]; then
    echo "error: TANDEM_OFFLINE_PREFIX=$TANDEM_OFFLINE_PREFIX has no env.sh" >&2
    echo "  hint: run ci/unpack_debs.sh <debs> $TANDEM_OFFLINE_PREFIX first (the debs come from ci/bundle_debs.sh)" >&2
    exit 5
  fi
  # shellcheck source=/dev/null
  . "$TANDEM_OFFLINE_PREFIX/env.sh"
fi
# Open MPI on a machine without ssh/rsh (after env.sh, whose PATH counts): the one-host launcher.
# shellcheck source=../runners/launch/mpi_local.sh
. "$(dirname "${BASH_SOURCE[0]}")/../runners/launch/mpi_local.sh"
