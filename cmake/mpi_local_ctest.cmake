# Included by ctest before it runs any test (TEST_INCLUDE_FILES of the top directory), so every
# test, and every process it starts (mpiexec, tandem, a singleton gtest binary), gets the Open
# MPI launcher choice of runners/launch/mpi_local.sh. Evaluated when ctest runs, on the
# machine that runs it: binaries built where ssh exists still run where it does not.
if(NOT DEFINED ENV{OMPI_MCA_plm})
  execute_process(COMMAND sh -c ". \"$0\" && printf %s \"\${OMPI_MCA_plm:-}\""
                          ${CMAKE_CURRENT_LIST_DIR}/../runners/launch/mpi_local.sh
                  OUTPUT_VARIABLE _tandem_plm)
  if(_tandem_plm)
    set(ENV{OMPI_MCA_plm} "${_tandem_plm}")
  endif()
endif()
