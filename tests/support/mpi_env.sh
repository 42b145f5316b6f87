# Sourced by the MPI test scripts: lets Open MPI run 2 ranks here.
# Open MPI refuses root unless told; CI runs as root in a container.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One machine, possibly fewer cores than ranks; no network fabric probing.
export OMPI_MCA_btl=self,vader OMPI_MCA_rmaps_base_oversubscribe=1
