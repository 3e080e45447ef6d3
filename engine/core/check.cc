// The formatter behind every CHECK macro (engine/core/check.h).
#include "engine/core/check.h"

#include "engine/core/rank_env.h"

namespace tandem::check {

std::string failure_message(const Site& site, const Place& place, const std::string& what) {
  std::string where = "host " + place.host;
  where += place.rank >= 0 ? cat(", rank ", place.rank) : std::string(", rank none (not launched)");
  if (place.device >= 0) where += cat(", cuda device ", place.device);
  else if (place.device == kUnknownDevice) where += ", cuda device unknown";
  return cat(site.library, " call failed: ", site.expr, " at ", site.file, ":", site.line, " [", where, "]: ", what);
}

Place place_now(int device, int mpi_rank) {
  Place p;
  p.host = host_name();
  p.rank = launcher_rank() >= 0 ? launcher_rank() : mpi_rank;
  p.device = device;
  return p;
}

void throw_failure(const Site& site, int device, const std::string& what, int mpi_rank) {
  throw Error(ErrorKind::internal, failure_message(site, place_now(device, mpi_rank), what));
}

namespace {
std::string g_broken;  // the first sticky error's name: once broken, a context stays broken
}
void note_device_context_broken(const std::string& why) {
  if (g_broken.empty()) g_broken = why;
}
const std::string* device_context_broken() { return g_broken.empty() ? nullptr : &g_broken; }

}  // namespace tandem::check
