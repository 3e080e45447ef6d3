// LeakSanitizer self-check of ci/sanitize.sh (built only in its sanitizer build): a process that starts and finalises
// MPI, as tandem's MPI tests and the quick job do, and leaks one allocation of its own in between. Under the job's
// settings (fast_unwind_on_malloc=0 and ci/lsan_openmpi.supp) exactly that leak must be reported — Open MPI's own leaks
// suppressed, tandem's not. sanitize.sh fails when either half does not hold.
#include <mpi.h>

#include <cstring>

namespace tandem {
char* volatile planted;  // volatile: the pointer is really dropped, not kept in a register
__attribute__((noinline)) void plant_leak_of_4242_bytes() {
  planted = new char[4242];
  std::memset(planted, 1, 4242);
  planted = nullptr;
}
}  // namespace tandem

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  tandem::plant_leak_of_4242_bytes();
  MPI_Finalize();
  return 0;
}
