// Built instead of the collectives suite when MPI is not found: it registers no cases, and
// `tandem collectives` says MPI is needed.
#include "suites/register_suites.h"

namespace tandem {
void register_collectives_suite(Registry&) {}
}  // namespace tandem
